package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Verdict contract: a history's conclusion and who asked its questions come back as saved, in
// listings too; listings filter by verdict, by "open" and by analyst, alone or with an alert,
// and count alike; a resolve and a turn saved at once both stay; another workspace's history
// cannot be resolved; an alert's histories are counted and its latest verdict found.

// Resolve sets v on the stored history id as history resolve does (store.UpdateHistory).
func Resolve(ctx context.Context, s store.HistoryUpdater, id record.HistoryID, v record.Verdict, by string, at time.Time) (*record.History, error) {
	return store.UpdateHistory(ctx, s, id, func(h *record.History) error {
		h.Resolution = &record.Resolution{Verdict: v, Note: "concluded by " + by, ResolvedBy: by, ResolvedAt: at}
		return nil
	})
}

// askedBy makes a history of alert whose questions were asked by analysts, one question each,
// updated at.
func askedBy(alert record.AlertID, at time.Time, analysts ...string) *record.History {
	var cs []*genai.Content
	var qs []record.Question
	for i, a := range analysts {
		qs = append(qs, record.Question{Content: len(cs), Analyst: a, At: at.Add(time.Duration(i) * time.Second)})
		cs = append(cs, genai.NewContentFromText(fmt.Sprintf("question %d", i), genai.RoleUser),
			genai.NewContentFromText(fmt.Sprintf("answer %d", i), genai.RoleModel))
	}
	h := NewHistory(alert, cs)
	h.Questions = qs
	h.UpdatedAt = at
	return h
}

func testVerdictsRoundTrip(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	now := store.Now()
	hist := askedBy("alert-1", now.Add(-time.Minute), "alice@example.com", "bob", "alice@example.com")
	Save(t, s, hist)
	resolved, err := Resolve(ctx, s, hist.ID, record.VerdictFalsePositive, "carol", now)
	if err != nil {
		t.Fatal(err)
	}
	for name, get := range map[string]func() (*record.History, error){
		"get":  func() (*record.History, error) { return s.GetHistory(ctx, hist.ID) },
		"meta": func() (*record.History, error) { return s.GetHistoryMeta(ctx, hist.ID) },
		"list": func() (*record.History, error) {
			page, err := s.ListHistories(ctx, store.HistoryQuery{})
			if err != nil || len(page.Histories) != 1 {
				return nil, fmt.Errorf("list: %v, %d histories", err, len(page.Histories))
			}
			return page.Histories[0], nil
		},
	} {
		got, err := get()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w, g := mustJSON(t, resolved.Questions), mustJSON(t, got.Questions); !bytes.Equal(w, g) {
			t.Errorf("%s: questions\n got %s\nwant %s", name, g, w)
		}
		if w, g := mustJSON(t, resolved.Resolution), mustJSON(t, got.Resolution); !bytes.Equal(w, g) {
			t.Errorf("%s: resolution\n got %s\nwant %s", name, g, w)
		}
		if a := got.Analysts(); !slices.Equal(a, []string{"alice@example.com", "bob"}) {
			t.Errorf("%s: analysts %q", name, a)
		}
	}
	// Reopened: no verdict left anywhere.
	if _, err := store.UpdateHistory(ctx, s, hist.ID, func(h *record.History) error { h.Resolution = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetHistoryMeta(ctx, hist.ID)
	if err != nil || got.Resolution != nil || got.Verdict() != "" {
		t.Fatalf("reopened: %v %+v", err, got)
	}
	if page, err := s.ListHistories(ctx, store.HistoryQuery{Open: true}); err != nil || len(page.Histories) != 1 {
		t.Fatalf("reopened history is not open: %v %v", err, page)
	}
}

func testListByVerdictAndAnalyst(t *testing.T, h *Harness) {
	ctx := context.Background()
	s, other := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	now := store.Now().Add(-time.Hour)
	h1 := askedBy("alert-1", now.Add(1*time.Minute), "alice", "bob")
	h2 := askedBy("alert-1", now.Add(2*time.Minute), "bob")
	h3 := askedBy("alert-2", now.Add(3*time.Minute), "alice")
	h4 := askedBy("alert-2", now.Add(4*time.Minute), "carol")
	h5 := askedBy("alert-1", now.Add(5*time.Minute)) // nobody recorded: saved before analysts were
	for _, x := range []*record.History{h1, h2, h3, h4, h5} {
		Save(t, s, x)
	}
	elsewhere := askedBy("alert-1", now, "alice")
	Save(t, other, elsewhere)
	for _, r := range []struct {
		h *record.History
		v record.Verdict
	}{{h1, record.VerdictFalsePositive}, {h3, record.VerdictBenign}, {h4, record.VerdictFalsePositive}} {
		if _, err := Resolve(ctx, s, r.h.ID, r.v, "dave", store.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Resolve(ctx, other, elsewhere.ID, record.VerdictFalsePositive, "dave", store.Now()); err != nil {
		t.Fatal(err)
	}
	// A resolve leaves updated_at alone (it says when the conversation last moved; resolved_at
	// says when it was concluded): the orders are the histories' own.
	fp, benign := record.VerdictFalsePositive, record.VerdictBenign
	for _, tc := range []struct {
		name string
		q    store.HistoryQuery
		want []*record.History
	}{
		{"false positives", store.HistoryQuery{Verdict: fp}, []*record.History{h4, h1}},
		{"benign", store.HistoryQuery{Verdict: benign}, []*record.History{h3}},
		{"escalated", store.HistoryQuery{Verdict: record.VerdictEscalated}, nil},
		{"open", store.HistoryQuery{Open: true}, []*record.History{h5, h2}},
		{"bob", store.HistoryQuery{Analyst: "bob"}, []*record.History{h2, h1}},
		{"alice", store.HistoryQuery{Analyst: "alice"}, []*record.History{h3, h1}},
		{"nobody", store.HistoryQuery{Analyst: "mallory"}, nil},
		{"alice's false positives", store.HistoryQuery{Verdict: fp, Analyst: "alice"}, []*record.History{h1}},
		{"bob's open", store.HistoryQuery{Open: true, Analyst: "bob"}, []*record.History{h2}},
		{"alert-1 false positives", store.HistoryQuery{AlertID: "alert-1", Verdict: fp}, []*record.History{h1}},
		{"alert-1 open", store.HistoryQuery{AlertID: "alert-1", Open: true}, []*record.History{h5, h2}},
		{"alert-2 carol", store.HistoryQuery{AlertID: "alert-2", Analyst: "carol"}, []*record.History{h4}},
		{"alert-2 alice benign", store.HistoryQuery{AlertID: "alert-2", Verdict: benign, Analyst: "alice"}, []*record.History{h3}},
		{"alert-1 alice benign", store.HistoryQuery{AlertID: "alert-1", Verdict: benign, Analyst: "alice"}, nil},
	} {
		// Page by page (one at a time), so the cursor is tried with every filter.
		var got []record.HistoryID
		q := tc.q
		q.Limit = 1
		for range 10 {
			page, err := s.ListHistories(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got = append(got, ids(page.Histories)...)
			if q.Cursor = page.NextCursor; q.Cursor == "" {
				break
			}
		}
		if want := ids(tc.want); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
		if n, err := s.CountHistories(ctx, tc.q); err != nil || n != len(tc.want) {
			t.Errorf("%s: count %d, %v; want %d", tc.name, n, err, len(tc.want))
		}
	}
}

// A resolve and a turn saved at the same time both stay: whichever saves second finds the
// first's write (a conflict) and builds on it, the resolve by loading again, the turn by
// saving on top of a stored history its transcript already holds (store.SaveOrFork), keeping
// the verdict. Three orders: the resolve first, the turn first, and both at once.
func testConcurrentResolveAndTurn(t *testing.T, h *Harness) {
	ctx := context.Background()
	mine, theirs := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	for round, order := range []string{"resolve first", "turn first", "at once", "at once", "at once"} {
		base := askedBy("alert-1", store.Now(), "alice")
		Save(t, mine, base)
		turn, err := theirs.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		turn.Contents = append(turn.Contents, genai.NewContentFromText(fmt.Sprintf("next question %d", round), genai.RoleUser),
			genai.NewContentFromText("next answer", genai.RoleModel))
		turn.Questions = append(turn.Questions, record.Question{Content: 2, Analyst: "bob", At: store.Now()})
		turn.MessageCount = len(turn.Contents)
		saveTurn := func() error { _, err := store.SaveOrFork(ctx, theirs, turn, nil); return err }
		var resolveErr, turnErr error
		switch order {
		case "resolve first":
			_, resolveErr = Resolve(ctx, mine, base.ID, record.VerdictBenign, "carol", store.Now())
			turnErr = saveTurn()
		case "turn first":
			// The resolve loads before the turn is saved and saves after it.
			first := true
			_, resolveErr = store.UpdateHistory(ctx, mine, base.ID, func(h *record.History) error {
				if first {
					first = false
					if err := saveTurn(); err != nil {
						return err
					}
				}
				h.Resolution = &record.Resolution{Verdict: record.VerdictBenign, ResolvedBy: "carol", ResolvedAt: store.Now()}
				return nil
			})
		default:
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, resolveErr = Resolve(ctx, mine, base.ID, record.VerdictBenign, "carol", store.Now())
			}()
			go func() { defer wg.Done(); turnErr = saveTurn() }()
			wg.Wait()
		}
		if resolveErr != nil || turnErr != nil {
			t.Fatalf("%s: resolve %v, turn %v", order, resolveErr, turnErr)
		}
		got, err := mine.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, turn.Contents)) {
			t.Fatalf("%s: the turn was lost: %d contents stored, want %d", order, len(got.Contents), len(turn.Contents))
		}
		if got.Verdict() != record.VerdictBenign || got.Resolution.ResolvedBy != "carol" {
			t.Fatalf("%s: the verdict was lost: %+v", order, got.Resolution)
		}
		if a := got.Analysts(); !slices.Equal(a, []string{"alice", "bob"}) {
			t.Fatalf("%s: analysts %v", order, a)
		}
		// No fork: both went to the one history.
		if page, err := mine.ListHistories(ctx, store.HistoryQuery{AlertID: "alert-1"}); err != nil || len(page.Histories) != round+1 {
			t.Fatalf("%s: %v, %d histories of the alert after %d rounds (a fork?)", order, err, len(page.Histories), round+1)
		}
	}
}

// A resolve of another workspace's history is "not found", and changes nothing.
func testResolveOtherWorkspace(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	hist := askedBy("alert-1", store.Now(), "alice")
	Save(t, a, hist)
	if _, err := Resolve(ctx, b, hist.ID, record.VerdictFalsePositive, "mallory", store.Now()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("resolve from another workspace: %v, want ErrNotFound", err)
	}
	got, err := a.GetHistoryMeta(ctx, hist.ID)
	if err != nil || got.Resolution != nil || got.Revision != hist.Revision {
		t.Fatalf("the other workspace changed the history: %v %+v", err, got)
	}
	if page, err := b.ListHistories(ctx, store.HistoryQuery{Open: true}); err != nil || len(page.Histories) != 0 {
		t.Fatalf("open histories of the other workspace: %v %v", err, page)
	}
	if page, err := b.ListHistories(ctx, store.HistoryQuery{Analyst: "alice"}); err != nil || len(page.Histories) != 0 {
		t.Fatalf("alice's histories from the other workspace: %v %v", err, page)
	}
}

func testAlertInvestigations(t *testing.T, h *Harness) {
	ctx := context.Background()
	s, other := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	var ic store.InvestigationCounter = s
	now := store.Now().Add(-time.Hour)
	a1, a2, a3 := askedBy("alert-1", now, "alice"), askedBy("alert-1", now, "bob"), askedBy("alert-1", now, "carol")
	b1 := askedBy("alert-2", now, "alice")
	for _, x := range []*record.History{a1, a2, a3, b1} {
		Save(t, s, x)
	}
	Save(t, other, askedBy("alert-3", now, "alice"))
	// The latest resolution counts, whatever the order of the saves.
	if _, err := Resolve(ctx, s, a2.ID, record.VerdictTruePositive, "bob", now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(ctx, s, a1.ID, record.VerdictFalsePositive, "alice", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	got, err := ic.AlertInvestigations(ctx, []record.AlertID{"alert-1", "alert-2", "alert-3", "alert-4"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[record.AlertID]store.AlertInvestigations{
		"alert-1": {Count: 3, Verdict: record.VerdictTruePositive},
		"alert-2": {Count: 1},
	}
	if len(got) != len(want) || got["alert-1"] != want["alert-1"] || got["alert-2"] != want["alert-2"] {
		t.Fatalf("AlertInvestigations = %+v, want %+v", got, want)
	}
	if got, err := ic.AlertInvestigations(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("no alerts: %v %v", got, err)
	}
}
