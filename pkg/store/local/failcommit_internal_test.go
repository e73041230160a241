package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/genai"
)

// TestFailedMetadataWriteChangesNothing makes the metadata write fail after the transcript was
// renamed into place (a trigger aborts it): the previous transcript is put back for an update,
// the new one removed for a create, and no temporary file is left.
func TestFailedMetadataWriteChangesNothing(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := newTestHistory()
	if err := s.SaveHistory(ctx, h); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.objectPath(h.ID))
	for _, trig := range []string{
		`CREATE TRIGGER no_update BEFORE UPDATE ON histories BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
		`CREATE TRIGGER no_insert BEFORE INSERT ON histories BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
	} {
		if _, err := s.db.ExecContext(ctx, trig); err != nil {
			t.Fatal(err)
		}
	}
	h.Contents = append(h.Contents, genai.NewContentFromText("lost?", genai.RoleUser))
	h.MessageCount = len(h.Contents)
	if err := s.SaveHistory(ctx, h); err == nil {
		t.Fatal("update with a failing metadata write succeeded")
	}
	if after, _ := os.ReadFile(s.objectPath(h.ID)); string(after) != string(before) {
		t.Fatalf("the transcript changed under unchanged metadata:\n%s", after)
	}
	fresh := newTestHistory()
	if err := s.SaveHistory(ctx, fresh); err == nil {
		t.Fatal("create with a failing metadata write succeeded")
	}
	if _, err := os.Stat(s.objectPath(fresh.ID)); !os.IsNotExist(err) {
		t.Fatalf("a failed create left its transcript: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(s.objectPath(h.ID)))
	if len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
	got, err := s.GetHistory(ctx, h.ID)
	if err != nil || len(got.Contents) != 2 || got.Revision != 1 {
		t.Fatalf("stored history: %v", err)
	}
}
