// Package transcript writes a history for people and for tools: plain text for a terminal,
// Markdown to share, and JSON with the contents exactly as the SDK marshals them. Everything
// that comes from storage passes termsafe, so no stored text can drive the terminal.
package transcript

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// JSON is one history with its transcript (history show -o json, chat's /export):
// contents are genai.Content exactly as the SDK marshals them.
type JSON struct {
	ID           record.HistoryID `json:"id"`
	AlertID      record.AlertID   `json:"alert_id"`
	Title        string           `json:"title"`
	CreatedAt    string           `json:"created_at"`
	UpdatedAt    string           `json:"updated_at"`
	MessageCount int              `json:"message_count"`
	Usage        record.Usage     `json:"usage"`
	Redactions   map[string]int   `json:"redactions"`
	ParentID     record.HistoryID `json:"parent_id,omitempty"`
	Summary      *record.Summary  `json:"summary,omitempty"`
	Contents     []*genai.Content `json:"contents"`
	// ToolApprovals say who allowed each MCP call (an empty array when none); Content and Call
	// point at the call in Contents.
	ToolApprovals []record.ToolApproval `json:"tool_approvals"`
	Conclusion
	// Note is the conclusion's note (null while open); Questions say who asked each question
	// (Content is its index in Contents; an empty array when none is known).
	Note      *string           `json:"note"`
	Questions []record.Question `json:"questions"`
}

// Conclusion is how an investigation ended and who asked, as history list, history search and
// history show print it in JSON: the verdict and when and by whom it was recorded (null while
// open), and the analysts who asked, first asker first (an empty array when none is known).
//
// Triage is the proposal alertchat triage made when the history is a triaged alert's
// investigation (null for any other), TriageAgreed whether the resolution agreed with it (null
// while open or without a proposal).
type Conclusion struct {
	Verdict      *record.Verdict `json:"verdict"`
	ResolvedAt   *string         `json:"resolved_at"`
	ResolvedBy   *string         `json:"resolved_by"`
	Analysts     []string        `json:"analysts"`
	Triage       *TriageJSON     `json:"triage"`
	TriageAgreed *bool           `json:"triage_agreed"`
}

// TriageJSON is a history's triage proposal in JSON.
type TriageJSON struct {
	Verdict    record.Verdict          `json:"verdict"`
	Confidence float64                 `json:"confidence"`
	Evidence   []record.TriageEvidence `json:"evidence"`
	Model      string                  `json:"model"`
	At         string                  `json:"at"`
}

// NewConclusion is h's Conclusion.
func NewConclusion(h *record.History) Conclusion {
	c := Conclusion{Analysts: h.Analysts()}
	if c.Analysts == nil {
		c.Analysts = []string{}
	}
	if r := h.Resolution; r != nil {
		v, at, by := r.Verdict, format.RFC3339(r.ResolvedAt), r.ResolvedBy
		c.Verdict, c.ResolvedAt, c.ResolvedBy = &v, &at, &by
	}
	if t := h.Triage; t != nil {
		c.Triage = &TriageJSON{Verdict: t.Verdict, Confidence: t.Confidence, Evidence: t.Evidence, Model: t.Model, At: format.RFC3339(t.At)}
		if c.Triage.Evidence == nil {
			c.Triage.Evidence = []record.TriageEvidence{}
		}
		c.TriageAgreed = h.TriageAgreed
	}
	return c
}

func NewJSON(h *record.History) JSON {
	t := JSON{
		ID: h.ID, AlertID: h.AlertID, Title: h.Title,
		CreatedAt: format.RFC3339(h.CreatedAt), UpdatedAt: format.RFC3339(h.UpdatedAt),
		MessageCount: h.MessageCount, Usage: h.Usage, Redactions: h.Redactions,
		ParentID: h.ParentID, Contents: h.Contents, Summary: h.Summary, ToolApprovals: h.ToolApprovals,
		Conclusion: NewConclusion(h), Questions: h.Questions,
	}
	if r := h.Resolution; r != nil {
		t.Note = &r.Note
	}
	if t.Questions == nil {
		t.Questions = []record.Question{}
	}
	if t.ToolApprovals == nil {
		t.ToolApprovals = []record.ToolApproval{}
	}
	if t.Redactions == nil {
		t.Redactions = map[string]int{}
	}
	if t.Contents == nil {
		t.Contents = []*genai.Content{}
	}
	return t
}

// errWriter remembers the first write error, so renderers can write freely and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func (e *errWriter) result() error {
	if e.err != nil {
		return goerr.Wrap(e.err, "failed to write transcript")
	}
	return nil
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

func speaker(role string) string {
	switch role {
	case genai.RoleUser:
		return "You"
	case genai.RoleModel:
		return "Gemini"
	case "":
		return "(no role)"
	}
	return termsafe.Line(role)
}

func displayTitle(h *record.History) string {
	if t := termsafe.Line(h.Title); t != "" {
		return t
	}
	return "(untitled)"
}

// redactionSummary is "EMAIL 2, IP 1", or "" when nothing was redacted.
func redactionSummary(r map[string]int) string {
	kinds := make([]string, 0, len(r))
	for k, n := range r {
		if n > 0 {
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", termsafe.Line(k), r[k]))
	}
	return strings.Join(parts, ", ")
}

func tokenSummary(u record.Usage) string {
	if u.ThoughtTokens == 0 {
		return fmt.Sprintf("%s (%d in, %d out)", format.CompactCount(u.Total()), u.InputTokens, u.OutputTokens)
	}
	return fmt.Sprintf("%s (%d in, %d out, %d thinking)", format.CompactCount(u.Total()), u.InputTokens, u.OutputTokens, u.ThoughtTokens)
}

// Text writes a history for reading in a terminal: a header, then one block per
// content. Everything from storage is sanitized.
func Text(w io.Writer, h *record.History) error {
	return renderTranscript(w, h, transcriptStyle{
		title: func(t string) string { return t + "\n" },
		field: func(label, value string, _ bool) string {
			return fmt.Sprintf("%-9s %s\n", strings.ToLower(label)+":", value)
		},
		section: func(who string) string { return "\n" + who + ":\n" },
		part:    writeTextPart,
	})
}

// transcriptStyle is how one output format writes the parts of a transcript.
type transcriptStyle struct {
	title   func(title string) string
	field   func(label, value string, code bool) string
	section func(speaker string) string
	// part writes a part; approval, for an MCP call, says who allowed it ("" otherwise).
	part func(ew *errWriter, p *genai.Part, approval string)
}

// approvalNote is who allowed an MCP call, in words.
func approvalNote(a record.ToolApproval) string {
	switch {
	case a.Decision == record.ApprovalTrusted:
		return "trusted: server " + a.Server + " is trusted in the MCP config"
	case a.Decision == record.ApprovalApproved:
		return "approved once by the user"
	case a.Decision == record.ApprovalApprovedAlways && a.Asked:
		return "approved by the user for the rest of the session"
	case a.Decision == record.ApprovalApprovedAlways:
		return "approved: the user allowed it for the rest of the session"
	case a.Decision == record.ApprovalDenied && a.Asked:
		return "denied by the user"
	case a.Decision == record.ApprovalDenied:
		return "denied: nobody could be asked"
	}
	return a.Decision
}

// elicitationNote says what the server asked the user during the call, "" when nothing.
func elicitationNote(es []record.Elicitation) string {
	var b strings.Builder
	for _, e := range es {
		what := "the server asked for input"
		if len(e.Fields) > 0 {
			what = "the server asked for " + strings.Join(e.Fields, ", ")
		}
		how := e.Action
		switch {
		case e.Action == "accept" && e.Asked:
			how = "the user answered"
		case e.Action == "accept":
			how = "its defaults were sent"
		case e.Action == "decline" && !e.Asked:
			how = "declined: nobody could be asked"
		case e.Action == "decline":
			how = "the user declined"
		case e.Action == "cancel":
			how = "cancelled"
		}
		fmt.Fprintf(&b, "; %s: %s", what, how)
	}
	return b.String()
}

// egressNote says that a public-only server's egress guard held the call back, and what
// would have left, by kind; "" for a call that was not held.
func egressNote(e *record.EgressHold) string {
	if e == nil {
		return ""
	}
	what := "internal data"
	if len(e.Kinds) > 0 {
		what += " (" + strings.Join(e.Kinds, ", ") + ")"
	}
	if e.Sent {
		return "; it carried " + what + " to a public-only server, sent on the user's yes"
	}
	return "; held back: it would have sent " + what + " to a public-only server"
}

// approvalNotes are the notes of h's approvals by content and call index.
func approvalNotes(h *record.History) map[[2]int]string {
	if len(h.ToolApprovals) == 0 {
		return nil
	}
	m := make(map[[2]int]string, len(h.ToolApprovals))
	for _, a := range h.ToolApprovals {
		m[[2]int{a.Content, a.Call}] = approvalNote(a) + egressNote(a.Egress) + elicitationNote(a.Elicitations)
	}
	return m
}

// renderTranscript walks a history once for every output format: title, metadata, then each
// content's parts.
func renderTranscript(w io.Writer, h *record.History, st transcriptStyle) error {
	ew := &errWriter{w: w}
	ew.printf("%s", st.title(displayTitle(h)))
	field := func(label, value string, code bool) { ew.printf("%s", st.field(label, termsafe.Line(value), code)) }
	field("ID", string(h.ID), true)
	field("Alert", string(h.AlertID), true)
	if h.ParentID != "" {
		field("Parent", string(h.ParentID), true)
	}
	field("Created", format.RFC3339(h.CreatedAt), false)
	field("Updated", format.RFC3339(h.UpdatedAt), false)
	field("Messages", strconv.Itoa(h.MessageCount), false)
	field("Tokens", tokenSummary(h.Usage), false)
	if r := redactionSummary(h.Redactions); r != "" {
		field("Redacted", r, false)
	}
	if s := summaryNote(h); s != "" {
		field("Summary", s, false)
	}
	if r := h.Resolution; r != nil {
		field("Verdict", resolutionNote(r), false)
		if r.Note != "" {
			field("Note", r.Note, false)
		}
	}
	notes := approvalNotes(h)
	askers := make(map[int]string, len(h.Questions))
	for _, q := range h.Questions {
		askers[q.Content] = q.Analyst
	}
	for ci, c := range h.Contents {
		if c == nil {
			continue
		}
		who := speaker(c.Role)
		if a := termsafe.Line(askers[ci]); a != "" && c.Role == genai.RoleUser {
			who += " (" + a + ")"
		}
		ew.printf("%s", st.section(who))
		call := 0
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			note := ""
			if p.FunctionCall != nil {
				note = notes[[2]int{ci, call}]
				call++
			}
			st.part(ew, p, note)
		}
	}
	return ew.result()
}

func writeTextPart(ew *errWriter, p *genai.Part, approval string) {
	switch {
	case p.Text != "" && p.Thought:
		for _, line := range strings.Split(strings.TrimRight(termsafe.String(p.Text), "\n"), "\n") {
			ew.printf("[thought] %s\n", line)
		}
	case p.Text != "":
		ew.printf("%s\n", strings.TrimRight(termsafe.String(p.Text), "\n"))
	case p.FunctionCall != nil:
		ew.printf("-> call %s(%s)\n", termsafe.Line(p.FunctionCall.Name), termsafe.String(compactJSON(p.FunctionCall.Args)))
		if approval != "" {
			ew.printf("   [%s]\n", termsafe.Line(approval))
		}
	case p.FunctionResponse != nil:
		ew.printf("<- %s: %s\n", termsafe.Line(p.FunctionResponse.Name), termsafe.String(compactJSON(p.FunctionResponse.Response)))
	case p.ExecutableCode != nil:
		code := termsafe.String(p.ExecutableCode.Code)
		fence := codeFence(code)
		ew.printf("%s%s\n%s\n%s\n", fence, codeLanguage(p.ExecutableCode.Language), strings.TrimRight(code, "\n"), fence)
	case p.CodeExecutionResult != nil:
		ew.printf("[code result: %s]\n", termsafe.Line(string(p.CodeExecutionResult.Outcome)))
		if out := strings.TrimRight(termsafe.String(p.CodeExecutionResult.Output), "\n"); out != "" {
			ew.printf("%s\n", out)
		}
	case p.InlineData != nil:
		ew.printf("[inline data: %s, %d bytes]\n", termsafe.Line(p.InlineData.MIMEType), len(p.InlineData.Data))
	case p.FileData != nil:
		ew.printf("[file: %s]\n", termsafe.Line(p.FileData.FileURI))
	case p.ToolCall != nil:
		ew.printf("-> tool call %s\n", termsafe.String(compactJSON(p.ToolCall)))
	case p.ToolResponse != nil:
		ew.printf("<- tool response %s\n", termsafe.String(compactJSON(p.ToolResponse)))
	}
}

// codeFence returns a Markdown fence longer than any backtick run in s.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// codeLanguage is a fence's info string for the SDK's language ("PYTHON" -> "python").
func codeLanguage(l genai.Language) string {
	s := strings.ToLower(termsafe.Line(string(l)))
	if s == "language_unspecified" || strings.ContainsAny(s, "` ") {
		return ""
	}
	return s
}

// InlineCode writes s as a Markdown code span on one line, its fence longer than any run of
// backticks in it.
func InlineCode(s string) string {
	s = termsafe.Line(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// Markdown writes a history as a Markdown document to share: a title, a metadata
// list, then a "## You" / "## Gemini" section per content. Everything from storage is sanitized.
func Markdown(w io.Writer, h *record.History) error {
	return renderTranscript(w, h, transcriptStyle{
		title: func(t string) string { return "# " + t + "\n\n" },
		field: func(label, value string, code bool) string {
			if code {
				value = InlineCode(value)
			}
			return "- " + label + ": " + value + "\n"
		},
		section: func(who string) string { return "\n## " + who + "\n" },
		part:    writeMarkdownPart,
	})
}

func fenced(ew *errWriter, info, body string) {
	body = strings.TrimRight(body, "\n")
	fence := codeFence(body)
	ew.printf("\n%s%s\n%s\n%s\n", fence, info, body, fence)
}

func writeMarkdownPart(ew *errWriter, p *genai.Part, approval string) {
	switch {
	case p.Text != "" && p.Thought:
		ew.printf("\n> *Thought:*\n")
		for _, line := range strings.Split(strings.TrimRight(termsafe.String(p.Text), "\n"), "\n") {
			ew.printf(">%s\n", strings.TrimRight(" "+line, " "))
		}
	case p.Text != "":
		// Below the transcript's "## Gemini", an answer's own headings start at "###".
		ew.printf("\n%s\n", strings.TrimRight(mdstream.DemoteHeadings(termsafe.String(p.Text), 3), "\n"))
	case p.FunctionCall != nil:
		ew.printf("\n-> call %s\n", InlineCode(p.FunctionCall.Name))
		if approval != "" {
			ew.printf("\n*%s*\n", termsafe.Line(approval))
		}
		fenced(ew, "json", termsafe.String(compactJSON(p.FunctionCall.Args)))
	case p.FunctionResponse != nil:
		ew.printf("\n<- %s\n", InlineCode(p.FunctionResponse.Name))
		fenced(ew, "json", termsafe.String(compactJSON(p.FunctionResponse.Response)))
	case p.ExecutableCode != nil:
		fenced(ew, codeLanguage(p.ExecutableCode.Language), termsafe.String(p.ExecutableCode.Code))
	case p.CodeExecutionResult != nil:
		ew.printf("\nCode result (%s):\n", termsafe.Line(string(p.CodeExecutionResult.Outcome)))
		fenced(ew, "", termsafe.String(p.CodeExecutionResult.Output))
	case p.InlineData != nil:
		ew.printf("\n*[inline data: %s, %d bytes]*\n", termsafe.Line(p.InlineData.MIMEType), len(p.InlineData.Data))
	case p.FileData != nil:
		ew.printf("\n*[file: %s]*\n", InlineCode(p.FileData.FileURI))
	case p.ToolCall != nil:
		ew.printf("\n-> tool call\n")
		fenced(ew, "json", termsafe.String(compactJSON(p.ToolCall)))
	case p.ToolResponse != nil:
		ew.printf("\n<- tool response\n")
		fenced(ew, "json", termsafe.String(compactJSON(p.ToolResponse)))
	}
}

// resolutionNote is a conclusion in words: "false positive, by alice at 2026-11-20T10:00:00Z
// (suggested by Gemini)".
func resolutionNote(r *record.Resolution) string {
	s := r.Verdict.Label()
	if r.ResolvedBy != "" {
		s += ", by " + r.ResolvedBy
	}
	s += " at " + format.RFC3339(r.ResolvedAt)
	if r.Suggested {
		s += " (suggested by Gemini)"
	}
	return s
}

// summaryNote says that a history has a summary and what it covers, for history show: the
// transcript is shown whole, the summary only stands in for its first messages in requests.
func summaryNote(h *record.History) string {
	sm := h.Summary
	if sm == nil || sm.CoversCount <= 0 {
		return ""
	}
	total := max(h.MessageCount, len(h.Contents))
	return fmt.Sprintf("the first %d of %d messages are summarised for Gemini (%s); every message is shown below",
		sm.CoversCount, total, format.RFC3339(sm.CreatedAt))
}

// ContentText is a content as plain text for the model to read (get_history, the verdict
// suggestion): its text parts, and its calls and results in short, a result cut at maxResult
// bytes. Thoughts are left out.
func ContentText(c *genai.Content, maxResult int) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p == nil || p.Thought {
			continue
		}
		switch {
		case p.Text != "":
			b.WriteString(p.Text)
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			fmt.Fprintf(&b, "[called %s %s]", p.FunctionCall.Name, args)
		case p.FunctionResponse != nil:
			res, _ := json.Marshal(p.FunctionResponse.Response)
			fmt.Fprintf(&b, "[result of %s: %s]", p.FunctionResponse.Name, clip(string(res), maxResult))
		default:
			continue
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// clip cuts s to at most n bytes at a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// CallLine is a tool call in its one-line form, as the chat shows it on a terminal and a
// report's timeline lists it: → search_histories query="203.0.113.7" limit=5. Arguments are
// in name order, each cut at 80 characters; everything came from the model, so the line
// passes termsafe.
func CallLine(name string, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("→ " + name)
	for _, k := range keys {
		val, ok := argText(args[k])
		if !ok {
			continue
		}
		if r := []rune(val); len(r) > 80 {
			val = string(r[:77]) + "..."
		}
		b.WriteString(" " + k + "=" + val)
	}
	return termsafe.Line(b.String())
}

// argText is an argument as a call line shows it: JSON, except that a string keeps its
// backslashes single (a pattern reads as typed: pattern="203\.0\.113\.7") and <, > and &
// unescaped.
func argText(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`, true
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}
