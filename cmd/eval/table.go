package eval

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/record"
)

// knowledgeCell says whether a model's runs were given the team's knowledge, and how many
// runs were given a note: "on, 3/10 runs" or "off".
func knowledgeCell(m eval.ModelReport) string {
	if !m.Knowledge {
		return "off"
	}
	return fmt.Sprintf("on, %d/%d runs", m.KnowledgeRuns, m.Runs)
}

// printTable writes the report for a person: the models side by side, each model's confusion
// matrix, and the cases some run got wrong or failed. Piped, the rows are tab-separated.
func printTable(ios *cmdutil.IOStreams, rep *eval.Report) {
	w := ios.Out
	t := cmdutil.NewTable(w, ios.StdoutTTY, "MODEL", "CASES", "RUNS", "ERRORS", "ACCURACY", "CONSISTENCY", "MENTIONS", "UNSUPPORTED", "TOKENS", "SECONDS", "KNOWLEDGE").PipeHeader(true)
	for _, m := range rep.Models {
		mentions := "-"
		if m.MentionRecall != nil {
			mentions = percent(*m.MentionRecall)
		}
		t.Row(m.Model, strconv.Itoa(m.Cases), strconv.Itoa(m.Runs), strconv.Itoa(m.Errors), percent(m.Accuracy), percent(m.Consistency),
			mentions, fmt.Sprintf("%d/%d", m.Unsupported, m.Cited), strconv.FormatInt(m.Tokens.Total, 10), strconv.FormatFloat(m.Seconds, 'f', 1, 64), knowledgeCell(m))
	}
	t.Flush()
	for _, m := range rep.Models {
		if m.Stopped != "" {
			fmt.Fprintf(w, "\n%s stopped: %s\n", cmdutil.CleanCell(m.Model), cmdutil.CleanCell(m.Stopped))
			continue
		}
		if m.Runs == m.Errors {
			continue
		}
		fmt.Fprintf(w, "\n%s: expected (rows) against suggested (columns)\n", cmdutil.CleanCell(m.Model))
		header := []string{"EXPECTED"}
		for _, v := range record.Verdicts {
			header = append(header, strings.ToUpper(string(v)))
		}
		ct := cmdutil.NewTable(w, ios.StdoutTTY, header...).PipeHeader(true)
		for _, exp := range record.Verdicts {
			row := m.Confusion[exp]
			if row == nil {
				continue
			}
			cells := []string{string(exp)}
			for _, got := range record.Verdicts {
				cells = append(cells, strconv.Itoa(row[got]))
			}
			ct.Row(cells...)
		}
		ct.Flush()
	}
	var wrong []string
	for _, c := range rep.Cases {
		var notes []string
		for _, r := range c.Runs {
			switch {
			case r.Failed():
				notes = append(notes, fmt.Sprintf("%s #%d error: %s", r.Model, r.Repeat, r.Error))
			case !r.Correct:
				notes = append(notes, fmt.Sprintf("%s #%d said %s", r.Model, r.Repeat, r.Verdict))
			}
		}
		if len(notes) > 0 {
			wrong = append(wrong, fmt.Sprintf("  %s (expected %s): %s", c.ID, c.Expected, strings.Join(notes, "; ")))
		}
	}
	if len(wrong) > 0 {
		fmt.Fprintln(w, "\nCases not triaged as expected:")
		for _, l := range wrong {
			fmt.Fprintln(w, cmdutil.CleanCell(l))
		}
	}
	if !rep.Complete {
		fmt.Fprintln(w, "\nInterrupted: the figures are of the runs that finished.")
	}
}

func percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
