package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/spool"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// defaultStoreTimeout is how long a storage call retries a failing backend.
const defaultStoreTimeout = resilient.DefaultBudget

// resilience is how the command line keeps turns through storage outages: retries and a
// circuit breaker around the store (package resilient), and the local spool (package spool)
// for the turns that still cannot be saved.
type resilience struct {
	Timeout time.Duration // --store-timeout

	spool       *spool.Spool
	noAutoFlush bool // the command flushes itself (history sync)
}

// backendID names the backend the flags select, so a spool is only ever flushed into the
// store it was written for.
func (g *globalOptions) backendID() string {
	if g.FirestoreProject != "" {
		id := "cloud:" + g.FirestoreProject + "/" + g.FirestoreDatabase + "/" + g.Bucket + "/" + g.Prefix
		if h := os.Getenv("FIRESTORE_EMULATOR_HOST") + "|" + os.Getenv("STORAGE_EMULATOR_HOST"); h != "|" {
			id += "@" + h
		}
		return id
	}
	dir, err := filepath.Abs(g.DataDir)
	if err != nil {
		dir = g.DataDir
	}
	return "local:" + dir + "|" + g.Prefix
}

// spoolRoot is where spools live: {data-dir}/spool, for the cloud store too.
func (g *globalOptions) spoolRoot() string { return filepath.Join(g.DataDir, "spool") }

// prepareStore wraps an opened store for a command: retries and breaker, then the redaction
// step, and opens the spool, whose pending turns are uploaded first (unless the command does
// it itself). A flush that fails leaves the spool as it is and warns; the command still runs.
func (g *globalOptions) prepareStore(ctx context.Context, s store.Store, red session.Redactor) store.Store {
	rs := resilient.New(s, resilient.Options{
		Budget: g.res.Timeout,
		OnStateChange: func(from, to resilient.State) {
			g.logger.Info("storage circuit breaker", "from", from.String(), "to", to.String())
		},
	})
	sp, err := spool.Open(spool.Options{Root: g.spoolRoot(), Backend: g.backendID(), Workspace: g.Workspace, Redactor: red})
	if err != nil {
		g.logger.Warn("local spool unavailable: turns the store cannot take will not be kept", "error", err)
		sp = nil
	}
	g.res.spool = sp
	out := spooledStore{redactingStore: redactingStore{Store: rs, redactor: red}, spool: sp}
	if sp != nil && !g.res.noAutoFlush {
		_, _ = g.flushSpool(ctx, out, false)
	}
	return out
}

// sessionSpool is the spool for session.Options (nil when there is none).
func (g *globalOptions) sessionSpool() session.Spool {
	if g.res.spool == nil {
		return nil
	}
	return g.res.spool
}

// flushSpool uploads the spool's pending turns and says what happened on stderr; verbose
// (history sync) also reports entries found already uploaded and an empty spool.
func (g *globalOptions) flushSpool(ctx context.Context, st store.Store, verbose bool) (*spool.Report, error) {
	sp := g.res.spool
	if sp == nil {
		return &spool.Report{}, nil
	}
	rep, err := sp.Flush(ctx, st)
	w := g.io.ErrOut
	for _, u := range rep.Uploaded {
		switch {
		case u.ForkedFrom != "":
			fmt.Fprintf(w, "Uploaded turns kept locally: history %s was changed or removed meanwhile, so they went to a new history %s (a fork of it).\n", u.ForkedFrom, u.HistoryID)
		case u.AlreadySaved:
			if verbose {
				fmt.Fprintf(w, "History %s already held the turns kept locally.\n", u.HistoryID)
			}
		default:
			fmt.Fprintf(w, "Uploaded turns kept locally to history %s (%d messages).\n", u.HistoryID, u.Messages)
		}
	}
	for _, r := range rep.Rejected {
		fmt.Fprintf(w, "Warning: the store refused a conversation kept locally; it was moved to %s.\n", r)
	}
	if err != nil {
		fmt.Fprintf(w, "Warning: %s kept locally in %s could not be uploaded yet: %v\nThey stay there; a later command, or 'alertchat history sync', uploads them.\n",
			plural(max(rep.Pending, 1), "conversation", "conversations"), sp.Dir(), oneLine(err.Error()))
		return rep, err
	}
	if verbose && len(rep.Uploaded) == 0 && rep.Pending == 0 {
		fmt.Fprintln(w, "Nothing to upload: no turns are kept locally.")
	}
	return rep, nil
}

// reportSave tells the user, on stderr, where a turn went when it is not simply saved: to a
// fork (another writer saved the history meanwhile) or to the local spool (the store failed).
func reportSave(w io.Writer, turn *session.Turn, h *model.History) {
	if turn == nil {
		return
	}
	if turn.ForkedFrom != "" {
		fmt.Fprintf(w, "Note: history %s was changed by another writer since it was loaded; this turn was saved to a new history %s (a fork of it). Continue with: alertchat chat --history %s\n",
			turn.ForkedFrom, h.ID, h.ID)
	}
	if turn.Spooled {
		fmt.Fprintf(w, "Warning: the store is unavailable (%s); this turn of history %s is kept locally (in the spool of the data directory) and will be uploaded by the next command that reaches the store, or by 'alertchat history sync'.\n",
			oneLine(turn.SpoolCause.Error()), h.ID)
	}
}

// spooledStore is the store commands get: the redaction step over retries and breaker, plus
// the spool's view of histories with turns not yet uploaded.
type spooledStore struct {
	redactingStore
	spool *spool.Spool
}

// pendingHistories returns the newest spooled state of each history with turns not yet
// uploaded.
func (s spooledStore) pendingHistories() map[model.HistoryID]*model.History {
	if s.spool == nil {
		return nil
	}
	p, _ := s.spool.Pending()
	return p
}

// withPending marks the listed histories that have turns kept locally, and adds the histories
// that exist only in the spool (created during an outage) that match alertID, newest first.
func withPending(s store.Histories, hs []*model.History, alertID model.AlertID, limit int) ([]*model.History, map[model.HistoryID]bool) {
	ps, ok := s.(spooledStore)
	if !ok {
		return hs, nil
	}
	pend := ps.pendingHistories()
	if len(pend) == 0 {
		return hs, nil
	}
	marked := map[model.HistoryID]bool{}
	for _, h := range hs {
		if pend[h.ID] != nil {
			marked[h.ID] = true
		}
	}
	for id, h := range pend {
		if marked[id] || h.Revision != 0 || (alertID != "" && h.AlertID != alertID) {
			continue
		}
		marked[id] = true
		hs = append(hs, h)
	}
	slices.SortStableFunc(hs, func(a, b *model.History) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(string(b.ID), string(a.ID))
	})
	if limit > 0 && len(hs) > limit {
		hs = hs[:limit]
	}
	return hs, marked
}

// checkerOf finds the store.Checker under the wrappers a command's store has.
func checkerOf(s any) (store.Checker, bool) {
	for {
		switch v := s.(type) {
		case spooledStore:
			s = v.redactingStore.Store
		case redactingStore:
			s = v.Store
		case interface{ Unwrap() store.Store }:
			s = v.Unwrap()
		default:
			c, ok := s.(store.Checker)
			return c, ok
		}
	}
}

// pendingMark flags a history with turns not yet uploaded in a terminal listing.
func pendingMark(pending bool) string {
	if pending {
		return "*"
	}
	return ""
}
