package redacthist

import (
	"context"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
)

// Redactor removes personal data and secrets. Every write of a history passes through it.
type Redactor interface {
	// RedactContents redacts every string of contents in place and returns per-type counts.
	RedactContents(contents []*genai.Content) map[string]int
	// RedactString returns s redacted and per-type counts.
	RedactString(s string) (string, map[string]int)
}

// AlertRedactor is a Redactor that can keep the values an alert holds (see Engine): a
// session uses ForAlert's redactor for its writes.
type AlertRedactor interface {
	Redactor
	ForAlert(a *record.Alert) Redactor
}

// AlertGetter reads a history's alert.
type AlertGetter interface {
	GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error)
}

// ForHistory is the redactor a write of h uses: with an AlertRedactor, the one that keeps the
// values of h's alert as written, as a session's own writes keep them, so a history written
// by any path (a session, a store layer, a spool replay) is redacted alike. An alert that
// cannot be read keeps nothing: the stricter choice.
func ForHistory(ctx context.Context, r Redactor, alerts AlertGetter, h *record.History) Redactor {
	ar, ok := r.(AlertRedactor)
	if !ok || alerts == nil || h.AlertID == "" {
		return r
	}
	a, err := alerts.GetAlert(ctx, h.AlertID)
	if err != nil {
		return r
	}
	return ar.ForAlert(a)
}

// History passes everything of h that is about to be written through r: the contents not
// yet redacted (a turn's save scans only what is new), the summary, the title, the
// conclusion's note and a triage's evidence. Analysts' names (record.Question, Resolution.ResolvedBy) are written as
// given: they are the workspace's own users, the names its filters and listings work by. Counts accumulate in
// h.Redactions.
func History(r Redactor, h *record.History) {
	if h.RedactedCount > len(h.Contents) {
		h.RedactedCount = 0 // the transcript was replaced; scan it all
	}
	counts := r.RedactContents(h.Contents[h.RedactedCount:])
	h.RedactedCount = len(h.Contents)
	Summary(r, h)
	Note(r, h)
	Triage(r, h)
	title, tc := r.RedactString(h.Title)
	h.Title = title
	AddCounts(h, counts)
	AddCounts(h, tc)
}

// Summary passes the summary through the redactor, as every write of a history; counts
// add to h.Redactions.
func Summary(r Redactor, h *record.History) {
	if h.Summary != nil {
		redactText(r, h, &h.Summary.Text)
	}
}

// Note passes the conclusion's note through the redactor, as every write of a history;
// counts add to h.Redactions.
func Note(r Redactor, h *record.History) {
	if h.Resolution != nil {
		redactText(r, h, &h.Resolution.Note)
	}
}

// Triage passes the evidence of a triage proposal (the values the model cited and what it
// says they show) through the redactor, as every write of a history; counts add to
// h.Redactions. The alert's own values stay as they are with the alert's redactor
// (ForHistory), as in the transcript.
func Triage(r Redactor, h *record.History) {
	if h.Triage == nil {
		return
	}
	for i := range h.Triage.Evidence {
		redactText(r, h, &h.Triage.Evidence[i].Value)
		redactText(r, h, &h.Triage.Evidence[i].Claim)
	}
}

// redactText redacts the text of h that s points at, counting into h.Redactions.
func redactText(r Redactor, h *record.History, s *string) {
	if *s == "" {
		return
	}
	text, counts := r.RedactString(*s)
	*s = text
	AddCounts(h, counts)
}

// AddCounts adds per-type redaction counts to h.Redactions.
func AddCounts(h *record.History, c map[string]int) {
	for k, v := range c {
		if v == 0 {
			continue
		}
		if h.Redactions == nil {
			h.Redactions = map[string]int{}
		}
		h.Redactions[k] += v
	}
}

// Engine adapts the redaction engine to Redactor. It is an
// AlertRedactor: a session on an alert keeps the values the alert holds as they are (they are
// stored with the alert anyway, and they are the indicators the analyst talks about).
func Engine(r *redact.Redactor) AlertRedactor { return engineRedactor{r} }

type engineRedactor struct{ r *redact.Redactor }

func (e engineRedactor) RedactContents(cs []*genai.Content) map[string]int {
	return countsMap(Contents(e.r, cs))
}

func (e engineRedactor) RedactString(s string) (string, map[string]int) {
	out, c := e.r.String(s)
	return out, countsMap(c)
}

func (e engineRedactor) ForAlert(a *record.Alert) Redactor {
	if a == nil || len(a.Data) == 0 {
		return e
	}
	return engineRedactor{e.r.WithEvidence(string(a.Data))}
}

// Engine is the redaction engine behind the adapter.
func (e engineRedactor) Engine() *redact.Redactor { return e.r }

func countsMap(c redact.Counts) map[string]int {
	if len(c) == 0 {
		return nil
	}
	m := make(map[string]int, len(c))
	for t, n := range c {
		m[string(t)] = n
	}
	return m
}

// PartialMarker ends a reply that was cut short (the turn was cancelled, the stream broke, or
// the model failed before answering): a text part of its own after what had arrived. The walk
// reads the text before it as a text that may end inside a value (redact.Redactor.Pieces).
const PartialMarker = "[answer cut short]"

// Contents redacts, in place, every string inside the contents with r:
//
//   - the text of a content as one text: its parts' Text (answer parts apart from thought
//     parts) joined, whatever parts it came in (streamed chunks, a signed part, text on
//     either side of a function call), so that a value a part boundary cuts is replaced
//     whole, with the token it has anywhere else (redact.Redactor.Pieces). Parts keep their
//     order and their signatures; a replacement is written into the part where its value
//     begins, and a part left with no text and nothing else to carry is dropped (the API
//     refuses an empty part). A model content that ends with PartialMarker was cut short:
//     the end of its text is read as a value that may go on;
//   - AudioTranscription.Text;
//   - FunctionCall.Args, FunctionResponse.Response, ToolCall.Args and
//     ToolResponse.Response at any depth (redact.Map): string values inside
//     maps, slices and arrays (JSON-shaped map[string]any/[]any values, and
//     typed Go maps, slices, pointers and exported struct fields via
//     reflection), judged with their keys (a value under a secret-ish key, or beside a
//     secret-ish name); map keys (a result keyed by IP or e-mail address), long
//     integers and numbers under personal-data keys; what is nested deeper than
//     redact.MaxDepth is replaced; FunctionCall.PartialArgs string values;
//   - ExecutableCode.Code and CodeExecutionResult.Output;
//   - InlineData (and FunctionResponse.Parts inline data) with a textual MIME
//     type, see the package documentation for the rule.
//
// FileData URIs and display names, ThoughtSignature bytes, part metadata and
// other binary data are left untouched. Nil contents and parts are skipped.
// It returns the number of replacements per type (never nil).
func Contents(r *redact.Redactor, contents []*genai.Content) redact.Counts {
	counts := redact.Counts{}
	if !r.Enabled() {
		return counts
	}
	str := func(s *string) { r.Into(s, counts) }
	sp := scratchPool.Get().(*scratch)
	defer sp.put()
	for _, c := range contents {
		if c == nil {
			continue
		}
		// one pass over the parts: their text gathered, everything else redacted
		answer, thought := slices.Grow(sp.answer[:0], len(c.Parts)), sp.thought[:0]
		marker := cutMarker(c)
		droppable := false // a part that carries nothing but its text
		for i, p := range c.Parts {
			if p == nil {
				continue
			}
			if p.Text != "" && i != marker {
				if p.Thought {
					thought = append(thought, &p.Text)
				} else {
					answer = append(answer, &p.Text)
				}
				droppable = droppable || len(p.ThoughtSignature) == 0
			}
			if p.AudioTranscription != nil {
				str(&p.AudioTranscription.Text)
			}
			if fc := p.FunctionCall; fc != nil {
				r.Map(fc.Args, counts)
				for _, pa := range fc.PartialArgs {
					if pa != nil {
						str(&pa.StringValue)
					}
				}
			}
			if fr := p.FunctionResponse; fr != nil {
				r.Map(fr.Response, counts)
				for _, fp := range fr.Parts {
					if fp != nil && fp.InlineData != nil {
						if d, ok := r.Inline(fp.InlineData.MIMEType, fp.InlineData.Data, counts); ok {
							fp.InlineData.Data = d
						}
					}
				}
			}
			if tc := p.ToolCall; tc != nil {
				r.Map(tc.Args, counts)
			}
			if tr := p.ToolResponse; tr != nil {
				r.Map(tr.Response, counts)
			}
			if ec := p.ExecutableCode; ec != nil {
				str(&ec.Code)
			}
			if cr := p.CodeExecutionResult; cr != nil {
				str(&cr.Output)
			}
			if b := p.InlineData; b != nil {
				if d, ok := r.Inline(b.MIMEType, b.Data, counts); ok {
					b.Data = d
				}
			}
		}
		cut := marker >= 0
		_, emptied := r.Pieces(answer, cut, counts)
		if _, e := r.Pieces(thought, cut && len(answer) == 0, counts); e {
			emptied = true
		}
		if emptied && droppable {
			c.Parts = dropEmptied(c.Parts)
		}
		sp.answer, sp.thought = answer, thought
	}
	return counts
}

// scratch is the memory a walk of contents reuses from one content to the next (and from one
// walk to the next: a streamed answer has a part per chunk).
type scratch struct{ answer, thought []*string }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (sp *scratch) put() {
	if cap(sp.answer)+cap(sp.thought) > 1<<16 {
		return
	}
	clear(sp.answer[:cap(sp.answer)]) // no part outlives its walk here
	clear(sp.thought[:cap(sp.thought)])
	scratchPool.Put(sp)
}

// cutMarker returns the index of a model content's last part when it is the PartialMarker
// part of a reply cut short, else -1.
func cutMarker(c *genai.Content) int {
	if c.Role != genai.RoleModel || len(c.Parts) == 0 {
		return -1
	}
	i := len(c.Parts) - 1
	if p := c.Parts[i]; p != nil && !p.Thought && strings.TrimLeft(p.Text, "\n") == PartialMarker {
		return i
	}
	return -1
}

// dropEmptied removes the parts that redaction left with nothing: no text (the rest of a
// value whose token went into an earlier part) and nothing else, not even a signature (such
// a part, had it come so, the API would refuse as well). Nil parts are kept as they are.
func dropEmptied(parts []*genai.Part) []*genai.Part {
	out := parts[:0]
	for _, p := range parts {
		if p != nil && p.Text == "" && len(p.ThoughtSignature) == 0 && p.InlineData == nil && p.FileData == nil &&
			p.FunctionCall == nil && p.FunctionResponse == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
			p.VideoMetadata == nil && p.ToolCall == nil && p.ToolResponse == nil && p.AudioTranscription == nil {
			continue
		}
		out = append(out, p)
	}
	clear(parts[len(out):])
	return out
}
