package local_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/internal/searchtest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func newHarness(t testing.TB) *storetest.Harness {
	dir := t.TempDir()
	const prefix = "team/"
	return &storetest.Harness{
		Prefix: prefix,
		Open: func(t testing.TB, ws string) store.Store {
			s, err := local.Open(context.Background(), local.Options{Dir: dir, Prefix: prefix, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		ReadObject: func(t testing.TB, key string) ([]byte, bool) {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)))
			if os.IsNotExist(err) {
				return nil, false
			}
			if err != nil {
				t.Fatal(err)
			}
			return b, true
		},
		WriteObject: func(t testing.TB, key string, data []byte) {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), data, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, newHarness)
}

func TestSearchConformance(t *testing.T) {
	t.Parallel()
	searchtest.RunSearch(t, newHarness)
}
