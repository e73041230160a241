package cloud

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/google/uuid"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var benchSizes = []struct {
	name string
	size int
}{
	{"100KB", 100 << 10},
	{"1MB", 1 << 20},
	{"10MB", 10 << 20},
}

func benchStore(b *testing.B) *Store {
	b.Helper()
	fs := testenv.Firestore(b)
	_, sc := testenv.GCS(b)
	s, err := New(Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Prefix: "bench/", Workspace: "ws"})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkSaveHistory measures an update of an existing history (the save after each turn):
// conditional object write, conditional metadata update.
func BenchmarkSaveHistory(b *testing.B) {
	ctx := context.Background()
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			s := benchStore(b)
			h := storetest.NewHistory("alert-1", storetest.Transcript(bs.size))
			if err := s.SaveHistory(ctx, h); err != nil {
				b.Fatal(err)
			}
			if err := s.SaveHistory(ctx, h); err != nil { // warm the update path
				b.Fatal(err)
			}
			data, _ := store.EncodeTranscript(h.Contents)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				h.UpdatedAt = store.Now()
				if err := s.SaveHistory(ctx, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadHistory measures GetHistory: metadata and object read at once, transcript
// decode.
func BenchmarkLoadHistory(b *testing.B) {
	ctx := context.Background()
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			s := benchStore(b)
			h := storetest.NewHistory("alert-1", storetest.Transcript(bs.size))
			if err := s.SaveHistory(ctx, h); err != nil {
				b.Fatal(err)
			}
			if _, err := s.GetHistory(ctx, h.ID); err != nil { // warm the read path
				b.Fatal(err)
			}
			data, _ := store.EncodeTranscript(h.Contents)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				got, err := s.GetHistory(ctx, h.ID)
				if err != nil {
					b.Fatal(err)
				}
				if len(got.Contents) != len(h.Contents) {
					b.Fatalf("%d contents, want %d", len(got.Contents), len(h.Contents))
				}
			}
		})
	}
}

const benchAlerts = 10

// seedHistories writes n history documents, exactly as SaveHistory writes them, in one
// workspace of a fresh project, spread over benchAlerts alerts, one second apart. It returns
// the store and the cursor of the middle of the listing.
func seedHistories(b *testing.B, n int) (*Store, string) {
	b.Helper()
	ctx := context.Background()
	s := benchStore(b)
	start := time.Now()
	bw := s.fs.BulkWriter(ctx)
	base := store.Now().Add(-time.Duration(n) * time.Second)
	var middle string
	jobs := make([]*firestore.BulkWriterJob, 0, n)
	for i := range n {
		h := &record.History{
			ID: record.HistoryID(uuid.NewString()), AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%benchAlerts)),
			Title: fmt.Sprintf("Suspicious DNS query %d", i), TitleSource: record.TitleGenerated,
			CreatedAt: base.Add(time.Duration(i) * time.Second), UpdatedAt: base.Add(time.Duration(i) * time.Second),
			MessageCount: 6, Usage: record.Usage{InputTokens: 12000, OutputTokens: 900},
			Redactions: map[string]int{"EMAIL": 1}, RedactedCount: 6,
		}
		if i == n/2 {
			middle = store.EncodeCursor(h.UpdatedAt, string(h.ID))
		}
		job, err := bw.Create(s.histories().Doc(string(h.ID)), newHistoryDoc(h, s.workspace, 1, int64(1000+i)))
		if err != nil {
			b.Fatal(err)
		}
		jobs = append(jobs, job)
	}
	bw.End()
	for _, j := range jobs {
		if _, err := j.Results(); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d histories in %s", n, time.Since(start).Round(time.Millisecond))
	return s, middle
}

// BenchmarkListHistories measures one page of 50 among 1,000 and among 10,000 histories: the
// first page, a page from the middle (cursor), and the first page of one alert. Each is one
// query with a limit of 51 on an index in real Firestore. The emulator has no indexes and
// scans the collection for every query (even a bare Limit(51) grows with the collection), so
// its ns/op grows with n; B/op and allocs/op show this side stays flat.
func BenchmarkListHistories(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1000, 10000} {
		s, middle := seedHistories(b, n)
		for _, c := range []struct {
			name string
			q    store.HistoryQuery
		}{
			{"first", store.HistoryQuery{Limit: 50}},
			{"middle", store.HistoryQuery{Limit: 50, Cursor: middle}},
			{"alert", store.HistoryQuery{Limit: 50, AlertID: "alert-3"}},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				if _, err := s.ListHistories(ctx, c.q); err != nil { // warm the emulator's query path
					b.Fatal(err)
				}
				for b.Loop() {
					page, err := s.ListHistories(ctx, c.q)
					if err != nil {
						b.Fatal(err)
					}
					if len(page.Histories) != 50 || page.NextCursor == "" {
						b.Fatalf("page of %d, cursor %q", len(page.Histories), page.NextCursor)
					}
				}
			})
		}
	}
}
