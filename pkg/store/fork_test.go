package store_test

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// A turn whose metadata write lost to a change of metadata only (a resolve that loaded the
// turn's transcript while the turn's metadata was still on its way, as the cloud store allows)
// finds its transcript stored under older metadata: it writes its metadata again, keeping the
// verdict, instead of taking the stored history as its own earlier save.
func TestSaveOrForkMendsMetadataBehindItsTranscript(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := storetest.NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("q1", genai.RoleUser), genai.NewContentFromText("a1", genai.RoleModel)})
	base.Questions = []record.Question{{Content: 0, Analyst: "alice"}}
	storetest.Save(t, s, base)

	turn, err := s.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	turn.Contents = append(turn.Contents, genai.NewContentFromText("q2", genai.RoleUser), genai.NewContentFromText("a2", genai.RoleModel))
	turn.Questions = append(turn.Questions, record.Question{Content: 2, Analyst: "bob"})
	turn.MessageCount = len(turn.Contents)
	turn.Usage = record.Usage{InputTokens: 40, OutputTokens: 4}

	// The resolve: the turn's transcript, the metadata from before the turn.
	resolve, err := s.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	resolve.Contents = turn.Contents
	resolve.Resolution = &record.Resolution{Verdict: record.VerdictBenign, ResolvedBy: "carol", ResolvedAt: store.Now()}
	storetest.Save(t, s, resolve)

	res, err := store.SaveOrFork(ctx, s, turn, nil)
	if err != nil || res.ForkedFrom != "" {
		t.Fatalf("SaveOrFork: %v, forked from %q", err, res.ForkedFrom)
	}
	got, err := s.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Analysts(), []string{"alice", "bob"}) || got.MessageCount != 4 || got.Usage != turn.Usage ||
		got.Verdict() != record.VerdictBenign || len(got.Contents) != 4 {
		t.Fatalf("stored %+v", got.Meta())
	}

	// A history that already holds the turn, metadata and all (a spool flushed earlier), is
	// left as it is.
	again := got.Meta()
	again.Contents = got.Contents
	again.Revision = 1 // stale
	before := got.Revision
	if res, err := store.SaveOrFork(ctx, s, again, nil); err != nil || res.History.Revision != before {
		t.Fatalf("a save of what is stored: %v, revision %d (was %d)", err, res.History.Revision, before)
	}
}
