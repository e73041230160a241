package session

import (
	"context"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
)

// saveState is what a session remembers of its saves.
type saveState struct {
	spoolKey string // the session's spool entry, once it has one
	pending  bool   // the latest state is in the spool, not in the store
	last     store.SaveResult
	lastErr  error // the store's error when the latest save was spooled
}

// persist writes the (redacted) history: to the store when it can, forking on a conflict, and
// to the spool when the store fails. A spooled save is not an error: the turn is safe on
// local disk and the session goes on. Its outcome is in s.saved.
func (s *Session) persist(ctx context.Context) error {
	res, err := store.SaveOrFork(ctx, s.opts.Store, s.history, s.opts.Now)
	s.saved.last, s.saved.lastErr = res, nil
	if res.History != nil {
		s.history = res.History
		// everything stored is redacted; the live session follows what the store holds
		s.history.RedactedCount = len(s.history.Contents)
		s.followStored()
	}
	if err == nil {
		if s.saved.pending {
			// Saved: the spooled state is superseded. An entry left behind (removal failed) is
			// found already saved by the next flush.
			if s.opts.Spool.Remove(s.saved.spoolKey) == nil {
				s.saved.pending = false
			}
		}
		return nil
	}
	if s.opts.Spool != nil && store.Spoolable(err) {
		key, perr := s.opts.Spool.Put(s.saved.spoolKey, s.history)
		if perr == nil {
			s.saved.spoolKey, s.saved.pending, s.saved.lastErr = key, true, err
			return nil
		}
		err = goerr.Wrap(err, "and it could not be kept in the local spool either: "+perr.Error())
	}
	return goerr.Wrap(err, "failed to save history", goerr.V("history_id", s.history.ID))
}

// Pending reports whether the session's latest state is only in the local spool, not yet in
// the store.
func (s *Session) Pending() bool { return s.saved.pending }

// LastSave describes the latest save: where it went, and, when it was spooled, the store's
// error (nil otherwise).
func (s *Session) LastSave() (store.SaveResult, error) { return s.saved.last, s.saved.lastErr }
