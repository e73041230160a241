package history

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// conflictingStore makes the first n saves fail with store.ErrConflict after another writer
// bumped the revision.
type conflictingStore struct {
	store.Histories
	n     int32
	saves atomic.Int32
}

func (c *conflictingStore) SaveHistory(ctx context.Context, h *record.History) error {
	if c.saves.Add(1) <= c.n {
		other, err := c.Histories.GetHistory(ctx, h.ID)
		if err != nil {
			return err
		}
		other.MessageCount++
		if err := c.Histories.SaveHistory(ctx, other); err != nil {
			return err
		}
		return c.Histories.SaveHistory(ctx, h) // stale now: ErrConflict
	}
	return c.Histories.SaveHistory(ctx, h)
}

func TestRenameRetriesConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		conflicts int32
		wantErr   bool
	}{{0, false}, {2, false}, {store.UpdateAttempts, true}} {
		s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		h := storetest.NewHistory("alert-1", nil)
		h.Title = "old"
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		cs := &conflictingStore{Histories: s, n: tc.conflicts}
		_, err = Rename(ctx, cs, string(h.ID), "new")
		if tc.wantErr {
			if !errors.Is(err, store.ErrConflict) || cmdutil.ExitCode(err) != cmdutil.ExitFailure {
				t.Errorf("%d conflicts: %v, want ErrConflict", tc.conflicts, err)
			}
		} else {
			got, gerr := s.GetHistoryMeta(ctx, h.ID)
			if err != nil || gerr != nil || got.Title != "new" || got.MessageCount != int(tc.conflicts) {
				t.Errorf("%d conflicts: %v %v %+v", tc.conflicts, err, gerr, got)
			}
		}
		s.Close()
	}
}

func TestParseAge(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"30d", 30 * day}, {"2w", 14 * day}, {"12h", 12 * time.Hour}, {"90m", 90 * time.Minute},
		{"1h30m", 90 * time.Minute}, {"1w2d", 9 * day}, {"1.5d", 36 * time.Hour}, {"1d12h", 36 * time.Hour},
		{"10s", 10 * time.Second}, {" 7d ", 7 * day}, {"+3d", 3 * day}, {"500ms", 500 * time.Millisecond},
	} {
		got, err := ParseAge(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "  ", "0", "0d", "0s", "-1d", "-5h", "30", "d", "30days", "30D", "1y", "abc", "1d-1h", "1e3d",
		"100000000w", "9999999999h", "1d 2h", "３０d",
	} {
		if got, err := ParseAge(in); err == nil || cmdutil.ExitCode(err) != cmdutil.ExitUsage {
			t.Errorf("ParseAge(%q) = %v, %v; want a usage error", in, got, err)
		}
	}
}
