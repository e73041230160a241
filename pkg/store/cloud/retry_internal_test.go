package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// An update whose metadata write fails after its object write leaves the object ahead of the
// metadata. The same caller's retry replaces its own object (after marking the document, so a
// late metadata write of the failed attempt could not land) and commits; a load by another
// store sees the object's content and saves on top of it the same way.
func TestRetryUpdateAfterMetadataFailure(t *testing.T) {
	ctx := context.Background()
	fs := testenv.Firestore(t)
	_, sc := testenv.GCS(t)
	calls := &store.CallCounter{}
	s, err := New(Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Workspace: "ws", Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	hist := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatal(err)
	}
	firstGen := hist.ContentVersion

	// The metadata write of the second save fails: its context ends right after the object
	// write.
	failCtx, cancel := context.WithCancel(ctx)
	s.afterObjectWrite = func(record.HistoryID) { cancel() }
	hist.Contents = append(hist.Contents, genai.NewContentFromText("second", genai.RoleUser))
	hist.MessageCount = len(hist.Contents)
	if err := s.SaveHistory(failCtx, hist); err == nil || errors.Is(err, store.ErrConflict) {
		t.Fatalf("save with a context ended before the metadata write: %v", err)
	}
	s.afterObjectWrite = nil
	if hist.Revision != 1 || hist.ContentVersion == firstGen {
		t.Fatalf("after the failed metadata write: revision %d, content version %d (first %d)", hist.Revision, hist.ContentVersion, firstGen)
	}

	calls.Reset()
	if err := s.SaveHistory(ctx, hist); err != nil {
		t.Fatalf("retry: %v", err)
	}
	// Document read, mark, object write, metadata write.
	if c := calls.Counts(); calls.Total() != 4 || c["firestore.update"] != 2 || c["firestore.get"] != 1 || c["gcs.write"] != 1 {
		t.Errorf("retry made %s, want a read, a mark, the object and the metadata", calls)
	}
	assertStored(t, s, hist)

	// Another store loads a history whose object is ahead of its metadata (made here by hand:
	// the metadata write of a third save fails), continues it and saves.
	failCtx, cancel = context.WithCancel(ctx)
	s.afterObjectWrite = func(record.HistoryID) { cancel() }
	hist.Contents = append(hist.Contents, genai.NewContentFromText("third", genai.RoleUser))
	hist.MessageCount = len(hist.Contents)
	_ = s.SaveHistory(failCtx, hist)
	s.afterObjectWrite = nil
	other, err := New(Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := other.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 2 || len(got.Contents) != len(hist.Contents) {
		t.Fatalf("load of a pending object: revision %d, %d contents, want 2 and %d", got.Revision, len(got.Contents), len(hist.Contents))
	}
	got.Contents = append(got.Contents, genai.NewContentFromText("fourth", genai.RoleModel))
	got.MessageCount = len(got.Contents)
	if err := other.SaveHistory(ctx, got); err != nil {
		t.Fatal(err)
	}
	assertStored(t, other, got)
	// The first store's retry of its third save now conflicts: the other writer built on it.
	if err := s.SaveHistory(ctx, hist); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("retry after another writer continued: %v, want ErrConflict", err)
	}
	assertStored(t, other, got)
}

// assertStored checks that the stored history is want: revision, transcript, and a document
// pointing at the object's generation with no pending mark left.
func assertStored(t *testing.T, s *Store, want *record.History) {
	t.Helper()
	ctx := context.Background()
	got, err := s.GetHistory(ctx, want.ID)
	if err != nil {
		t.Fatal(err)
	}
	wj, _ := json.Marshal(want.Contents)
	gj, _ := json.Marshal(got.Contents)
	if got.Revision != want.Revision || !bytes.Equal(gj, wj) || got.MessageCount != want.MessageCount || got.ContentVersion != want.ContentVersion {
		t.Fatalf("stored: revision %d, %d messages, generation %d; want %d, %d, %d",
			got.Revision, got.MessageCount, got.ContentVersion, want.Revision, want.MessageCount, want.ContentVersion)
	}
	snap, err := s.histories().Doc(string(want.ID)).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Data()["object_generation"] != want.ContentVersion {
		t.Fatalf("metadata points at generation %v, the object is at %d", snap.Data()["object_generation"], want.ContentVersion)
	}
	if _, ok := snap.Data()[pendingField]; ok {
		t.Fatalf("%s left on the document", pendingField)
	}
}
