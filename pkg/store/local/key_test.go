package local_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/alertchat/alertchat/pkg/store/local"
)

func openWS(t *testing.T, dir, ws string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestWorkspaceKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	a, err := openWS(t, dir, "team").WorkspaceKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != local.WorkspaceKeyLen || bytes.Equal(a, make([]byte, len(a))) {
		t.Fatalf("key of %d bytes: %x", len(a), a)
	}
	// another store instance on the same data directory, later: the same key
	again, err := openWS(t, dir, "team").WorkspaceKey(ctx)
	if err != nil || !bytes.Equal(a, again) {
		t.Fatalf("second instance: %x, %v", again, err)
	}
	// another workspace, and another data directory: other keys
	other, err := openWS(t, dir, "other").WorkspaceKey(ctx)
	if err != nil || bytes.Equal(a, other) {
		t.Fatalf("other workspace: %x, %v", other, err)
	}
	elsewhere, err := openWS(t, t.TempDir(), "team").WorkspaceKey(ctx)
	if err != nil || bytes.Equal(a, elsewhere) {
		t.Fatalf("other data directory: %x, %v", elsewhere, err)
	}
}

func TestWorkspaceKeyRace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 6
	stores := make([]*local.Store, n)
	for i := range stores {
		stores[i] = openWS(t, dir, "race")
	}
	keys := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { keys[i], errs[i] = stores[i].WorkspaceKey(context.Background()) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("store %d: %x, %v (store 0: %x)", i, keys[i], errs[i], keys[0])
		}
	}
}
