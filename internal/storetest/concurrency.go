package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Concurrency contract: two writers never silently overwrite each other; a stale save, or a
// save after another writer saved or deleted, writes nothing.

func conflictRound(t *testing.T, s1, s2 store.Store, base *record.History) {
	ctx := context.Background()
	c1, err := s1.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := s2.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	c1.Contents = append(c1.Contents, genai.NewContentFromText("writer one", genai.RoleUser))
	c1.MessageCount = len(c1.Contents)
	c2.Contents = append(c2.Contents, genai.NewContentFromText("writer two", genai.RoleUser), genai.NewContentFromText("two b", genai.RoleModel))
	c2.MessageCount = len(c2.Contents)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, c := range []*record.History{c1, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := s1
			if i == 1 {
				s = s2
			}
			errs[i] = s.SaveHistory(ctx, c)
		}()
	}
	wg.Wait()
	var winner *record.History
	switch {
	case errs[0] == nil && errors.Is(errs[1], store.ErrConflict):
		winner = c1
	case errs[1] == nil && errors.Is(errs[0], store.ErrConflict):
		winner = c2
	default:
		t.Fatalf("want exactly one winner and one ErrConflict, got %v and %v", errs[0], errs[1])
	}
	got, err := s1.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, winner.Contents)) {
		t.Fatal("stored transcript is not the winner's")
	}
	if got.MessageCount != winner.MessageCount || got.Revision != winner.Revision {
		t.Fatalf("stored metadata is not the winner's: %d/%d vs %d/%d", got.MessageCount, got.Revision, winner.MessageCount, winner.Revision)
	}
}

func testConflictingSaves(t *testing.T, h *Harness) {
	s1, s2 := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	base := NewHistory("alert-1", EveryPartKind())
	Save(t, s1, base)
	for range 3 {
		conflictRound(t, s1, s2, base)
	}
}

func testConflictingCreates(t *testing.T, h *Harness) {
	ctx := context.Background()
	s1, s2 := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	one := NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("one", genai.RoleUser)})
	two := one.Meta()
	two.Contents = []*genai.Content{genai.NewContentFromText("two", genai.RoleUser)}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, pair := range []struct {
		s store.Store
		h *record.History
	}{{s1, one}, {s2, two}} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = pair.s.SaveHistory(ctx, pair.h) }()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("want exactly one create to win, got errors %v", errs)
	}
	winner := one
	if errs[0] != nil {
		winner = two
	}
	got, err := s1.GetHistory(ctx, one.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, winner.Contents)) {
		t.Fatal("stored transcript is not the winner's")
	}
}

func testStaleSaveWritesNothing(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, s, hist)
	stale := hist.Meta()
	stale.Contents = hist.Contents
	hist.Contents = append(hist.Contents, genai.NewContentFromText("fresh", genai.RoleUser))
	hist.MessageCount++
	Save(t, s, hist)
	obj, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))

	stale.Contents = append(stale.Contents, genai.NewContentFromText("stale", genai.RoleUser))
	stale.Title = "stale"
	if err := s.SaveHistory(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v, want ErrConflict", err)
	}
	after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))
	if !bytes.Equal(obj, after) {
		t.Fatal("stale save changed the transcript object")
	}
	got, err := s.GetHistoryMeta(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != hist.Title || got.Revision != hist.Revision || got.MessageCount != hist.MessageCount {
		t.Fatalf("stale save changed metadata: %+v", got)
	}
}

// A store may remember what it loaded to save without reading again; what another store (or
// process) wrote since must still make that save a conflict, and a fresh load must save.
func testSaveAfterAnotherWriter(t *testing.T, h *Harness) {
	ctx := context.Background()
	mine, other := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	base := NewHistory("alert-1", EveryPartKind())
	Save(t, mine, base)
	for round := range 3 {
		loaded, err := mine.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := other.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		theirs.Contents = append(theirs.Contents, genai.NewContentFromText(fmt.Sprintf("theirs %d", round), genai.RoleUser))
		theirs.MessageCount = len(theirs.Contents)
		Save(t, other, theirs)
		obj, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, base.ID))

		loaded.Contents = append(loaded.Contents, genai.NewContentFromText("mine", genai.RoleUser))
		loaded.MessageCount = len(loaded.Contents)
		if err := mine.SaveHistory(ctx, loaded); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("round %d: save over another writer's turn: %v, want ErrConflict", round, err)
		}
		if after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, base.ID)); !bytes.Equal(obj, after) {
			t.Fatalf("round %d: the conflicting save changed the transcript", round)
		}
		got, err := mine.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Revision != theirs.Revision || !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, theirs.Contents)) {
			t.Fatalf("round %d: stored revision %d, want the other writer's %d and its transcript", round, got.Revision, theirs.Revision)
		}
		// Saved twice in a row from the fresh load: the second save builds on the first.
		for range 2 {
			got.Contents = append(got.Contents, genai.NewContentFromText("mine again", genai.RoleUser))
			got.MessageCount = len(got.Contents)
			Save(t, mine, got)
		}
		if m, err := other.GetHistoryMeta(ctx, base.ID); err != nil || m.Revision != got.Revision || m.MessageCount != got.MessageCount {
			t.Fatalf("round %d: after saving a fresh load: %v %+v, want revision %d", round, err, m, got.Revision)
		}
	}
}

// A save of a history that another store deleted since it was loaded writes nothing: it is a
// conflict or not found, never a resurrection.
func testSaveAfterDelete(t *testing.T, h *Harness) {
	ctx := context.Background()
	mine, other := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, mine, hist)
	loaded, err := mine.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteHistory(ctx, hist.ID); err != nil {
		t.Fatal(err)
	}
	loaded.Contents = append(loaded.Contents, genai.NewContentFromText("late", genai.RoleUser))
	err = mine.SaveHistory(ctx, loaded)
	if !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("save of a deleted history: %v, want ErrConflict or ErrNotFound", err)
	}
	if _, ok := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID)); ok {
		t.Fatal("the save recreated the deleted transcript")
	}
	if _, err := other.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the save recreated the deleted metadata: %v", err)
	}
}
