// Package spooled is the top store layer of the command line: the store below it (redaction,
// retries and circuit breaker, the backend) plus the local spool that keeps the turns the
// backend could not take during an outage (pkg/spool). Sessions put turns into the spool
// themselves (session.Options.Spool); this layer uploads them (Flush) and shows them in
// listings (PendingHistories).
package spooled

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/spool"
	"github.com/alertchat/alertchat/pkg/store"
)

// Store is a store with a spool; a nil spool (none could be opened) keeps nothing.
type Store struct {
	store.Store
	spool *spool.Spool
}

// New wraps next, whose writes must already pass redaction, with sp (may be nil).
func New(next store.Store, sp *spool.Spool) *Store {
	return &Store{Store: next, spool: sp}
}

// Spool returns the spool, or nil when there is none.
func (s *Store) Spool() *spool.Spool { return s.spool }

// Flush uploads the spool's pending turns through the layers below.
func (s *Store) Flush(ctx context.Context) (*spool.Report, error) {
	if s.spool == nil {
		return &spool.Report{}, nil
	}
	return s.spool.Flush(ctx, s.Store)
}

// PendingHistories returns the newest spooled state of each history with turns not yet
// uploaded (store.PendingReporter).
func (s *Store) PendingHistories(context.Context) map[record.HistoryID]*record.History {
	if s.spool == nil {
		return nil
	}
	p, _ := s.spool.Pending()
	return p
}

// Unwrap returns the wrapped store.
func (s *Store) Unwrap() store.Store { return s.Store }
