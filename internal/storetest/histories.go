package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// History contract: a transcript and its metadata come back as saved, every part kind byte
// for byte; listing, paging, deleting and finding by prefix.

func testRoundTrip(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	want := EveryPartKind()
	wantJSON := mustJSON(t, want)
	hist := NewHistory("alert-1", want)
	Save(t, s, hist)
	if hist.Revision == 0 {
		t.Fatal("revision not set after save")
	}
	got, err := s.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if gotJSON := mustJSON(t, got.Contents); !bytes.Equal(gotJSON, wantJSON) {
		t.Fatalf("transcript changed in round trip:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	obj, ok := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))
	if !ok {
		t.Fatal("transcript object missing at the contract key")
	}
	var raw []*genai.Content
	if err := json.Unmarshal(obj, &raw); err != nil {
		t.Fatalf("transcript object is not a JSON array of genai.Content: %v", err)
	}
	if !bytes.Equal(mustJSON(t, raw), wantJSON) {
		t.Fatal("object content differs from the saved transcript")
	}
	// A second save of the loaded history (a new turn) round-trips too.
	got.Contents = append(got.Contents, genai.NewContentFromText("next", genai.RoleUser))
	Save(t, s, got)
	again, err := s.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Contents) != len(want)+1 || again.Revision != got.Revision {
		t.Fatalf("after second save: %d contents, revision %d (want %d, %d)", len(again.Contents), again.Revision, len(want)+1, got.Revision)
	}
}

func testMetadataRoundTrip(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	hist.Title = "Suspicious DNS 調査"
	hist.TitleSource = record.TitleManual
	hist.ParentID = store.NewHistoryID()
	hist.ForkPoint = 2
	hist.CreatedAt = store.Now().Add(-time.Hour)
	hist.Usage = record.Usage{InputTokens: 1234, OutputTokens: 56, ThoughtTokens: 789}
	hist.Redactions = map[string]int{"EMAIL": 2, "IP": 1}
	hist.RedactedCount = 4
	hist.Summary = &record.Summary{Text: "IOCs: 198.51.100.7\n調査結果: beaconing", CoversCount: 2, CreatedAt: store.Now().Add(-time.Minute)}
	hist.ToolCalls = 3
	hist.ToolApprovals = []record.ToolApproval{
		{Tool: "mcp_intel_lookup", Server: "intel", Decision: record.ApprovalApproved, Asked: true, At: store.Now().Add(-2 * time.Minute), Content: 1, Call: 0, CallID: "c1"},
		{Tool: "mcp_intel_env", Server: "intel", Decision: record.ApprovalDenied, At: store.Now().Add(-2 * time.Minute), Content: 1, Call: 1,
			Egress: &record.EgressHold{Kinds: []string{"internal address", "e-mail address"}}},
		{Tool: "mcp_siem_query", Server: "siem", Decision: record.ApprovalTrusted, At: store.Now().Add(-time.Minute), Content: 3},
	}
	hist.Questions = []record.Question{
		{Content: 0, Analyst: "alice@example.com", At: store.Now().Add(-3 * time.Minute)},
		{Content: 2, Analyst: "bob", At: store.Now().Add(-2 * time.Minute)},
	}
	hist.Resolution = &record.Resolution{Verdict: record.VerdictEscalated, Note: "handed to IR: 調査継続", ResolvedBy: "bob",
		ResolvedAt: store.Now().Add(-time.Minute), Suggested: true}
	Save(t, s, hist)
	got, err := s.GetHistoryMeta(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Contents != nil {
		t.Error("GetHistoryMeta returned contents")
	}
	want := hist.Meta()
	want.ContentVersion, got.ContentVersion = 0, 0
	if w, g := mustJSON(t, want), mustJSON(t, got); !bytes.Equal(w, g) {
		t.Fatalf("metadata changed:\n got %s\nwant %s", g, w)
	}
	if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("timestamps changed: %v %v vs %v %v", got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}
	if got.Workspace != "ws-a" {
		t.Fatalf("workspace = %q", got.Workspace)
	}
}

func testPagination(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	base := store.Now().Add(-time.Hour)
	want := map[record.HistoryID]bool{}
	const n = 23
	for i := range n {
		hist := NewHistory("alert-1", []*genai.Content{genai.NewContentFromText(fmt.Sprint(i), genai.RoleUser)})
		// Ties on updated_at must still page without gaps or duplicates.
		hist.UpdatedAt = base.Add(time.Duration(i/3) * time.Second)
		Save(t, s, hist)
		want[hist.ID] = true
	}
	for _, limit := range []int{1, 5, 7, 23, 50} {
		seen := map[record.HistoryID]bool{}
		var last *record.History
		cursor := ""
		pages := 0
		for {
			page, err := s.ListHistories(ctx, store.HistoryQuery{Limit: limit, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(page.Histories) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(page.Histories))
			}
			for _, got := range page.Histories {
				if seen[got.ID] {
					t.Fatalf("limit %d: duplicate %s", limit, got.ID)
				}
				seen[got.ID] = true
				if got.Contents != nil {
					t.Fatal("listing returned transcripts")
				}
				if last != nil && got.UpdatedAt.After(last.UpdatedAt) {
					t.Fatalf("limit %d: not newest first", limit)
				}
				last = got
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
			if pages > n+2 {
				t.Fatal("pagination does not end")
			}
		}
		if len(seen) != n {
			t.Fatalf("limit %d: saw %d of %d histories", limit, len(seen), n)
		}
	}
	if _, err := s.ListHistories(ctx, store.HistoryQuery{Cursor: "!!not a cursor"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("bad cursor: %v, want ErrInvalid", err)
	}
}

func testListByAlertAndAge(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	now := store.Now()
	old := NewHistory("alert-1", nil)
	old.UpdatedAt = now.Add(-48 * time.Hour)
	Save(t, s, old)
	recent := NewHistory("alert-1", nil)
	Save(t, s, recent)
	other := NewHistory("alert-2", nil)
	Save(t, s, other)

	page, err := s.ListHistories(ctx, store.HistoryQuery{AlertID: "alert-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Histories) != 2 || page.Histories[0].ID != recent.ID || page.Histories[1].ID != old.ID {
		t.Fatalf("by alert: %v", ids(page.Histories))
	}
	page, err = s.ListHistories(ctx, store.HistoryQuery{UpdatedBefore: now.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Histories) != 1 || page.Histories[0].ID != old.ID {
		t.Fatalf("older than a day: %v", ids(page.Histories))
	}
	page, err = s.ListHistories(ctx, store.HistoryQuery{AlertID: "alert-2", UpdatedBefore: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Histories) != 1 || page.Histories[0].ID != other.ID {
		t.Fatalf("alert-2 before now: %v", ids(page.Histories))
	}
}

func ids(hs []*record.History) []record.HistoryID {
	var out []record.HistoryID
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func testDelete(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, s, hist)
	keep := NewHistory("alert-1", EveryPartKind())
	Save(t, s, keep)
	if err := s.DeleteHistory(ctx, hist.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID)); ok {
		t.Fatal("transcript object survived delete")
	}
	if _, err := s.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("metadata survived delete: %v", err)
	}
	if err := s.DeleteHistory(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
	page, err := s.ListHistories(ctx, store.HistoryQuery{})
	if err != nil || len(page.Histories) != 1 || page.Histories[0].ID != keep.ID {
		t.Fatalf("list after delete: %v %v", err, ids(page.Histories))
	}
	if _, ok := h.ReadObject(t, store.ObjectKey(h.Prefix, keep.ID)); !ok {
		t.Fatal("delete removed another history's object")
	}
}

func testFindByPrefix(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	var all []*record.History
	for range 5 {
		hist := NewHistory("alert-1", nil)
		Save(t, s, hist)
		all = append(all, hist)
	}
	for _, hist := range all {
		got, err := s.FindHistories(ctx, string(hist.ID)[:13], 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != hist.ID {
			t.Fatalf("prefix %s: %v", string(hist.ID)[:13], got)
		}
	}
	got, err := s.FindHistories(ctx, "", 3)
	if err != nil || len(got) != 3 {
		t.Fatalf("empty prefix, limit 3: %v %v", got, err)
	}
}

func testCount(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	var ca store.Counter = a
	now := store.Now()
	for i, alert := range []record.AlertID{"alert-1", "alert-1", "alert-2"} {
		hist := NewHistory(alert, nil)
		hist.UpdatedAt = now.Add(-time.Duration(i) * time.Hour)
		Save(t, a, hist)
	}
	Save(t, b, NewHistory("alert-1", nil))
	for _, tc := range []struct {
		q    store.HistoryQuery
		want int
	}{
		{store.HistoryQuery{}, 3},
		{store.HistoryQuery{AlertID: "alert-1"}, 2},
		{store.HistoryQuery{AlertID: "alert-3"}, 0},
		{store.HistoryQuery{Limit: 1}, 3},
	} {
		if n, err := ca.CountHistories(ctx, tc.q); err != nil || n != tc.want {
			t.Errorf("CountHistories(%+v) = %d, %v; want %d", tc.q, n, err, tc.want)
		}
	}
}
