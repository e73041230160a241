// Package eval measures how well a model, with alertchat's prompts and tools, triages
// labelled alerts: each case is investigated afresh as a chat would, asked for a verdict with
// its evidence (pkg/conclude, the path of history resolve --suggest), and scored against the
// label: accuracy, the confusion matrix, consistency across repeats, recall of the indicators a
// good answer names, evidence the model cited without having seen it, tokens and time.
//
// The package runs and scores; how a case is investigated and how its verdict is asked are
// functions the caller gives (the command line builds them from a chat's session), so the
// scoring is tested against scripted verdicts and the runs against the Gemini fake.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/alertchat/alertchat/pkg/record"
)

// Case is one labelled alert: the alert itself (Alert) or a stored one (AlertID), the verdict
// an analyst reached, the indicators a good answer names, and the question to investigate it
// with (DefaultQuestion when empty).
type Case struct {
	ID          string          `json:"id"`
	Alert       json.RawMessage `json:"alert,omitempty"`
	AlertID     string          `json:"alert_id,omitempty"`
	Verdict     record.Verdict  `json:"verdict"`
	MustMention []string        `json:"must_mention,omitempty"`
	Question    string          `json:"question,omitempty"`
	// Line is the case's line in its file (0 for cases from the history).
	Line int `json:"-"`
}

// DefaultQuestion is asked of a case that names none.
const DefaultQuestion = "Investigate this alert: what happened, is it a real threat or not, and what supports that? " +
	"Check the evidence with the tools you have before you conclude."

// MaxCases bounds one evaluation's cases.
const MaxCases = 10000

// LineError is a line of a cases file that is not a case.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseCases reads JSONL cases, one object a line (blank lines skipped). A line that is not a
// case (not JSON, unknown fields, no or an unknown verdict, both or neither of alert and
// alert_id, an id used twice) is a *LineError naming it; nothing is returned then.
func ParseCases(data []byte) ([]Case, error) {
	var cases []Case
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		c, err := parseCase(line)
		if err != nil {
			return nil, &LineError{Line: n, Msg: err.Error()}
		}
		c.Line = n
		if c.ID == "" {
			c.ID = fmt.Sprintf("line-%d", n)
		}
		if prev, ok := seen[c.ID]; ok {
			return nil, &LineError{Line: n, Msg: fmt.Sprintf("case id %q is used on line %d already", c.ID, prev)}
		}
		seen[c.ID] = n
		if len(cases) == MaxCases {
			return nil, &LineError{Line: n, Msg: fmt.Sprintf("more than %d cases", MaxCases)}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading cases: %w", err)
	}
	return cases, nil
}

func parseCase(line []byte) (Case, error) {
	var raw struct {
		ID          string          `json:"id"`
		Alert       json.RawMessage `json:"alert"`
		AlertID     string          `json:"alert_id"`
		Verdict     string          `json:"verdict"`
		MustMention []string        `json:"must_mention"`
		Question    string          `json:"question"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Case{}, fmt.Errorf("not a case: %v", err)
	}
	if dec.More() {
		return Case{}, fmt.Errorf("not a case: more than one JSON value on the line")
	}
	c := Case{ID: strings.TrimSpace(raw.ID), AlertID: strings.TrimSpace(raw.AlertID), Question: strings.TrimSpace(raw.Question)}
	alert := bytes.TrimSpace(raw.Alert)
	if bytes.Equal(alert, []byte("null")) {
		alert = nil
	}
	switch {
	case len(alert) > 0 && c.AlertID != "":
		return Case{}, fmt.Errorf("a case has an alert or an alert_id, not both")
	case len(alert) == 0 && c.AlertID == "":
		return Case{}, fmt.Errorf("a case needs an alert (the alert's JSON) or an alert_id")
	case len(alert) > 0 && alert[0] != '{':
		return Case{}, fmt.Errorf("alert must be a JSON object")
	}
	c.Alert = json.RawMessage(alert)
	if raw.Verdict == "" {
		return Case{}, fmt.Errorf("a case needs the expected verdict (%s)", record.VerdictNames())
	}
	v, ok := record.ParseVerdict(raw.Verdict)
	if !ok {
		return Case{}, fmt.Errorf("unknown verdict %q: use one of %s", raw.Verdict, record.VerdictNames())
	}
	c.Verdict = v
	for _, m := range raw.MustMention {
		if m = strings.TrimSpace(m); m != "" {
			c.MustMention = append(c.MustMention, m)
		}
	}
	return c, nil
}
