// Package redacting is the store layer through which every history write of the command line
// passes: it redacts a history (title, transcript, summary) before the next layer sees it.
//
// Where redaction runs: a session redacts what it saves (pkg/session), and this layer redacts
// every history write again, whoever makes it (chat, batch, history rename, spool uploads), so
// no command can write a history unredacted. The second pass is cheap: redaction is idempotent
// and a history's redacted prefix (record.History.RedactedCount) is not scanned again. Alerts
// are written as given: they are the evidence under analysis.
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
