package local_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func open(t testing.TB, dir, ws string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	s := open(t, dir, "default")
	h := storetest.NewHistory("a", storetest.EveryPartKind())
	if err := s.SaveHistory(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if info.IsDir() {
			want = 0o700
		}
		if got := info.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNoTempFilesLeft(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, "default")
	ctx := context.Background()
	h := storetest.NewHistory("a", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	stale := h.Meta()
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveHistory(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v", err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "histories"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
	if len(entries) != 1 {
		t.Fatalf("want one transcript file, got %d", len(entries))
	}
}

func TestOpenRefusesBadWorkspace(t *testing.T) {
	t.Parallel()
	for _, ws := range []string{"", "../x", "a/b", strings.Repeat("w", 65)} {
		if _, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: ws}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("workspace %q: %v, want ErrInvalid", ws, err)
		}
	}
}

// TestTwoProcesses runs writers in separate processes (this test binary re-executed) on one data
// directory: every append lands exactly once, each writer retrying on conflict.
func TestTwoProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, "default")
	ctx := context.Background()
	h := storetest.NewHistory("a", nil)
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	const procs, appends = 3, 10
	cmds := make([]*exec.Cmd, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$")
		cmd.Env = append(os.Environ(), "LOCAL_HELPER_DIR="+dir, "LOCAL_HELPER_ID="+string(h.ID),
			fmt.Sprintf("LOCAL_HELPER_TAG=p%d", i), fmt.Sprintf("LOCAL_HELPER_N=%d", appends))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	got, err := s.GetHistory(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range got.Contents {
		seen[c.Parts[0].Text]++
	}
	if len(got.Contents) != procs*appends || len(seen) != procs*appends {
		t.Fatalf("want %d distinct turns, got %d contents, %d distinct", procs*appends, len(got.Contents), len(seen))
	}
	if got.Revision != 1+procs*appends {
		t.Fatalf("revision %d, want %d", got.Revision, 1+procs*appends)
	}
}

func TestHelperAppender(t *testing.T) {
	dir := os.Getenv("LOCAL_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	var n int
	fmt.Sscan(os.Getenv("LOCAL_HELPER_N"), &n)
	s := open(t, dir, "default")
	ctx := context.Background()
	id := record.HistoryID(os.Getenv("LOCAL_HELPER_ID"))
	for i := 0; i < n; {
		h, err := s.GetHistory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		h.Contents = append(h.Contents, genai.NewContentFromText(fmt.Sprintf("%s-%d", os.Getenv("LOCAL_HELPER_TAG"), i), genai.RoleUser))
		h.MessageCount = len(h.Contents)
		switch err := s.SaveHistory(ctx, h); {
		case err == nil:
			i++
		case errors.Is(err, store.ErrConflict):
		default:
			t.Fatal(err)
		}
	}
}
