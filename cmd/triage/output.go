package triage

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/triage"
)

// printer prints each alert's line: at once when piped or as JSON (a script reads them as
// they come, and an interruption loses none), as one table sorted by proposed verdict and
// confidence at the end on a terminal, with progress on stderr meanwhile.
type printer struct {
	ios    *cmdutil.IOStreams
	json   bool
	total  int
	done   int
	failed int
	tokens int64
	rows   []*triage.Result
	err    error
}

func newPrinter(ios *cmdutil.IOStreams, output string, total int) *printer {
	p := &printer{ios: ios, json: output == "json", total: total}
	if ios.StderrTTY {
		ios.StartProgressIndicatorWithLabel(fmt.Sprintf("triaging %s…", format.Plural(total, "alert", "alerts")))
	}
	return p
}

// result is told of each finished alert, one at a time.
func (p *printer) result(r *triage.Result) {
	p.done++
	p.tokens += r.Usage.Total()
	if r.Error != nil {
		p.failed++
	}
	if p.ios.StderrTTY {
		p.ios.ShowProgressLine(fmt.Sprintf("triaging: %d of %d done, %d failed, %s tokens", p.done, p.total, p.failed, strconv.FormatInt(p.tokens, 10)))
	}
	if r.Lost {
		// Said on stderr, whatever the format: this run's investigation is an ordinary history.
		p.ios.Notice(fmt.Sprintf("Alert %s was triaged by another run meanwhile: this investigation is kept as history %s, without a proposal.",
			cmdutil.OneLine(string(r.AlertID)), r.HistoryID))
		return
	}
	switch {
	case p.err != nil:
	case p.json:
		p.err = cmdutil.PrintJSONLine(p.ios.Out, r)
	case !p.ios.StdoutTTY:
		p.err = p.table(false).row(r).flush()
	default:
		p.rows = append(p.rows, r)
	}
}

// finish stops the progress and prints the terminal's table.
func (p *printer) finish(sum *triage.Summary) error {
	if p.ios.StderrTTY {
		p.ios.StopProgressIndicator()
	}
	if p.err != nil || len(p.rows) == 0 {
		return p.err
	}
	slices.SortStableFunc(p.rows, byVerdict)
	t := p.table(true)
	for _, r := range p.rows {
		t.row(r)
	}
	return t.flush()
}

// byVerdict orders results as a terminal's table shows them: by proposed verdict (in
// record.Verdicts' order, errors last), then the surest first.
func byVerdict(a, b *triage.Result) int {
	rank := func(r *triage.Result) int {
		if r.Verdict == nil {
			return len(record.Verdicts)
		}
		return slices.Index(record.Verdicts, *r.Verdict)
	}
	conf := func(r *triage.Result) float64 {
		if r.Confidence == nil {
			return 0
		}
		return *r.Confidence
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(conf(b), conf(a)))
}

type resultTable struct {
	t      *cmdutil.Table
	pretty bool
}

func (p *printer) table(pretty bool) *resultTable {
	t := cmdutil.NewTable(p.ios.Out, pretty, "ALERT", "VERDICT", "CONFIDENCE", "EVIDENCE", "HISTORY", "TITLE")
	if pretty {
		t = t.Fit(p.ios.TermWidth)
	}
	return &resultTable{t: t, pretty: pretty}
}

func (t *resultTable) row(r *triage.Result) *resultTable {
	id, hist := string(r.AlertID), string(r.HistoryID)
	if t.pretty {
		id, hist = format.ShortID(id), format.ShortID(hist)
	}
	if hist == "" {
		hist = "-"
	}
	if r.Error != nil {
		t.t.Row(id, "error", "-", "-", hist, "error: "+*r.Error)
		return t
	}
	t.t.Row(id, string(*r.Verdict), strconv.FormatFloat(*r.Confidence, 'f', 2, 64), evidenceCell(r.Evidence), hist, r.Title)
	return t
}

func (t *resultTable) flush() error {
	t.t.Flush()
	return nil
}

// evidenceCell is "3" or "3 (1 unsupported)".
func evidenceCell(es []record.TriageEvidence) string {
	unsupported := 0
	for _, e := range es {
		if e.Unsupported {
			unsupported++
		}
	}
	if unsupported == 0 {
		return strconv.Itoa(len(es))
	}
	return fmt.Sprintf("%d (%d unsupported)", len(es), unsupported)
}
