package outage_test

import (
	"context"
	"errors"
	"os"
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
	marker := func() *outage.Marker { return outage.NewMarker(dir, "cloud/x", outage.WithClock(c.now)) }
	down := &backend{err: status.Error(codes.Unavailable, "connection refused")}

	first := outage.NewGuard(down, marker(), outage.GuardOptions{TTL: 20 * time.Second})
	if err := first.SaveHistory(ctx, &model.History{}); err == nil || down.calls != 1 {
		t.Fatalf("first command: %v after %d calls", err, down.calls)
	}

	second := outage.NewGuard(down, marker(), outage.GuardOptions{TTL: 20 * time.Second})
	err := second.SaveHistory(ctx, &model.History{})
	if !errors.Is(err, resilient.ErrUnavailable) || down.calls != 1 {
		t.Fatalf("second command: %v after %d calls, want ErrUnavailable without a call", err, down.calls)
	}
	if !resilient.IsTransient(err) {
		t.Fatal("the fast failure is not transient: a session would not spool it")
	}
	if until, isDown := second.DownUntil(); !isDown || !until.Equal(c.t.Add(20*time.Second)) {
		t.Fatalf("DownUntil = %v, %v", until, isDown)
	}

	// The mark expires: the next command tries the backend again, which is back.
	c.t = c.t.Add(21 * time.Second)
	up := &backend{}
	third := outage.NewGuard(up, marker(), outage.GuardOptions{})
	if _, err := third.GetHistory(ctx, "h"); err != nil || up.calls != 1 {
		t.Fatalf("third command: %v after %d calls", err, up.calls)
	}
	if _, err := os.Stat(marker().Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the mark outlived an answer: %v", err)
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
			m := outage.NewMarker(t.TempDir(), "k")
			g := outage.NewGuard(&backend{err: tc.err}, m, outage.GuardOptions{})
			if err := g.SaveHistory(ctx, &model.History{}); !errors.Is(err, tc.err) {
				t.Fatalf("save: %v", err)
			}
			if _, down := m.Down(); down {
				t.Fatal("marked down")
			}
		})
	}
}
