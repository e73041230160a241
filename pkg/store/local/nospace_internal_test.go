package local

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// fullDisk accepts limit bytes, then fails as a full file system does.
type fullDisk struct {
	w     io.Writer
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.limit {
		n, _ := d.w.Write(p[:d.limit])
		d.limit = 0
		return n, &os.PathError{Op: "write", Path: "transcript", Err: syscall.ENOSPC}
	}
	d.limit -= len(p)
	return d.w.Write(p)
}

// TestDiskFullKeepsPreviousTranscript injects ENOSPC into the transcript write (the same error
// a full file system gives; cmd's end-to-end test uses a real one): the save fails with
// store.ErrNoSpace and a message saying so, and the stored history is what it was.
func TestDiskFullKeepsPreviousTranscript(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	hist := newTestHistory()
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.objectPath(hist.ID))

	tempWriter = func(f *os.File) io.Writer { return &fullDisk{w: f, limit: 64} }
	t.Cleanup(func() { tempWriter = func(f *os.File) io.Writer { return f } })
	hist.Contents = append(hist.Contents, genai.NewContentFromText(strings.Repeat("long answer ", 1000), genai.RoleModel))
	hist.MessageCount = len(hist.Contents)
	err = s.SaveHistory(ctx, hist)
	if !errors.Is(err, store.ErrNoSpace) || !strings.Contains(err.Error(), "no space left") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("save on a full disk: %v", err)
	}
	after, _ := os.ReadFile(s.objectPath(hist.ID))
	if string(after) != string(before) {
		t.Fatal("the previous transcript changed")
	}
	got, err := s.GetHistory(ctx, hist.ID)
	if err != nil || got.Revision != 1 || len(got.Contents) != 2 {
		t.Fatalf("stored history after the failed save: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.objectPath(hist.ID)))
	if len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}

func newTestHistory() *record.History {
	now := store.Now()
	return &record.History{
		ID: store.NewHistoryID(), AlertID: "a", Title: "t", CreatedAt: now, UpdatedAt: now, MessageCount: 2,
		Contents: []*genai.Content{genai.NewContentFromText("q", genai.RoleUser), genai.NewContentFromText("a", genai.RoleModel)},
	}
}
