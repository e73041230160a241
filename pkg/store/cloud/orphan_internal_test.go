package cloud

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// A process dies between a new history's object write and its metadata write (a remote
// batch's collector, which saves new histories under IDs derived from the job, so its rerun
// creates the same IDs again). The rerun adopts the object when it holds an earlier state of
// what is saved, and makes exactly one history; an object it does not continue, or of another
// workspace, is left alone and the save forks, as before.
func TestCreateAdoptsOrphanObject(t *testing.T) {
	t.Parallel()
	type attempt struct {
		workspace string
		extra     []*genai.Content // the rerun saves the crashed contents plus these
		replace   bool             // the rerun saves other contents instead
	}
	tests := []struct {
		name    string
		rerun   attempt
		adopted bool
	}{
		{"same contents", attempt{workspace: "ws"}, true},
		{"contents continued", attempt{workspace: "ws", extra: []*genai.Content{genai.NewContentFromText("and more", genai.RoleUser)}}, true},
		{"other contents", attempt{workspace: "ws", replace: true}, false},
		{"another workspace", attempt{workspace: "other"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			fs := testenv.Firestore(t)
			_, sc := testenv.GCS(t)
			open := func(ws string) *Store {
				s, err := New(Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Workspace: ws, Prefix: "p/"})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			crashed := open("ws")
			id := record.HistoryID("6f1c2a4e-8d0b-5c52-9a57-3b8e0f6d2c19") // derived, as a collector's
			newHistory := func() *record.History {
				h := storetest.NewHistory("alert-1", storetest.EveryPartKind())
				h.ID = id
				h.CreatedAt = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
				h.UpdatedAt = h.CreatedAt
				return h
			}
			// The crash: the context ends right after the object write.
			crashCtx, cancel := context.WithCancel(ctx)
			crashed.afterObjectWrite = func(record.HistoryID) { cancel() }
			if err := crashed.SaveHistory(crashCtx, newHistory()); err == nil {
				t.Fatal("a save whose process died reported success")
			}
			if _, err := crashed.GetHistoryMeta(ctx, id); err == nil {
				t.Fatal("metadata written despite the crash")
			}

			// The rerun: a new process, the history built again from scratch.
			s := open(tt.rerun.workspace)
			h := newHistory()
			if tt.rerun.replace {
				h.Contents = []*genai.Content{genai.NewContentFromText("something else", genai.RoleUser)}
			}
			h.Contents = append(h.Contents, tt.rerun.extra...)
			h.MessageCount = len(h.Contents)
			for round := range 2 { // and again: nothing multiplies
				res, err := store.SaveOrFork(ctx, s, h, nil)
				if err != nil {
					t.Fatalf("rerun %d: %v", round, err)
				}
				if tt.adopted != (res.ForkedFrom == "") || tt.adopted != (res.History.ID == id) {
					t.Fatalf("rerun %d: saved as %s (forked from %q), adopted %v", round, res.History.ID, res.ForkedFrom, tt.adopted)
				}
				h = newHistory()
				if tt.rerun.replace {
					h.Contents = []*genai.Content{genai.NewContentFromText("something else", genai.RoleUser)}
				}
				h.Contents = append(h.Contents, tt.rerun.extra...)
				h.MessageCount = len(h.Contents)
				if !tt.adopted {
					break // a fork is a new history each time, as before: nothing to adopt
				}
			}
			page, err := s.ListHistories(ctx, store.HistoryQuery{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if tt.adopted {
				if len(page.Histories) != 1 || page.Histories[0].ID != id {
					t.Fatalf("%d histories, want exactly %s", len(page.Histories), id)
				}
				got, err := s.GetHistory(ctx, id)
				if err != nil || len(got.Contents) != len(h.Contents) || got.Revision != 1 {
					t.Fatalf("adopted history: %+v, %v", got, err)
				}
				return
			}
			// Left alone: the orphan is still there for fsck, untouched.
			if _, err := crashed.bucket.Object(store.ObjectKey("p/", id)).Attrs(ctx); err != nil {
				t.Fatalf("orphan object: %v", err)
			}
			if _, err := crashed.GetHistoryMeta(ctx, id); err == nil {
				t.Fatal("the orphan got metadata")
			}
		})
	}
}
