package outage_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/outage"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// backend is a store whose history calls answer err, counting them.
type backend struct {
	store.Store // nil: only the methods below are called
	err         error
	calls       int
}

func (b *backend) GetHistory(context.Context, model.HistoryID) (*model.History, error) {
	b.calls++
	if b.err != nil {
		return nil, b.err
	}
	return &model.History{}, nil
}

func (b *backend) SaveHistory(context.Context, *model.History) error {
	b.calls++
	return b.err
}

// One command finds the store down; the next ones fail at once without calling it, until the
// mark expires; the first answer clears the mark.
func TestGuardAcrossCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	guard := func(b store.Store) *outage.Guard {
		return outage.NewGuard(b, dir, "cloud/x", outage.GuardOptions{TTL: 20 * time.Second, Now: c.now})
	}
	down := &backend{err: status.Error(codes.Unavailable, "connection refused")}

	first := guard(down)
	if err := first.SaveHistory(ctx, &model.History{}); err == nil || down.calls != 1 {
		t.Fatalf("first command: %v after %d calls", err, down.calls)
	}

	second := guard(down)
	err := second.SaveHistory(ctx, &model.History{})
	if !errors.Is(err, resilient.ErrUnavailable) || down.calls != 1 {
		t.Fatalf("second command: %v after %d calls, want ErrUnavailable without a call", err, down.calls)
	}
	if !resilient.IsTransient(err) {
		t.Fatal("the fast failure is not transient: a session would not spool it")
	}
	if until, isDown := second.WritesDownUntil(); !isDown || !until.Equal(c.t.Add(20*time.Second)) {
		t.Fatalf("WritesDownUntil = %v, %v", until, isDown)
	}
	// Reads are another side: a listing may still work.
	if _, err := second.GetHistory(ctx, "h"); err == nil || down.calls != 2 {
		t.Fatalf("read while writes are down: %v after %d calls, want a call", err, down.calls)
	}

	// The marks expire: the next command tries the backend again, which is back, and its
	// answers clear the marks.
	c.t = c.t.Add(21 * time.Second)
	up := &backend{}
	third := guard(up)
	if err := third.SaveHistory(ctx, &model.History{}); err != nil || up.calls != 1 {
		t.Fatalf("third command: %v after %d calls", err, up.calls)
	}
	if _, err := third.GetHistory(ctx, "h"); err != nil || up.calls != 2 {
		t.Fatalf("third command's read: %v after %d calls", err, up.calls)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Fatalf("marks outlived the answers: %v", left)
	}
}

// Answers that are the backend's verdicts, and calls the caller gave up, are not outages.
func TestGuardVerdictsAndCancels(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		err    error
		cancel bool
	}{
		"conflict":  {err: store.ErrConflict},
		"not found": {err: store.ErrNotFound},
		"cancelled": {err: context.Canceled, cancel: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			dir := t.TempDir()
			g := outage.NewGuard(&backend{err: tc.err}, dir, "k", outage.GuardOptions{})
			if err := g.SaveHistory(ctx, &model.History{}); !errors.Is(err, tc.err) {
				t.Fatalf("save: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Fatalf("marked down: %v", left)
			}
		})
	}
}
