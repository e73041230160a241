package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Workspace contract: another workspace can neither list, read, save nor delete a history,
// and gets "not found".

func testWorkspaceIsolation(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, a, hist)
	before, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))

	if _, err := b.GetHistory(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get from other workspace: %v, want ErrNotFound", err)
	}
	if _, err := b.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get meta from other workspace: %v, want ErrNotFound", err)
	}
	page, err := b.ListHistories(ctx, store.HistoryQuery{})
	if err != nil || len(page.Histories) != 0 {
		t.Errorf("list from other workspace: %v, %d histories", err, len(page.Histories))
	}
	page, err = b.ListHistories(ctx, store.HistoryQuery{AlertID: "alert-1"})
	if err != nil || len(page.Histories) != 0 {
		t.Errorf("list by alert from other workspace: %v, %d histories", err, len(page.Histories))
	}
	if ids, err := b.FindHistories(ctx, string(hist.ID)[:8], 10); err != nil || len(ids) != 0 {
		t.Errorf("find from other workspace: %v %v", ids, err)
	}
	stolen := hist.Meta()
	stolen.Contents = []*genai.Content{genai.NewContentFromText("overwrite", genai.RoleUser)}
	if err := b.SaveHistory(ctx, stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("save into other workspace's history: %v, want ErrNotFound", err)
	}
	if err := b.DeleteHistory(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete from other workspace: %v, want ErrNotFound", err)
	}
	// The owner still sees it intact.
	got, err := a.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatalf("owner lost the history: %v", err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, hist.Contents)) || got.Revision != hist.Revision {
		t.Fatal("other workspace changed the history")
	}
	after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))
	if !bytes.Equal(before, after) {
		t.Fatal("other workspace changed the transcript object")
	}
	// The same error as a missing ID: callers cannot tell the two apart.
	_, errOther := b.GetHistory(ctx, hist.ID)
	_, errMissing := b.GetHistory(ctx, store.NewHistoryID())
	if errors.Is(errOther, store.ErrNotFound) != errors.Is(errMissing, store.ErrNotFound) {
		t.Fatal("another workspace's history is distinguishable from a missing one")
	}
}

func testNotFound(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	for _, id := range []record.HistoryID{store.NewHistoryID(), "not-a-uuid", "../../etc/passwd", ""} {
		if _, err := s.GetHistory(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get %q: %v, want ErrNotFound", id, err)
		}
		if err := s.DeleteHistory(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete %q: %v, want ErrNotFound", id, err)
		}
	}
	ghost := NewHistory("alert-1", nil)
	ghost.Revision = 3
	if err := s.SaveHistory(ctx, ghost); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("save of a missing history at revision 3: %v, want ErrNotFound", err)
	}
	if _, err := s.GetAlert(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get alert: %v, want ErrNotFound", err)
	}
}
