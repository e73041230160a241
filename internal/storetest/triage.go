package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Triage contract: an alert's triage is written conditionally on the one it has (prev), so
// that two runs racing on one alert leave one triage; a retry of a write that went through
// succeeds; a missing alert or one of another workspace is ErrNotFound. Listings carry the
// triage, and select the untriaged alerts (with Open, newest first, paged) or those of one
// proposed verdict; GetAlert returns the alert as stored.
func testAlertTriage(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	other := h.Open(t, "ws-b")
	var all []*record.Alert
	for i := range 12 {
		status := ""
		if i%5 == 4 {
			status = "archived"
		}
		all = append(all, &record.Alert{ID: record.AlertID(fmt.Sprintf("tri-%02d", i)), Title: fmt.Sprintf("t%d", i), Status: status,
			Severity: []string{"high", "low"}[i%2], Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), CreatedAt: store.Now().Add(time.Duration(i-100) * time.Second)})
	}
	if _, err := s.PutAlerts(ctx, all); err != nil {
		t.Fatal(err)
	}
	at := store.Now()
	triage := func(hid string, v record.Verdict) *record.AlertTriage {
		return &record.AlertTriage{HistoryID: record.HistoryID(hid), Verdict: v, Confidence: 0.82, Model: "gemini-3.8-flash", At: at}
	}

	if got, err := s.AlertTriage(ctx, "tri-03"); err != nil || got != nil {
		t.Fatalf("an untriaged alert's triage: %+v %v", got, err)
	}
	if err := s.TriageAlert(ctx, "tri-03", triage("h-1", record.VerdictFalsePositive), ""); err != nil {
		t.Fatal(err)
	}
	// The same write again (an attempt whose answer was lost) succeeds without a change.
	if err := s.TriageAlert(ctx, "tri-03", triage("h-1", record.VerdictFalsePositive), ""); err != nil {
		t.Fatalf("the write repeated: %v", err)
	}
	// Another run that saw no triage loses, and writes nothing.
	if err := s.TriageAlert(ctx, "tri-03", triage("h-2", record.VerdictTruePositive), ""); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second triage: %v, want ErrConflict", err)
	}
	got, err := s.AlertTriage(ctx, "tri-03")
	if err != nil || got == nil || got.HistoryID != "h-1" || got.Verdict != record.VerdictFalsePositive || got.Confidence != 0.82 ||
		got.Model != "gemini-3.8-flash" || !got.At.Equal(at) {
		t.Fatalf("triage: %+v %v", got, err)
	}
	// A retriage names the triage it replaces.
	if err := s.TriageAlert(ctx, "tri-03", triage("h-3", record.VerdictBenign), "h-1"); err != nil {
		t.Fatalf("retriage: %v", err)
	}
	if err := s.TriageAlert(ctx, "tri-03", triage("h-4", record.VerdictBenign), "h-1"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a retriage of a replaced triage: %v, want ErrConflict", err)
	}
	if err := s.TriageAlert(ctx, "tri-05", triage("h-5", record.VerdictBenign), ""); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"missing alert":   s.TriageAlert(ctx, "no-such-alert", triage("h-9", record.VerdictBenign), ""),
		"other workspace": other.TriageAlert(ctx, "tri-07", triage("h-9", record.VerdictBenign), ""),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
	if _, err := other.AlertTriage(ctx, "tri-03"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another workspace reads the triage: %v", err)
	}
	if a, err := s.GetAlert(ctx, "tri-03"); err != nil || a.Triage != nil || string(a.Data) != `{"n":3}` {
		t.Fatalf("GetAlert: %+v %v", a, err)
	}

	triaged := map[record.AlertID]record.Verdict{"tri-03": record.VerdictBenign, "tri-05": record.VerdictBenign}
	for _, q := range []store.AlertQuery{
		{Untriaged: true},
		{Untriaged: true, Open: true},
		{Untriaged: true, Open: true, Severities: []string{"high"}},
		{Triage: record.VerdictBenign},
		{Triage: record.VerdictBenign, Severities: []string{"low"}},
		{Triage: record.VerdictFalsePositive},
	} {
		var want []record.AlertID
		for _, a := range slices.Backward(all) {
			v, done := triaged[a.ID]
			if (q.Untriaged && done) || (q.Triage != "" && v != q.Triage) || (q.Open && a.Status != "") ||
				(len(q.Severities) > 0 && !slices.Contains(q.Severities, a.Severity)) {
				continue
			}
			want = append(want, a.ID)
		}
		for _, limit := range []int{3, 100} {
			q := q
			q.Limit = limit
			var ids []record.AlertID
			for pages := 0; ; pages++ {
				if pages > 20 {
					t.Fatalf("%+v: the pages do not end", q)
				}
				page, err := s.ListAlerts(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range page.Alerts {
					ids = append(ids, a.ID)
					if v, done := triaged[a.ID]; done != (a.Triage != nil) || done && (a.Triage.Verdict != v || a.Triage.Confidence != 0.82) {
						t.Fatalf("%+v: %s listed with triage %+v", q, a.ID, a.Triage)
					}
				}
				if page.NextCursor == "" {
					break
				}
				q.Cursor = page.NextCursor
			}
			if !slices.Equal(ids, want) {
				t.Errorf("%+v: listed %v, want %v", q, ids, want)
			}
		}
		n, err := s.CountAlerts(ctx, q)
		if err != nil || n != len(want) {
			t.Errorf("%+v: counted %d (%v), want %d", q, n, err, len(want))
		}
	}
	page, err := other.ListAlerts(ctx, store.AlertQuery{Untriaged: true})
	if err != nil || len(page.Alerts) != 0 {
		t.Fatalf("another workspace lists %d untriaged alerts (%v)", len(page.Alerts), err)
	}
}

// Two runs triage one alert at once: exactly one wins, the others get ErrConflict, and the
// alert's triage is the winner's.
func testAlertTriageRace(t *testing.T, h *Harness) {
	ctx := context.Background()
	s1, s2 := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	if _, err := s1.PutAlert(ctx, &record.Alert{ID: "race", Title: "t", Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	const runs = 4
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		s := s1
		if i%2 == 1 {
			s = s2
		}
		wg.Go(func() {
			errs[i] = s.TriageAlert(ctx, "race", &record.AlertTriage{HistoryID: record.HistoryID(fmt.Sprintf("h-%d", i)), Verdict: record.VerdictBenign, At: store.Now()}, "")
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("runs %d and %d both triaged the alert", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("run %d: %v", i, err)
		}
	}
	got, err := s1.AlertTriage(ctx, "race")
	if winner < 0 || err != nil || got == nil || got.HistoryID != record.HistoryID(fmt.Sprintf("h-%d", winner)) {
		t.Fatalf("winner %d, triage %+v (%v)", winner, got, err)
	}
}

// A history's triage proposal and whether the resolution agreed with it come back from a read
// and from a listing as saved, and can be cleared.
func testHistoryTriage(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	hist := NewHistory("alert-1", Transcript(2))
	at := store.Now()
	hist.Triage = &record.Triage{Verdict: record.VerdictFalsePositive, Confidence: 0.7, Model: "gemini-3.8-flash", At: at,
		Evidence: []record.TriageEvidence{{Value: "198.51.100.23", Claim: "our scanner"}, {Value: "evil.example", Claim: "seen nowhere", Unsupported: true}}}
	Save(t, s, hist)
	check := func(got *record.History, agreed *bool) {
		t.Helper()
		tr := got.Triage
		if tr == nil || tr.Verdict != record.VerdictFalsePositive || tr.Confidence != 0.7 || tr.Model != "gemini-3.8-flash" || !tr.At.Equal(at) ||
			!slices.Equal(tr.Evidence, hist.Triage.Evidence) {
			t.Fatalf("triage: %+v", tr)
		}
		if (agreed == nil) != (got.TriageAgreed == nil) || agreed != nil && *agreed != *got.TriageAgreed {
			t.Fatalf("triage_agreed: %v, want %v", got.TriageAgreed, agreed)
		}
		if got.Resolution != nil && agreed == nil {
			t.Fatalf("a proposal became a resolution: %+v", got.Resolution)
		}
	}
	got, err := s.GetHistoryMeta(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	check(got, nil)
	page, err := s.ListHistories(ctx, store.HistoryQuery{Open: true})
	if err != nil || len(page.Histories) != 1 {
		t.Fatalf("open histories: %v %v", page, err)
	}
	check(page.Histories[0], nil)
	agreed := false
	got, err = store.UpdateHistory(ctx, s, hist.ID, func(h *record.History) error {
		h.Resolution = &record.Resolution{Verdict: record.VerdictTruePositive, ResolvedBy: "alice", ResolvedAt: store.Now()}
		h.TriageAgreed = &agreed
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err = s.GetHistory(ctx, got.ID)
	if err != nil {
		t.Fatal(err)
	}
	check(got, &agreed)
	if _, err := store.UpdateHistory(ctx, s, hist.ID, func(h *record.History) error {
		h.Triage, h.TriageAgreed, h.Resolution = nil, nil, nil
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err = s.GetHistoryMeta(ctx, hist.ID); err != nil || got.Triage != nil || got.TriageAgreed != nil {
		t.Fatalf("cleared: %+v %v", got, err)
	}
}
