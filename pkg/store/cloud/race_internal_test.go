package cloud

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Writer A has written its object but not yet its metadata. Writer B loads A's pending object,
// writes its own object on top, and waits; A's metadata write must then fail (B's object is
// not A's content), and B's succeed, so the metadata describes the object it points at and the
// loser wrote nothing that the winner did not include.
func TestWriterOfPendingContentWins(t *testing.T) {
	ctx := context.Background()
	fs := testenv.Firestore(t)
	_, sc := testenv.GCS(t)
	bucket := sc.Bucket(testenv.Bucket)
	open := func() *Store {
		s, err := New(Config{Firestore: fs, Bucket: bucket, Workspace: "ws"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := open(), open()
	base := storetest.NewHistory("alert-1", storetest.EveryPartKind())
	if err := a.SaveHistory(ctx, base); err != nil {
		t.Fatal(err)
	}
	ha, err := a.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	ha.Contents = append(ha.Contents, genai.NewContentFromText("from a", genai.RoleUser))
	ha.MessageCount = len(ha.Contents)

	var (
		bWrote   = make(chan struct{})
		bWroteFn = sync.OnceFunc(func() { close(bWrote) })
		aDone    = make(chan struct{})
		bErr     = make(chan error, 1)
		hb       *record.History
	)
	b.afterObjectWrite = func(record.HistoryID) { bWroteFn(); <-aDone }
	a.afterObjectWrite = func(record.HistoryID) {
		go func() {
			defer bWroteFn()
			got, err := b.GetHistory(ctx, base.ID)
			if err != nil {
				bErr <- err
				return
			}
			if len(got.Contents) != len(ha.Contents) || got.Revision != 1 {
				t.Errorf("B did not load A's pending object: %d contents, revision %d", len(got.Contents), got.Revision)
			}
			got.Contents = append(got.Contents, genai.NewContentFromText("from b", genai.RoleModel))
			got.MessageCount = len(got.Contents)
			hb = got
			bErr <- b.SaveHistory(ctx, got)
		}()
		<-bWrote
	}
	errA := a.SaveHistory(ctx, ha)
	close(aDone)
	errB := <-bErr
	if !errors.Is(errA, store.ErrConflict) || errB != nil {
		t.Fatalf("A: %v (want ErrConflict), B: %v (want success)", errA, errB)
	}
	final, err := a.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(hb.Contents)
	got, _ := json.Marshal(final.Contents)
	if !bytes.Equal(got, want) || final.Revision != 2 || final.MessageCount != hb.MessageCount || final.ContentVersion != hb.ContentVersion {
		t.Fatalf("stored history is not B's: revision %d, %d messages, generation %d (B: %d, %d, %d)",
			final.Revision, final.MessageCount, final.ContentVersion, hb.Revision, hb.MessageCount, hb.ContentVersion)
	}
	snap, err := fs.Collection(historiesCollection).Doc(string(base.ID)).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Data()["object_generation"] != final.ContentVersion {
		t.Fatalf("metadata points at generation %v, the object is at %d", snap.Data()["object_generation"], final.ContentVersion)
	}
}
