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
// yet redacted (a turn's save scans only what is new) and the title. Counts accumulate in
// h.Redactions.
func History(r Redactor, h *record.History) {
	if h.RedactedCount > len(h.Contents) {
		h.RedactedCount = 0 // the transcript was replaced; scan it all
	}
	counts := r.RedactContents(h.Contents[h.RedactedCount:])
	h.RedactedCount = len(h.Contents)
	Summary(r, h)
	title, tc := r.RedactString(h.Title)
	h.Title = title
	AddCounts(h, counts)
	AddCounts(h, tc)
}

// Summary passes the summary through the redactor, as every write of a history; counts
// add to h.Redactions.
func Summary(r Redactor, h *record.History) {
	if h.Summary == nil || h.Summary.Text == "" {
		return
	}
	text, counts := r.RedactString(h.Summary.Text)
	h.Summary.Text = text
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
	return countsMap(e.r.Contents(cs))
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
