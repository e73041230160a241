package alertcache_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/storetest"
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
	when := time.Date(2025, 6, 2, 8, 15, 30, 0, time.UTC)
	if _, err := inner.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "Login", Severity: "high", Source: "scc", Time: when, Data: raw}); err != nil {
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
		if !bytes.Equal(got.Data, raw) || got.Title != want.Title || got.ID != want.ID || !got.CreatedAt.Equal(want.CreatedAt) ||
			got.Severity != "high" || got.Source != "scc" || !got.Time.Equal(when) {
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

// Copies are bounded: past the limit the least recently used go, and an alert read since
// stays.
func TestCopiesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	calls := &store.CallCounter{}
	inner := open(t, dir, "ws", calls)
	ids := []record.AlertID{"alert-1", "alert-2", "alert-3", "alert-4", "alert-5"}
	for _, id := range ids {
		if _, err := inner.PutAlert(ctx, &record.Alert{ID: id, Data: []byte(`{"id":"` + string(id) + `"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	s := alertcache.NewWithLimits(inner, dir, "ws", alertcache.Limits{Copies: 3})
	old := time.Now().Add(-time.Hour)
	for i, id := range ids[:3] {
		if _, err := s.GetAlert(ctx, id); err != nil {
			t.Fatal(err)
		}
		// Distinct use times without waiting: the copies age as if read an hour apart.
		at := old.Add(time.Duration(i) * time.Minute)
		_ = os.Chtimes(copyPath(t, dir), at, at)
	}
	if _, err := s.GetAlert(ctx, "alert-1"); err != nil { // used again: the newest
		t.Fatal(err)
	}
	for _, id := range ids[3:] {
		if _, err := s.GetAlert(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "alerts", "ws"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("%d copies kept, want 3", len(entries))
	}
	calls.Reset()
	for _, id := range []record.AlertID{"alert-1", "alert-4", "alert-5"} {
		if _, err := s.GetAlert(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Total(); n != 0 {
		t.Fatalf("the recently used alerts were evicted: %s", calls)
	}
	if _, err := s.GetAlert(ctx, "alert-2"); err != nil || calls.Total() != 1 {
		t.Fatalf("an evicted alert is read from the store again: err %v, %s", err, calls)
	}
}

// copyPath is the newest copy in the workspace's directory (the one just written).
func copyPath(t *testing.T, dir string) string {
	t.Helper()
	d := filepath.Join(dir, "alerts", "ws")
	entries, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	var newest string
	var at time.Time
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && info.ModTime().After(at) {
			newest, at = filepath.Join(d, e.Name()), info.ModTime()
		}
	}
	return newest
}

// The cache changes GetAlert alone: every other method goes to the store below unseen.
func TestOverridesGetAlertOnly(t *testing.T) {
	t.Parallel()
	if own := storetest.Overrides[alertcache.Store](t); len(own) != 1 || !own["GetAlert"] {
		t.Fatalf("alertcache declares %v, want GetAlert alone", own)
	}
}
