// Package handoff turns an investigation into the report that leaves the terminal: the case
// report (Markdown for a ticket, JSON for tools) and its indicators as CSV, JSON or a STIX 2.1
// bundle.
//
// Values are shown as the history holds them: a report of a stored history shows the alert's
// own values raw (alerts are stored as given) and everything else as storage wrote it (keyed
// tokens stay tokens); a report of a live chat shows what the screen showed. An export of
// indicators carries raw values only, from the alert, the analyst's note and lessons: a token
// is counted, never written as if it were a value, and a value only the conversation names is
// not exported (a model's answer or a tool's result is not a finding until a person says so).
// Everything from storage passes termsafe.
package handoff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/ioc"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/termsafe"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// Input is what a report is made of.
type Input struct {
	History *record.History
	// Alert is the history's alert; nil when it is not stored (the report says so).
	Alert *record.Alert
	// Workspace names the STIX identity that publishes the indicators.
	Workspace string
	// Lessons are what the team learned from this investigation (knowledge entries whose
	// source is the history) and Knowledge the entries it was given.
	Lessons   []string
	Knowledge []Knowledge
	// Triage is the proposal made on intake; nil: the history's own (record.History.Triage).
	Triage *Triage
}

// Report is a case report, as -o json prints it.
type Report struct {
	Title      string      `json:"title"`
	HistoryID  string      `json:"history_id"`
	Alert      *Alert      `json:"alert"`
	Verdict    *Verdict    `json:"verdict"`
	Triage     *Triage     `json:"triage"`
	Analysts   []Analyst   `json:"analysts"`
	Timeline   []Event     `json:"timeline"`
	Indicators []Indicator `json:"indicators"`
	Evidence   []Evidence  `json:"evidence"`
	Knowledge  []Knowledge `json:"knowledge"`
	Lessons    []string    `json:"lessons"`
	NextSteps  []string    `json:"next_steps"`
	workspace  string
	validFrom  time.Time
	published  time.Time
	verdict    record.Verdict
}

// Alert is what the report says of the alert.
type Alert struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Source   string  `json:"source"`
	Type     string  `json:"type"`
	Severity string  `json:"severity"`
	Status   string  `json:"status"`
	Time     *string `json:"time"`
	// Missing is set when the history's alert is not in the store.
	Missing bool `json:"missing,omitempty"`
}

// Verdict is the investigation's resolution.
type Verdict struct {
	Verdict    string `json:"verdict"`
	ResolvedBy string `json:"resolved_by"`
	ResolvedAt string `json:"resolved_at"`
	Note       string `json:"note"`
	Suggested  bool   `json:"suggested"`
}

// Triage is the proposal made on intake (verdict, confidence, evidence); nil until histories
// carry one.
type Triage struct {
	Verdict    string   `json:"verdict"`
	Confidence float64  `json:"confidence"`
	Evidence   []string `json:"evidence"`
	Model      string   `json:"model"`
	At         string   `json:"at"`
}

// Analyst is who asked, with their questions in order.
type Analyst struct {
	Analyst   string   `json:"analyst"`
	Questions []string `json:"questions"`
}

// Event is one line of the timeline. At is null where the history does not say when (a
// built-in tool's call happened within its question's turn).
type Event struct {
	At   *string `json:"at"`
	Kind string  `json:"kind"` // alert, question, tool_call, verdict
	Who  string  `json:"who,omitempty"`
	Text string  `json:"text"`
}

// Indicator is one value and where it was seen. Redacted marks a keyed token: the value as
// storage holds it, never exported.
type Indicator struct {
	Type     string   `json:"type"`
	Value    string   `json:"value"`
	SeenIn   []string `json:"seen_in"`
	Redacted bool     `json:"redacted"`
	// exportable: a raw value of the alert, the note or a lesson.
	exportable bool
}

// Evidence is what the investigation read or rests on: a tool's call (the evidence folders,
// MCP servers) or a value the triage proposal cites.
type Evidence struct {
	Source string `json:"source"` // tool, triage
	Text   string `json:"text"`
}

// Knowledge is a team knowledge entry the investigation was given.
type Knowledge struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Author string `json:"author"`
}

// Build makes the report of in.
func Build(in Input) *Report {
	h := in.History
	r := &Report{
		Title: termsafe.Line(h.Title), HistoryID: string(h.ID), workspace: in.Workspace,
		Analysts: []Analyst{}, Timeline: []Event{}, Indicators: []Indicator{}, Evidence: []Evidence{},
		Knowledge: nonNil(in.Knowledge), Lessons: []string{}, NextSteps: []string{},
		published: h.UpdatedAt, validFrom: h.CreatedAt,
	}
	if r.Title == "" {
		r.Title = "(untitled)"
	}
	for _, l := range in.Lessons {
		r.Lessons = append(r.Lessons, termsafe.Line(l))
	}
	ind := newIndicators()
	if a := in.Alert; a != nil {
		r.Alert = &Alert{ID: string(a.ID), Title: termsafe.Line(a.Title), Source: a.Source, Type: alert.Type(a.Data),
			Severity: a.Severity, Status: a.Status}
		at := a.Time
		if at.IsZero() {
			at = a.CreatedAt
		}
		if !at.IsZero() {
			r.Alert.Time = ptr(format.RFC3339(at))
			r.validFrom = at
			r.Timeline = append(r.Timeline, Event{At: r.Alert.Time, Kind: "alert", Text: "alert: " + r.Alert.Title})
		}
		for _, i := range ioc.FromAlert(a.Data) {
			ind.add(string(i.Type), i.Value, i.Where, true)
		}
	} else {
		r.Alert = &Alert{ID: string(h.AlertID), Missing: true}
	}
	if in.Triage == nil {
		in.Triage = triageOf(h.Triage)
	}
	if t := in.Triage; t != nil {
		r.Triage = t
		r.Timeline = append(r.Timeline, Event{At: ptr(t.At), Kind: "triage", Who: termsafe.Line(t.Model),
			Text: fmt.Sprintf("proposed %s (confidence %.2f)", strings.ReplaceAll(t.Verdict, "_", " "), t.Confidence)})
		for _, e := range t.Evidence {
			r.Evidence = append(r.Evidence, Evidence{Source: "triage", Text: termsafe.Line(e)})
		}
	}
	r.questionsAndCalls(h, ind)
	if res := h.Resolution; res != nil {
		r.verdict = res.Verdict
		r.published = res.ResolvedAt
		r.Verdict = &Verdict{Verdict: string(res.Verdict), ResolvedBy: termsafe.Line(res.ResolvedBy),
			ResolvedAt: format.RFC3339(res.ResolvedAt), Note: termsafe.String(res.Note), Suggested: res.Suggested}
		text := "resolved as " + res.Verdict.Label()
		if res.Suggested {
			text += " (suggested by Gemini, confirmed)"
		}
		r.Timeline = append(r.Timeline, Event{At: ptr(r.Verdict.ResolvedAt), Kind: "verdict", Who: r.Verdict.ResolvedBy, Text: text})
		ind.text(res.Note, "note", true)
		r.NextSteps = append(r.NextSteps, nextSteps(res.Note, false)...)
	}
	for i, l := range in.Lessons {
		ind.text(l, "lesson "+itoa(i+1), true)
	}
	r.NextSteps = append(r.NextSteps, nextSteps(lastAnswer(h), true)...)
	r.Indicators = ind.list
	return r
}

// questionsAndCalls walks the transcript: who asked what, each question and tool call on the
// timeline, the evidence tools read, and the indicators each content names.
func (r *Report) questionsAndCalls(h *record.History, ind *indicators) {
	askers := make(map[int]record.Question, len(h.Questions))
	for _, q := range h.Questions {
		askers[q.Content] = q
	}
	approvals := make(map[[2]int]record.ToolApproval, len(h.ToolApprovals))
	for _, a := range h.ToolApprovals {
		approvals[[2]int{a.Content, a.Call}] = a
	}
	byAnalyst := map[string]int{}
	question, answer := 0, 0
	for ci, c := range h.Contents {
		if c == nil {
			continue
		}
		text := contentText(c)
		isQuestion := c.Role == genai.RoleUser && text != ""
		switch {
		case isQuestion:
			question++
			q := askers[ci]
			who := termsafe.Line(q.Analyst)
			var at *string
			if !q.At.IsZero() {
				at = ptr(format.RFC3339(q.At))
			}
			line := format.Truncate(termsafe.Line(text), 160, format.Ellipsis)
			r.Timeline = append(r.Timeline, Event{At: at, Kind: "question", Who: who, Text: line})
			name := who
			if name == "" {
				name = "(unknown)"
			}
			i, ok := byAnalyst[name]
			if !ok {
				i = len(r.Analysts)
				byAnalyst[name] = i
				r.Analysts = append(r.Analysts, Analyst{Analyst: name, Questions: []string{}})
			}
			r.Analysts[i].Questions = append(r.Analysts[i].Questions, line)
			ind.text(text, "question "+itoa(question), false)
		case c.Role == genai.RoleModel && text != "":
			answer++
			ind.text(text, "answer "+itoa(answer), false)
		}
		call := 0
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			switch {
			case p.FunctionCall != nil:
				line := transcript.CallLine(p.FunctionCall.Name, p.FunctionCall.Args)
				ev := Event{Kind: "tool_call", Text: line}
				if a, ok := approvals[[2]int{ci, call}]; ok && !a.At.IsZero() {
					ev.At = ptr(format.RFC3339(a.At))
				}
				r.Timeline = append(r.Timeline, ev)
				if evidenceTool(p.FunctionCall.Name) {
					r.Evidence = append(r.Evidence, Evidence{Source: "tool", Text: line})
				}
				call++
			case p.FunctionResponse != nil:
				ind.text(compactJSON(p.FunctionResponse.Response), "tool result "+termsafe.Line(p.FunctionResponse.Name), false)
			}
		}
	}
}

// evidenceTool says whether a tool reads evidence beyond the store: the evidence folders'
// tools and MCP servers' tools. The built-in tools read the store the report already shows.
func evidenceTool(name string) bool {
	return strings.HasSuffix(name, "_evidence") || strings.HasPrefix(name, "mcp_")
}

// contentText is a content's text parts, thoughts left out.
func contentText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p != nil && p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// lastAnswer is the text of the transcript's last answer.
func lastAnswer(h *record.History) string {
	for i := len(h.Contents) - 1; i >= 0; i-- {
		if c := h.Contents[i]; c != nil && c.Role == genai.RoleModel {
			if t := contentText(c); t != "" {
				return t
			}
		}
	}
	return ""
}

var (
	stepsHeading = regexp.MustCompile(`(?i)(next steps?|recommend|follow[- ]up|actions?|to do|todo)`)
	listItem     = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.+)$`)
	notePrefix   = regexp.MustCompile(`(?i)^\s*(?:next(?: steps?)?|todo|follow[- ]up)\s*:\s*(.+)$`)
)

// nextSteps reads the steps a text proposes: the list items under a heading or a line that
// speaks of next steps, recommendations or actions; in a note, also a line "Next: ...". An
// answer without such a section proposes none.
func nextSteps(text string, answer bool) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if m := notePrefix.FindStringSubmatch(line); m != nil && !answer {
			out = append(out, termsafe.Line(m[1]))
			continue
		}
		trimmed := strings.TrimSpace(line)
		if m := listItem.FindStringSubmatch(line); m != nil {
			if in {
				out = append(out, termsafe.Line(strings.Trim(m[1], " *")))
			}
			continue
		}
		if trimmed == "" {
			continue
		}
		// Any other line opens or closes a section by what it says.
		in = stepsHeading.MatchString(trimmed) && (strings.HasPrefix(trimmed, "#") || strings.HasSuffix(strings.Trim(trimmed, "*_ "), ":") || len(trimmed) < 60)
	}
	return out
}

// indicators collects the report's indicators, each value once, with every place it was seen.
type indicators struct {
	list  []Indicator
	index map[string]int
}

func newIndicators() *indicators { return &indicators{index: map[string]int{}} }

func (x *indicators) add(typ, value, where string, exportable bool) {
	value = termsafe.Line(value)
	if i, ok := x.index[value]; ok {
		in := &x.list[i]
		in.exportable = in.exportable || exportable
		if len(in.SeenIn) < maxPlaces && !slices.Contains(in.SeenIn, where) {
			in.SeenIn = append(in.SeenIn, where)
		}
		return
	}
	x.index[value] = len(x.list)
	x.list = append(x.list, Indicator{Type: typ, Value: value, SeenIn: []string{where},
		Redacted: redact.IsToken(value), exportable: exportable && !redact.IsToken(value)})
}

// maxPlaces bounds the places listed for one value: an IP the whole conversation is about is
// seen in every answer.
const maxPlaces = 5

// text adds the indicators of a text: its raw values and its keyed tokens of the kinds that
// are indicators (addresses and e-mail addresses).
func (x *indicators) text(s, where string, exportable bool) {
	if s == "" {
		return
	}
	for _, tok := range tokenPattern.FindAllString(s, -1) {
		if !redact.IsToken(tok) {
			continue
		}
		switch {
		case strings.HasPrefix(tok, "[REDACTED_"+string(redact.IP)+"_"):
			x.add("ip", tok, where, false)
		case strings.HasPrefix(tok, "[REDACTED_"+string(redact.Email)+"_"):
			x.add("email", tok, where, false)
		}
	}
	for _, i := range ioc.Find(s, where) {
		x.add(string(i.Type), i.Value, where, exportable)
	}
}

var tokenPattern = regexp.MustCompile(`\[REDACTED_[A-Z_]+_[a-z0-9]+\]`)

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// triageOf is a history's triage proposal in a report: each piece of evidence as "value: what
// it shows", marked when the investigation never saw the value.
func triageOf(t *record.Triage) *Triage {
	if t == nil {
		return nil
	}
	out := &Triage{Verdict: string(t.Verdict), Confidence: t.Confidence, Model: t.Model, At: format.RFC3339(t.At), Evidence: []string{}}
	for _, e := range t.Evidence {
		text := e.Value
		if e.Claim != "" {
			text += ": " + e.Claim
		}
		if e.Unsupported {
			text += " (unsupported: seen in neither the alert nor a tool result)"
		}
		out.Evidence = append(out.Evidence, text)
	}
	return out
}
