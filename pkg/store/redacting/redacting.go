// Package redacting is the store layer through which every history write of the command line
// that is not a session's passes: it redacts a history (title, transcript, summary) before the
// next layer sees it.
//
// Where redaction runs: a session redacts what it saves itself (pkg/session, with the values of
// its alert kept) and writes below this layer (cmd/factory's Store.Sessions); every other write
// (history rename, spool uploads, anything a command writes directly) passes through here, so
// no command can write a history unredacted. It keeps the values of a history's alert as the
// session does (redacthist.ForHistory), so both paths write alike. Redaction is idempotent and
// a history's redacted prefix (record.History.RedactedCount) is not scanned again. Alerts are
// written as given: they are the evidence under analysis.
package redacting

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
)

// Store redacts every history it is asked to save, then saves it in the store it wraps.
type Store struct {
	store.Store
	redactor redacthist.Redactor
}

// New wraps next so that every SaveHistory is redacted by r first.
func New(next store.Store, r redacthist.Redactor) *Store {
	return &Store{Store: next, redactor: r}
}

// SaveHistory redacts h in place and saves it. With a redactor that keeps an alert's values
// (redacthist.AlertRedactor), the values of h's alert are written as they are, as a session
// writes them; an alert that cannot be read keeps nothing.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	red := redacthist.ForHistory(ctx, s.redactor, s.Store, h)
	redacthist.History(red, h)
	return s.Store.SaveHistory(ctx, h)
}

// Unwrap returns the wrapped store.
func (s *Store) Unwrap() store.Store { return s.Store }
