package cloud

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/api/option"
	"google.golang.org/genai"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// countingStore is a store on the emulator whose Firestore client counts the documents its
// queries return. On the emulator the client dials its own connection and ignores dial options:
// it is given one that counts.
func countingStore(tb testing.TB) (*Store, *firestore.Client, *readCounter) {
	tb.Helper()
	reads := &readCounter{}
	conn, err := grpc.NewClient(testenv.FirestoreHost(tb), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(emulatorOwner{}), grpc.WithStreamInterceptor(reads.intercept))
	if err != nil {
		tb.Fatal(err)
	}
	fs, err := firestore.NewClient(context.Background(), testenv.NewProjectID(), option.WithGRPCConn(conn))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = fs.Close() })
	_, sc := testenv.GCS(tb)
	s, err := New(Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Workspace: "default"})
	if err != nil {
		tb.Fatal(err)
	}
	return s, fs, reads
}

// seedConcluded writes histories from..to of the workspace's documents directly (a third
// false positives asked by alice, a third benign asked by bob, a third open), as saves write
// them.
func seedConcluded(tb testing.TB, s *Store, fs *firestore.Client, from, to int) {
	tb.Helper()
	ctx := context.Background()
	bw := fs.BulkWriter(ctx)
	base := store.Now()
	verdicts := []record.Verdict{record.VerdictFalsePositive, record.VerdictBenign, ""}
	analysts := []string{"alice", "bob", "carol"}
	for i := from; i < to; i++ {
		h := &record.History{ID: store.NewHistoryID(), AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%20)), Title: "Port probe",
			CreatedAt: base, UpdatedAt: base.Add(-secondsAgo(i)), MessageCount: 2,
			Questions: []record.Question{{Content: 0, Analyst: analysts[i%3], At: base}},
			Contents:  []*genai.Content{genai.NewContentFromText("who owns 203.0.113.7?", genai.RoleUser), genai.NewContentFromText("a scanner", genai.RoleModel)}}
		if v := verdicts[i%3]; v != "" {
			h.Resolution = &record.Resolution{Verdict: v, ResolvedBy: "dave", ResolvedAt: base}
		}
		doc := newHistoryDoc(h, "default", 1, 1)
		indexDoc(doc, nil, h)
		if _, err := bw.Create(s.histories().Doc(string(h.ID)), doc); err != nil {
			tb.Fatal(err)
		}
	}
	bw.End()
}

func secondsAgo(i int) time.Duration { return time.Duration(i) * time.Second }

// TestListByVerdictReadsBounded counts the documents one history list --verdict false_positive
// (its page, and the count of the "50 of N" note) reads on the emulator, among 100 and then 300
// histories: one query reading the page and its one look-ahead, the same for both.
func TestListByVerdictReadsBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, fs, reads := countingStore(t)
	stored := 0
	var perList []int64
	for _, n := range []int{100, 300} {
		seedConcluded(t, s, fs, stored, n)
		stored = n
		for _, q := range []store.HistoryQuery{
			{Verdict: record.VerdictFalsePositive, Limit: 20},
			{Open: true, Limit: 20},
			{Analyst: "bob", Limit: 20},
			{Verdict: record.VerdictBenign, Analyst: "bob", AlertID: "alert-1", Limit: 20},
		} {
			reads.n.Store(0)
			page, err := s.ListHistories(ctx, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			got := reads.n.Load()
			if q.AlertID == "" && (len(page.Histories) != 20 || page.NextCursor == "") || got > int64(q.Limit)+1 {
				t.Fatalf("%d histories, %+v: %d listed, %d documents read", n, q, len(page.Histories), got)
			}
			for _, h := range page.Histories {
				if q.Verdict != "" && h.Verdict() != q.Verdict || q.Open && h.Resolution != nil || q.Analyst != "" && h.Analysts()[0] != q.Analyst {
					t.Fatalf("%+v listed %+v", q, h)
				}
			}
			if q.Verdict == record.VerdictFalsePositive {
				perList = append(perList, got)
				reads.n.Store(0)
				if c, err := s.CountHistories(ctx, q); err != nil || c != (n+2)/3 || reads.n.Load() != 0 {
					t.Fatalf("count of %d: %d, %v, %d documents read", n, c, err, reads.n.Load())
				}
			}
		}
	}
	if perList[0] != perList[1] {
		t.Fatalf("documents read by one listing among 100 and 300 histories: %v", perList)
	}
	t.Logf("documents read by one history list --verdict false_positive --limit 20: %v", perList)
}

// BenchmarkListByVerdictReads reports the documents one listing of false positives (a page of
// 50, the default) reads among 1,000 and 10,000 histories. Its time means little: the
// emulator does not use the indexes real Firestore does.
func BenchmarkListByVerdictReads(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("histories=%d", n), func(b *testing.B) {
			s, fs, reads := countingStore(b)
			seedConcluded(b, s, fs, 0, n)
			ctx := context.Background()
			reads.n.Store(0)
			for b.Loop() {
				page, err := s.ListHistories(ctx, store.HistoryQuery{Verdict: record.VerdictFalsePositive, Limit: 50})
				if err != nil || len(page.Histories) != 50 {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(reads.n.Load())/float64(b.N), "reads/list")
		})
	}
}
