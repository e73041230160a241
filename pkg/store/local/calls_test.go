package local_test

import (
	"context"
	"maps"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// A later turn's save is one transcript file write and one SQLite transaction; a one-shot
// continuation adds the history's metadata, its transcript and its alert.
func TestCallsPerTurn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	calls := &store.CallCounter{}
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "ws", Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "x", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	seed := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, seed); err != nil {
		t.Fatal(err)
	}

	calls.Reset()
	h, err := s.GetHistory(ctx, seed.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetAlert(ctx, h.AlertID); err != nil {
		t.Fatal(err)
	}
	turn(t, s, h)
	want := map[string]int{"sqlite.query": 2, "file.read": 1, "sqlite.tx": 1, "file.write": 1}
	if got := calls.Counts(); !maps.Equal(got, want) {
		t.Errorf("one-shot continuation: %s, want %v", calls, want)
	}
	for range 2 {
		calls.Reset()
		turn(t, s, h)
		if got, want := calls.Counts(), map[string]int{"sqlite.tx": 1, "file.write": 1}; !maps.Equal(got, want) {
			t.Errorf("later turn: %s, want %v", calls, want)
		}
	}
}

func turn(t *testing.T, s store.Store, h *record.History) {
	t.Helper()
	h.Contents = append(h.Contents, genai.NewContentFromText("q", genai.RoleUser), genai.NewContentFromText("a", genai.RoleModel))
	h.MessageCount = len(h.Contents)
	if err := s.SaveHistory(context.Background(), h); err != nil {
		t.Fatal(err)
	}
}
