package local

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var benchSizes = []struct {
	name string
	size int
}{{"100KB", 100 << 10}, {"1MB", 1 << 20}, {"10MB", 10 << 20}}

func benchStore(b *testing.B) *Store {
	s, err := Open(context.Background(), Options{Dir: b.TempDir(), Workspace: "default"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkWriteFileSync is the yardstick for BenchmarkSaveHistory: the same bytes written with
// os.WriteFile and an fsync.
func BenchmarkWriteFileSync(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			data, err := store.EncodeTranscript(storetest.Transcript(sz.size))
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "x.json")
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := os.WriteFile(path, data, 0o600); err != nil {
					b.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

func BenchmarkSaveHistory(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			s := benchStore(b)
			h := storetest.NewHistory("alert", storetest.Transcript(sz.size))
			data, _ := store.EncodeTranscript(h.Contents)
			b.SetBytes(int64(len(data)))
			ctx := context.Background()
			for b.Loop() {
				if err := s.SaveHistory(ctx, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoadHistory(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			s := benchStore(b)
			h := storetest.NewHistory("alert", storetest.Transcript(sz.size))
			ctx := context.Background()
			if err := s.SaveHistory(ctx, h); err != nil {
				b.Fatal(err)
			}
			data, _ := store.EncodeTranscript(h.Contents)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := s.GetHistory(ctx, h.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// seedHistories inserts n metadata rows exactly as SaveHistory writes them, in one transaction.
func seedHistories(b *testing.B, s *Store, n int) {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	base := store.Now().Add(-time.Duration(n) * time.Second)
	for i := range n {
		h := &record.History{ID: store.NewHistoryID(), Workspace: s.workspace, AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%20)),
			Title: "Suspicious DNS query", CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Second), MessageCount: 4, Revision: 1}
		meta, _ := json.Marshal(h)
		if _, err := tx.ExecContext(ctx, `INSERT INTO histories (id, workspace, alert_id, updated_at, revision, meta) VALUES (?, ?, ?, ?, ?, ?)`,
			string(h.ID), h.Workspace, string(h.AlertID), micros(h.UpdatedAt), h.Revision, string(meta)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkListHistories(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("page50of%d", n), func(b *testing.B) {
			s := benchStore(b)
			seedHistories(b, s, n)
			ctx := context.Background()
			for b.Loop() {
				page, err := s.ListHistories(ctx, store.HistoryQuery{Limit: 50})
				if err != nil || len(page.Histories) != 50 {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("byAlertPage50of%d", n), func(b *testing.B) {
			s := benchStore(b)
			seedHistories(b, s, n)
			ctx := context.Background()
			for b.Loop() {
				if _, err := s.ListHistories(ctx, store.HistoryQuery{Limit: 50, AlertID: "alert-7"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
