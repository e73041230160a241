package history

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

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
