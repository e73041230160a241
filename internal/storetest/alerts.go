package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Alert contract: an alert is stored as given, once; found by a unique prefix.

func testFindAlertsByPrefix(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	for _, id := range []record.AlertID{"0f1e2d3c-aaaa-5000-8000-000000000001", "0f1e2d3c-bbbb-5000-8000-000000000002", "9a8b7c6d-aaaa-5000-8000-000000000003"} {
		if _, err := a.PutAlert(ctx, &record.Alert{ID: id, Title: "t", Data: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix string
		want   []record.AlertID
	}{
		{"0f1e2d3c-a", []record.AlertID{"0f1e2d3c-aaaa-5000-8000-000000000001"}},
		{"0f1e2d3c", []record.AlertID{"0f1e2d3c-aaaa-5000-8000-000000000001", "0f1e2d3c-bbbb-5000-8000-000000000002"}},
		{"9a8b7c6d-aaaa-5000-8000-000000000003", []record.AlertID{"9a8b7c6d-aaaa-5000-8000-000000000003"}},
		{"ffffffff", nil},
	}
	for _, tc := range tests {
		got, err := a.FindAlerts(ctx, tc.prefix, 10)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("FindAlerts(%q) = %v, %v; want %v", tc.prefix, got, err, tc.want)
		}
	}
	if got, err := b.FindAlerts(ctx, "0f1e2d3c", 10); err != nil || len(got) != 0 {
		t.Errorf("another workspace finds %v, %v", got, err)
	}
	if got, err := a.FindAlerts(ctx, "", 2); err != nil || len(got) != 2 {
		t.Errorf("empty prefix, limit 2: %v, %v", got, err)
	}
}

func testAlerts(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	first := &record.Alert{ID: "alert-x", Title: "First", Data: json.RawMessage(`{"b": 2, "a": [1, "x"]}`), CreatedAt: store.Now().Add(-time.Minute)}
	created, err := a.PutAlert(ctx, first)
	if err != nil || !created {
		t.Fatalf("put: %v %v", created, err)
	}
	again := *first
	again.Title = "changed"
	created, err = a.PutAlert(ctx, &again)
	if err != nil || created {
		t.Fatalf("second put: created=%v err=%v", created, err)
	}
	got, err := a.GetAlert(ctx, "alert-x")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != string(first.Data) || got.Title != "First" || !got.CreatedAt.Equal(first.CreatedAt) {
		t.Fatalf("alert not stored as given: %+v", got)
	}
	second := &record.Alert{ID: "alert-y", Title: "Second", Data: json.RawMessage(`[1]`), CreatedAt: store.Now()}
	if _, err := a.PutAlert(ctx, second); err != nil {
		t.Fatal(err)
	}
	page, err := a.ListAlerts(ctx, store.AlertQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Alerts) != 2 || page.Alerts[0].ID != "alert-y" || page.Alerts[1].ID != "alert-x" {
		t.Fatalf("list: %+v", page.Alerts)
	}
	page, err = a.ListAlerts(ctx, store.AlertQuery{Limit: 1})
	if err != nil || len(page.Alerts) != 1 || page.NextCursor == "" {
		t.Fatalf("first page: %v %+v", err, page)
	}
	page, err = a.ListAlerts(ctx, store.AlertQuery{Limit: 1, Cursor: page.NextCursor})
	if err != nil || len(page.Alerts) != 1 || page.Alerts[0].ID != "alert-x" {
		t.Fatalf("second page: %v %+v", err, page)
	}
	// Alerts are scoped to the workspace too.
	if _, err := b.GetAlert(ctx, "alert-x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("alert visible in another workspace: %v", err)
	}
	if page, err := b.ListAlerts(ctx, store.AlertQuery{}); err != nil || len(page.Alerts) != 0 {
		t.Fatalf("alert listed in another workspace: %v", err)
	}
	// The same alert added in another workspace is its own record.
	if created, err := b.PutAlert(ctx, first); err != nil || !created {
		t.Fatalf("put in ws-b: %v %v", created, err)
	}
}
