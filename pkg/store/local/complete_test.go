package local_test

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func seedHistories(tb testing.TB, n int) string {
	tb.Helper()
	ctx := context.Background()
	dir := tb.TempDir()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		h := storetest.NewHistory(record.AlertID(fmt.Sprintf("alert-%d", i%50)), []*genai.Content{genai.NewContentFromText("q", genai.RoleUser)})
		h.Title = fmt.Sprintf("Investigation %d of a GuardDuty finding", i)
		if err := s.SaveHistory(ctx, h); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func TestRecentIDs(t *testing.T) {
	t.Parallel()
	dir := seedHistories(t, 3)
	got, err := local.RecentIDs(context.Background(), dir, "default", local.KindHistories, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Title != "Investigation 2 of a GuardDuty finding" || got[1].Title != "Investigation 1 of a GuardDuty finding" {
		t.Fatalf("got %+v, want the two newest with their titles", got)
	}
	if other, err := local.RecentIDs(context.Background(), dir, "other", local.KindHistories, 10); err != nil || len(other) != 0 {
		t.Fatalf("another workspace sees %+v, %v", other, err)
	}
	if none, err := local.RecentIDs(context.Background(), t.TempDir(), "default", local.KindAlerts, 10); err != nil || none != nil {
		t.Fatalf("no database: %+v, %v", none, err)
	}
}

// BenchmarkRecentIDs is what a TAB after "history show" costs in the store, on 10,000
// histories: opening the database read-only and reading the newest 200 by the update index.
func BenchmarkRecentIDs(b *testing.B) {
	dir := seedHistories(b, 10_000)
	ctx := context.Background()
	for b.Loop() {
		ids, err := local.RecentIDs(ctx, dir, "default", local.KindHistories, 200)
		if err != nil || len(ids) != 200 {
			b.Fatal(len(ids), err)
		}
	}
}
