package local

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// seedConcluded inserts n metadata rows as SaveHistory writes them (the row with its verdict
// columns, and its analysts), in one transaction: a fifth of them false positives, a fifth
// benign, the rest open; questions asked by one of 20 analysts.
func seedConcluded(b *testing.B, s *Store, n int) {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	base := store.Now().Add(-time.Duration(n) * time.Second)
	verdicts := []record.Verdict{record.VerdictFalsePositive, record.VerdictBenign, "", "", ""}
	for i := range n {
		at := base.Add(time.Duration(i) * time.Second)
		h := &record.History{ID: store.NewHistoryID(), Workspace: s.workspace, AlertID: record.AlertID(fmt.Sprintf("alert-%d", i%200)),
			Title: "Port probe from 203.0.113.7", CreatedAt: at, UpdatedAt: at, MessageCount: 4, Revision: 1,
			Questions: []record.Question{{Content: 0, Analyst: fmt.Sprintf("analyst-%d", i%20), At: at}}}
		if v := verdicts[i%len(verdicts)]; v != "" {
			h.Resolution = &record.Resolution{Verdict: v, ResolvedBy: "lead", ResolvedAt: at}
		}
		meta, _ := json.Marshal(h)
		verdict, resolvedAt := resolutionColumns(h)
		if _, err := tx.ExecContext(ctx, `INSERT INTO histories (id, workspace, alert_id, updated_at, revision, meta, verdict, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			string(h.ID), h.Workspace, string(h.AlertID), micros(h.UpdatedAt), h.Revision, string(meta), verdict, resolvedAt); err != nil {
			b.Fatal(err)
		}
		if err := s.writeAnalystsTx(ctx, tx, h); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkListByVerdict100k is the store's work of history list --verdict false_positive (and
// --open, --analyst, and all histories for comparison) among 100,000 histories: the first page
// of 50 and the count of the "50 of N" note.
func BenchmarkListByVerdict100k(b *testing.B) {
	const n = 100_000
	s := benchStore(b)
	seedConcluded(b, s, n)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		q    store.HistoryQuery
	}{
		{"all", store.HistoryQuery{}},
		{"verdict=false_positive", store.HistoryQuery{Verdict: record.VerdictFalsePositive}},
		{"open", store.HistoryQuery{Open: true}},
		{"analyst", store.HistoryQuery{Analyst: "analyst-7"}},
		{"alert+verdict", store.HistoryQuery{AlertID: "alert-5", Verdict: record.VerdictFalsePositive}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q := tc.q
			q.Limit = 50
			for b.Loop() {
				page, err := s.ListHistories(ctx, q)
				if err != nil || len(page.Histories) != 50 || page.NextCursor == "" {
					b.Fatalf("%v, %d", err, len(page.Histories))
				}
				if _, err := s.CountHistories(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAlertInvestigations sums up a page of 50 alerts (alert list -o json) among 100,000
// histories.
func BenchmarkAlertInvestigations(b *testing.B) {
	s := benchStore(b)
	seedConcluded(b, s, 100_000)
	ids := make([]record.AlertID, 50)
	for i := range ids {
		ids[i] = record.AlertID(fmt.Sprintf("alert-%d", i))
	}
	ctx := context.Background()
	for b.Loop() {
		got, err := s.AlertInvestigations(ctx, ids)
		if err != nil || len(got) != 50 {
			b.Fatal(err)
		}
	}
}
