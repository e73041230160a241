package spool

// The layer: the top store layer of the command line, the store below it (redaction,
// retries and circuit breaker, the backend) plus the spool that keeps the turns the backend
// could not take during an outage. Sessions put turns into the spool themselves
// (session.Options.Spool); this layer uploads them (Flush) and shows them in listings
// (PendingHistories).

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Layer is a store with a spool; a nil spool (none could be opened) keeps nothing.
type Layer struct {
	store.Store
	spool *Spool
}

// New wraps next, whose writes must already pass redaction, with sp (may be nil).
func NewLayer(next store.Store, sp *Spool) *Layer {
	return &Layer{Store: next, spool: sp}
}

// Spool returns the spool, or nil when there is none.
func (s *Layer) Spool() *Spool { return s.spool }

// Flush uploads the spool's pending turns through the layers below.
func (s *Layer) Flush(ctx context.Context) (*Report, error) {
	if s.spool == nil {
		return &Report{}, nil
	}
	return s.spool.Flush(ctx, s.Store)
}

// PendingHistories returns the newest spooled state of each history with turns not yet
// uploaded (store.PendingReporter).
func (s *Layer) PendingHistories(context.Context) map[record.HistoryID]*record.History {
	if s.spool == nil {
		return nil
	}
	p, _ := s.spool.Pending()
	return p
}

// Unwrap returns the wrapped store.
func (s *Layer) Unwrap() store.Store { return s.Store }
