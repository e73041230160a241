package fsck

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// TestCheckKnowledge: an entry an outside hand emptied is a problem fsck names and leaves for a
// person; a lesson whose history was deleted is a note; a sound entry and a lesson whose history
// exists are not reported.
func TestCheckKnowledge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	kept := storetest.NewHistory("a", storetest.Transcript(2))
	gone := storetest.NewHistory("a", storetest.Transcript(2))
	storetest.Save(t, s, kept)
	storetest.Save(t, s, gone)
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	entries := []*record.Knowledge{
		{ID: "a0000000-0000-4000-8000-000000000001", Text: "sound", CreatedAt: at},
		{ID: "a0000000-0000-4000-8000-000000000002", Text: "lesson kept", CreatedAt: at, Source: &record.KnowledgeSource{HistoryID: kept.ID, Verdict: record.VerdictBenign}},
		{ID: "a0000000-0000-4000-8000-000000000003", Text: "lesson of a deleted history", CreatedAt: at, Source: &record.KnowledgeSource{HistoryID: gone.ID, Verdict: record.VerdictBenign}},
		{ID: "a0000000-0000-4000-8000-000000000004", Text: strings.Repeat("x", record.MaxKnowledgeText+1), CreatedAt: at},
	}
	for _, e := range entries {
		if err := s.PutKnowledge(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteHistory(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	fs, err := Check(ctx, s, Options{Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	k := kinds(fs)
	if bad := k[KindBadKnowledge]; len(bad) != 1 || bad[0].Key != "knowledge/a0000000-0000-4000-8000-000000000004" || !bad[0].Problem {
		t.Errorf("invalid entries: %+v", bad)
	}
	if src := k[KindLessonSource]; len(src) != 1 || src[0].HistoryID != gone.ID || src[0].Problem {
		t.Errorf("lessons without their history: %+v", src)
	}
	if len(fs) != 2 {
		t.Errorf("findings %+v, want the two above", fs)
	}
}
