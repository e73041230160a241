package record

import (
	"strings"
	"time"
)

// Verdict is how an investigation ended.
type Verdict string

// The verdicts an investigation can end with.
const (
	VerdictTruePositive  Verdict = "true_positive"
	VerdictFalsePositive Verdict = "false_positive"
	VerdictBenign        Verdict = "benign"
	VerdictEscalated     Verdict = "escalated"
	VerdictInconclusive  Verdict = "inconclusive"
)

// Verdicts are every verdict, in the order they are offered.
var Verdicts = []Verdict{VerdictTruePositive, VerdictFalsePositive, VerdictBenign, VerdictEscalated, VerdictInconclusive}

// VerdictNames is "true_positive, false_positive, ...": the verdicts as a message lists them.
func VerdictNames() string {
	names := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		names[i] = string(v)
	}
	return strings.Join(names, ", ")
}

// VerdictValues are the verdicts' names, in order: the values of a flag that takes one.
func VerdictValues() []string {
	names := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		names[i] = string(v)
	}
	return names
}

// ParseVerdict accepts a verdict's name exactly as the contract spells it: flags and stored
// values are the names, so that scripts agree with every other reader of them.
func ParseVerdict(s string) (Verdict, bool) {
	for _, v := range Verdicts {
		if string(v) == s {
			return v, true
		}
	}
	return "", false
}

// ParseTypedVerdict is ParseVerdict for a person answering a prompt: any case, '-' or ' '
// for '_'.
func ParseTypedVerdict(s string) (Verdict, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	return ParseVerdict(strings.NewReplacer("-", "_", " ", "_").Replace(s))
}

// Label is the verdict in words: "false positive".
func (v Verdict) Label() string { return strings.ReplaceAll(string(v), "_", " ") }

// Resolution is an investigation's conclusion: set by history resolve, cleared by history
// reopen. A turn never changes it (see store.SaveOrFork).
type Resolution struct {
	Verdict Verdict `json:"verdict"`
	// Note is the conclusion in the analyst's (or, confirmed by them, Gemini's) words; it is
	// redacted like every write of a history.
	Note string `json:"note,omitempty"`
	// ResolvedBy is the analyst who recorded the verdict.
	ResolvedBy string    `json:"resolved_by"`
	ResolvedAt time.Time `json:"resolved_at"`
	// Suggested is set when Gemini proposed the verdict and note (history resolve --suggest) and
	// ResolvedBy confirmed or edited them.
	Suggested bool `json:"suggested,omitempty"`
}

// Question says who asked one question of a history. It is kept in the metadata, beside the
// transcript: the transcript stays exactly what Gemini is sent.
type Question struct {
	// Content is the index in the transcript of the user content that asked it.
	Content int       `json:"content"`
	Analyst string    `json:"analyst"`
	At      time.Time `json:"at"`
}

// Verdict is the history's verdict, "" while it is open.
func (h *History) Verdict() Verdict {
	if h.Resolution == nil {
		return ""
	}
	return h.Resolution.Verdict
}

// Analysts are who asked the history's questions, each once, first asker first.
func (h *History) Analysts() []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range h.Questions {
		if q.Analyst != "" && !seen[q.Analyst] {
			seen[q.Analyst] = true
			out = append(out, q.Analyst)
		}
	}
	return out
}
