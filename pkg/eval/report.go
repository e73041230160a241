package eval

import (
	"slices"

	"github.com/alertchat/alertchat/pkg/record"
)

// Report is an evaluation's outcome: a summary per model, side by side, and each case's runs.
type Report struct {
	Models []ModelReport `json:"models"`
	Cases  []CaseReport  `json:"cases"`
	// Complete is false when the evaluation was interrupted: the figures are of the runs that
	// finished.
	Complete bool    `json:"complete"`
	Seconds  float64 `json:"seconds"`
}

// ModelReport sums one model's runs.
type ModelReport struct {
	Model string `json:"model"`
	// Knowledge says whether the runs were given the team's knowledge (false with
	// --no-knowledge); KnowledgeRuns how many runs were given at least one entry.
	Knowledge     bool `json:"knowledge"`
	KnowledgeRuns int  `json:"knowledge_runs"`
	// Cases is how many cases had a run; Runs how many runs finished, Errors how many of
	// them failed (not counted as wrong verdicts).
	Cases  int `json:"cases"`
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
	// Accuracy is the share of runs with a verdict whose verdict was the expected one.
	Accuracy float64 `json:"accuracy"`
	// Consistency is the share of cases whose runs with a verdict all agree (a case with one
	// such run agrees with itself).
	Consistency float64 `json:"consistency"`
	// MentionRecall is the share of must_mention values the answers and their evidence named,
	// over the runs with a verdict; null when no case lists any.
	MentionRecall *float64 `json:"mention_recall"`
	// UnsupportedEvidence is the share of cited evidence found neither in the alert nor in any
	// tool result of its run; Cited and Unsupported are the counts.
	UnsupportedEvidence float64 `json:"unsupported_evidence"`
	Cited               int     `json:"evidence_cited"`
	Unsupported         int     `json:"evidence_unsupported"`
	// Confusion counts runs by expected, then suggested verdict.
	Confusion map[record.Verdict]map[record.Verdict]int `json:"confusion"`
	Tokens    Tokens                                    `json:"tokens"`
	// Seconds is the sum of its runs' times (runs overlap with --concurrency).
	Seconds float64 `json:"seconds"`
	// Stopped is the error that stopped the model (it cannot be used), once.
	Stopped string `json:"stopped,omitempty"`
}

// Tokens are a model's tokens over its runs, the verdict requests included; thinking is
// billed as output.
type Tokens struct {
	Input   int64 `json:"input"`
	Output  int64 `json:"output"`
	Thought int64 `json:"thought"`
	Total   int64 `json:"total"`
}

// CaseReport is one case's runs.
type CaseReport struct {
	ID       string         `json:"id"`
	Expected record.Verdict `json:"expected"`
	Runs     []*Run         `json:"runs"`
}

// Summarize builds the report of res over items and models; describe turns a stopping error
// into its message (nil: err.Error()).
func Summarize(items []Item, models []string, res *Result, describe func(error) string) *Report {
	rep := &Report{Complete: !res.Interrupted, Seconds: res.Seconds, Models: []ModelReport{}, Cases: []CaseReport{}}
	byCase := map[string][]*Run{}
	for _, r := range res.Runs {
		byCase[r.Case] = append(byCase[r.Case], r)
	}
	for _, it := range items {
		runs := byCase[it.Case.ID]
		if runs == nil {
			runs = []*Run{}
		}
		rep.Cases = append(rep.Cases, CaseReport{ID: it.Case.ID, Expected: it.Case.Verdict, Runs: runs})
	}
	expected := map[string]*Case{}
	for i := range items {
		expected[items[i].Case.ID] = &items[i].Case
	}
	for _, m := range models {
		mr := ModelReport{Model: m, Knowledge: res.Knowledge, Confusion: map[record.Verdict]map[record.Verdict]int{}}
		if err, ok := res.Stopped[m]; ok {
			mr.Stopped = err.Error()
			if describe != nil {
				mr.Stopped = describe(err)
			}
		}
		verdicts := map[string][]record.Verdict{}
		cases := map[string]bool{}
		var correct, judged, mentions, mentioned int
		for _, r := range res.Runs {
			if r.Model != m {
				continue
			}
			cases[r.Case] = true
			mr.Runs++
			mr.Seconds += r.Seconds
			mr.Tokens.Input += r.Usage.InputTokens
			mr.Tokens.Output += r.Usage.OutputTokens
			mr.Tokens.Thought += r.Usage.ThoughtTokens
			if len(r.Knowledge) > 0 {
				mr.KnowledgeRuns++
			}
			if r.Failed() {
				mr.Errors++
				continue
			}
			judged++
			c := expected[r.Case]
			if r.Correct {
				correct++
			}
			if mr.Confusion[c.Verdict] == nil {
				mr.Confusion[c.Verdict] = map[record.Verdict]int{}
			}
			mr.Confusion[c.Verdict][r.Verdict]++
			verdicts[r.Case] = append(verdicts[r.Case], r.Verdict)
			mentions += len(c.MustMention)
			mentioned += len(r.Mentioned)
			mr.Cited += len(r.Evidence)
			mr.Unsupported += r.Unsupported
		}
		mr.Cases = len(cases)
		mr.Tokens.Total = mr.Tokens.Input + mr.Tokens.Output + mr.Tokens.Thought
		mr.Accuracy = share(correct, judged)
		agree := 0
		for _, vs := range verdicts {
			if !slices.ContainsFunc(vs, func(v record.Verdict) bool { return v != vs[0] }) {
				agree++
			}
		}
		mr.Consistency = share(agree, len(verdicts))
		if mentions > 0 {
			r := share(mentioned, mentions)
			mr.MentionRecall = &r
		}
		mr.UnsupportedEvidence = share(mr.Unsupported, mr.Cited)
		rep.Models = append(rep.Models, mr)
	}
	return rep
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// sortRuns orders runs by model (as given), case (as given) and repeat.
func sortRuns(runs []*Run, model, caseIndex map[string]int) {
	slices.SortStableFunc(runs, func(a, b *Run) int {
		if d := model[a.Model] - model[b.Model]; d != 0 {
			return d
		}
		if d := caseIndex[a.Case] - caseIndex[b.Case]; d != 0 {
			return d
		}
		return a.Repeat - b.Repeat
	})
}
