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

// Alert filters contract: an alert's status comes back as it was put; ListAlerts keeps the
// open alerts (Open), some severities, one source, or all three at once, newest first and
// paged through its cursor; CountAlerts counts what the same query selects; another workspace
// sees none of it.
func testAlertFilters(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	// 30 alerts, newest last: severities, sources and statuses in turn.
	sevs := []string{"critical", "high", "medium", "low", "info", ""}
	srcs := []string{"guardduty", "securityhub", "suricata"}
	stats := []string{"", "", "resolved", "", "archived", "", "inactive"}
	var all []*record.Alert
	for i := range 30 {
		a := &record.Alert{ID: record.AlertID(fmt.Sprintf("alert-%02d", i)), Title: fmt.Sprintf("t%d", i), Severity: sevs[i%len(sevs)],
			Source: srcs[i%len(srcs)], Status: stats[i%len(stats)], Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)),
			CreatedAt: store.Now().Add(time.Duration(i-100) * time.Second)}
		all = append(all, a)
	}
	if _, err := s.PutAlerts(ctx, all[:20]); err != nil {
		t.Fatal(err)
	}
	for _, a := range all[20:] {
		if _, err := s.PutAlert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GetAlert(ctx, "alert-02")
	if err != nil || got.Status != "resolved" {
		t.Fatalf("get: %+v %v", got, err)
	}
	var counter store.AlertCounter = s
	for _, q := range []store.AlertQuery{
		{},
		{Open: true},
		{Severities: []string{"high"}},
		{Severities: []string{"critical", "high"}},
		{Severities: []string{"critical", "high"}, Open: true},
		{Source: "suricata"},
		{Source: "suricata", Open: true},
		{Severities: []string{"critical", "high"}, Source: "guardduty"},
		{Severities: []string{"critical", "high"}, Source: "guardduty", Open: true},
		{Source: "falco"},
	} {
		var want []record.AlertID
		for _, a := range slices.Backward(all) {
			if (q.Open && a.Status != "") || (len(q.Severities) > 0 && !slices.Contains(q.Severities, a.Severity)) || (q.Source != "" && a.Source != q.Source) {
				continue
			}
			want = append(want, a.ID)
		}
		for _, limit := range []int{2, 7, 100} {
			var ids []record.AlertID
			q := q
			q.Limit = limit
			for pages := 0; ; pages++ {
				if pages > 30 {
					t.Fatalf("%+v: the pages do not end", q)
				}
				page, err := s.ListAlerts(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Alerts) > limit {
					t.Fatalf("%+v: %d alerts in a page", q, len(page.Alerts))
				}
				for _, a := range page.Alerts {
					ids = append(ids, a.ID)
					i := slices.IndexFunc(all, func(x *record.Alert) bool { return x.ID == a.ID })
					if a.Status != all[i].Status || a.Severity != all[i].Severity || a.Source != all[i].Source {
						t.Errorf("%s listed as %q %q %q", a.ID, a.Severity, a.Source, a.Status)
					}
				}
				if q.Cursor = page.NextCursor; q.Cursor == "" {
					break
				}
			}
			if !slices.Equal(ids, want) {
				t.Errorf("%+v: %v, want %v", q, ids, want)
			}
		}
		q.Cursor = "ignored"
		if n, err := counter.CountAlerts(ctx, q); err != nil || n != len(want) {
			t.Errorf("count %+v: %d, %v; want %d", q, n, err, len(want))
		}
	}
	other := h.Open(t, "ws-b")
	if page, err := other.ListAlerts(ctx, store.AlertQuery{Open: true, Severities: []string{"high"}}); err != nil || len(page.Alerts) != 0 {
		t.Fatalf("another workspace lists %d alerts, %v", len(page.Alerts), err)
	}
	if n, err := other.CountAlerts(ctx, store.AlertQuery{}); err != nil || n != 0 {
		t.Fatalf("another workspace counts %d alerts, %v", n, err)
	}
}
