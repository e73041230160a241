// Package redacting is the store layer through which every history write of the command line
// that is not a session's passes: it redacts a history (title, transcript, summary) before the
// next layer sees it.
//
// Where redaction runs: a session redacts what it saves itself (pkg/session, with the values of
// its alert kept) and writes below this layer (workspace.Store.Sessions); every other write
// (history rename, spool uploads, anything a command writes directly) passes through here, so
// no command can write a history unredacted. It keeps the values of a history's alert as the
// session does (redacthist.ForHistory), so both paths write alike. Redaction is idempotent and
// a history's redacted prefix (record.History.RedactedCount) is not scanned again.
//
// Which writes carry conversation text is a column of the contract table (store.Contract,
// HistoryText, which says why each other write carries none): this layer declares each of them
// and redacts what it writes; a test fails for one it does not declare. Today those are
// SaveHistory and PutKnowledge: an entry's text and indicators are redacted with the
// workspace's keyed tokens and without any alert's values kept, so an indicator that redaction
// replaces is stored as its token and the same raw value in any alert still finds it
// (pkg/knowledge); its alert types are rule names, written as given (they are matched against
// the alerts' own). Everything else (reads, the other writes, WorkspaceKey) goes to the store
// below unseen, through the embedded store.Store. The key is the redaction's own secret (it
// derives the tokens), created on first use by the backend; it is no text to redact, and
// changing it would change every token.
package redacting

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
)

// next is the store below, embedded: what the layer does not declare goes to it as it is.
type next = store.Store

// layer redacts every history it is asked to save, then saves it in the store it wraps.
type layer struct {
	next
	redactor redacthist.Redactor
}

var _ store.Store = (*layer)(nil)

// New wraps next so that every SaveHistory is redacted by r first.
func New(next store.Store, r redacthist.Redactor) store.Store {
	return &layer{next: next, redactor: r}
}

// SaveHistory redacts h in place and saves it. With a redactor that keeps an alert's values
// (redacthist.AlertRedactor), the values of h's alert are written as they are, as a session
// writes them; an alert that cannot be read keeps nothing.
func (s *layer) SaveHistory(ctx context.Context, h *record.History) error {
	red := redacthist.ForHistory(ctx, s.redactor, s.next, h)
	redacthist.History(red, h)
	return s.next.SaveHistory(ctx, h)
}

// PutKnowledge redacts the entry's text and indicators in place, then writes it.
func (s *layer) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	e.Text, _ = s.redactor.RedactString(e.Text)
	for i, v := range e.Indicators {
		e.Indicators[i], _ = s.redactor.RedactString(v)
	}
	return s.next.PutKnowledge(ctx, e)
}
