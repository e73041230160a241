package alertcache_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/alertcache"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func open(t *testing.T, dir, ws string, calls *store.CallCounter) store.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: filepath.Join(dir, "db"), Workspace: ws, Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The first GetAlert reads the store, later ones (in this or another process) read the copy,
// byte for byte the same alert.
func TestCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	calls := &store.CallCounter{}
	inner := open(t, dir, "ws", calls)
	raw := []byte("{\n  \"b\": 2,   \"a\": [1]\n}")
	if _, err := inner.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "Login", Data: raw}); err != nil {
		t.Fatal(err)
	}
	want, err := inner.GetAlert(ctx, "alert-1")
	if err != nil {
		t.Fatal(err)
	}
	calls.Reset()
	for i := range 3 {
		s := alertcache.New(inner, dir, "ws") // a new command each time
		got, err := s.GetAlert(ctx, "alert-1")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data, raw) || got.Title != want.Title || got.ID != want.ID || !got.CreatedAt.Equal(want.CreatedAt) {
			t.Fatalf("read %d: %+v, want %+v", i, got, want)
		}
	}
	if n := calls.Total(); n != 1 {
		t.Fatalf("three reads made %s, want one store read", calls)
	}
}

// A copy is per workspace; a missing alert is not cached; a corrupt copy is read again.
func TestScopeAndDamage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, b := open(t, dir, "ws-a", nil), open(t, dir, "ws-b", nil)
	if _, err := a.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "A", Data: []byte(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	ca, cb := alertcache.New(a, dir, "ws-a"), alertcache.New(b, dir, "ws-b")
	if _, err := ca.GetAlert(ctx, "alert-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.GetAlert(ctx, "alert-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another workspace reads the copy: %v", err)
	}
	if _, err := b.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "B", Data: []byte(`{"b":1}`)}); err != nil {
		t.Fatal(err)
	}
	if got, err := cb.GetAlert(ctx, "alert-1"); err != nil || got.Title != "B" {
		t.Fatalf("after the alert was added to ws-b: %v %+v (a miss must not be cached)", err, got)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "alerts", "ws-a", "*.json"))
	if len(files) != 1 {
		t.Fatalf("%d copies in ws-a", len(files))
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy mode: %v %v", err, fi.Mode())
	}
	if err := os.WriteFile(files[0], []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := alertcache.New(a, dir, "ws-a").GetAlert(ctx, "alert-1"); err != nil || got.Title != "A" {
		t.Fatalf("after damage: %v %+v", err, got)
	}
}
