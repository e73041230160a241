package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Alert facts contract: an alert's severity, source and time come back from GetAlert,
// ListAlerts and SearchAlerts as they were put; a search can keep one severity or source.
func testAlertFacts(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	when := time.Date(2025, 6, 2, 8, 15, 30, 412000000, time.UTC)
	in := []*record.Alert{
		{ID: "alert-gd", Title: "Unusual port", Severity: "medium", Source: "guardduty", Time: when, Data: json.RawMessage(`{"Remote":"198.51.100.23"}`)},
		{ID: "alert-scc", Title: "Bad domain", Severity: "high", Source: "scc", Data: json.RawMessage(`{"Remote":"198.51.100.23","x":1}`)},
		{ID: "alert-plain", Title: "Plain", Data: json.RawMessage(`{"Remote":"198.51.100.23","y":2}`)},
	}
	for i, a := range in {
		a.CreatedAt = store.Now().Add(time.Duration(i-10) * time.Second)
		if _, err := s.PutAlert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range in {
		got, err := s.GetAlert(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Severity != want.Severity || got.Source != want.Source || !got.Time.Equal(want.Time) {
			t.Errorf("get %s: %q %q %v, want %q %q %v", want.ID, got.Severity, got.Source, got.Time, want.Severity, want.Source, want.Time)
		}
	}
	page, err := s.ListAlerts(ctx, store.AlertQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range page.Alerts {
		i := slices.IndexFunc(in, func(a *record.Alert) bool { return a.ID == got.ID })
		if want := in[i]; got.Severity != want.Severity || got.Source != want.Source || !got.Time.Equal(want.Time) {
			t.Errorf("list %s: %q %q %v", got.ID, got.Severity, got.Source, got.Time)
		}
	}
	var as store.AlertSearcher = s
	for _, tc := range []struct {
		severity, source string
		want             []record.AlertID
	}{
		{"", "", []record.AlertID{"alert-gd", "alert-plain", "alert-scc"}},
		{"high", "", []record.AlertID{"alert-scc"}},
		{"", "guardduty", []record.AlertID{"alert-gd"}},
		{"medium", "guardduty", []record.AlertID{"alert-gd"}},
		{"high", "guardduty", nil},
		{"low", "", nil},
	} {
		hits, err := as.SearchAlerts(ctx, store.AlertSearchQuery{Text: "198.51.100.23", Severity: tc.severity, Source: tc.source})
		if err != nil {
			t.Fatal(err)
		}
		var got []record.AlertID
		for _, x := range hits {
			got = append(got, x.Alert.ID)
			if x.Alert.ID == "alert-gd" && (x.Alert.Severity != "medium" || x.Alert.Source != "guardduty") {
				t.Errorf("hit without its facts: %+v", x.Alert)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("search severity=%q source=%q: %v, want %v", tc.severity, tc.source, got, tc.want)
		}
	}
}

// Many alerts put at once: each stored once, the count of new ones right, again harmless.
func testPutAlerts(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	var as []*record.Alert
	for i := range 600 {
		as = append(as, &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%04d", i)), Title: "t", Severity: "low", Source: "falco",
			Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)), CreatedAt: store.Now()})
	}
	if _, err := s.PutAlert(ctx, as[10]); err != nil {
		t.Fatal(err)
	}
	n, err := s.PutAlerts(ctx, as)
	if err != nil || n != 599 {
		t.Fatalf("put 600 with one there: %d new, %v", n, err)
	}
	if n, err := s.PutAlerts(ctx, as[:50]); err != nil || n != 0 {
		t.Fatalf("put again: %d new, %v", n, err)
	}
	got, err := s.GetAlert(ctx, "alert-0599")
	if err != nil || string(got.Data) != `{"n":599}` || got.Source != "falco" {
		t.Fatalf("get: %+v %v", got, err)
	}
	total := 0
	for cursor := ""; ; {
		page, err := s.ListAlerts(ctx, store.AlertQuery{Limit: store.MaxLimit, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		total += len(page.Alerts)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if total != 600 {
		t.Fatalf("%d alerts listed, want 600", total)
	}
	if other := h.Open(t, "ws-b"); true {
		if page, err := other.ListAlerts(ctx, store.AlertQuery{}); err != nil || len(page.Alerts) != 0 {
			t.Fatalf("another workspace lists %d alerts, %v", len(page.Alerts), err)
		}
	}
}
