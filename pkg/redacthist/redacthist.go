// Package redacthist is the redaction step every write of a history passes through: the
// contract (Redactor, AlertRedactor), its implementation over the redaction engine (Engine),
// and what is redacted of a history before it is written (History, Summary). It belongs with
// redaction, not with the conversation engine, so that the store layers (pkg/store/redacting)
// and the spool use it without depending on pkg/session.
package redacthist

import (
	"context"

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
// yet redacted (a turn's save scans only what is new), the summary, the title and the
// conclusion's note. Analysts' names (record.Question, Resolution.ResolvedBy) are written as
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

// Contents redacts, in place, every string inside the contents with r:
//
//   - Part.Text (thoughts included) and AudioTranscription.Text;
//   - FunctionCall.Args, FunctionResponse.Response, ToolCall.Args and
//     ToolResponse.Response at any depth (redact.Map): string values inside
//     maps, slices and arrays (JSON-shaped map[string]any/[]any values, and
//     typed Go maps, slices, pointers and exported struct fields via
//     reflection), map keys (a result keyed by IP or e-mail address), long
//     integers; what is nested deeper than redact.MaxDepth is replaced;
//     FunctionCall.PartialArgs string values;
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
	for _, c := range contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			str(&p.Text)
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
	}
	return counts
}
