// Package storetest is the conformance suite every store.Store implementation runs: the same
// test functions against the embedded local store and against Firestore + Cloud Storage.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Harness gives the suite one fresh backend. Every Open of the same Harness shares that backend.
type Harness struct {
	// Open returns a store of the given workspace on the shared backend.
	Open func(t testing.TB, workspace string) store.Store
	// Prefix is the object key prefix the stores were opened with.
	Prefix string
	// ReadObject reads a transcript object as an outside hand would; ok is false when missing.
	ReadObject func(t testing.TB, key string) (data []byte, ok bool)
	// WriteObject overwrites a transcript object as an outside hand would (to corrupt it).
	WriteObject func(t testing.TB, key string, data []byte)
}

// Run runs the whole suite. newHarness is called once per test for a fresh backend.
func Run(t *testing.T, newHarness func(t testing.TB) *Harness) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"RoundTripEveryPartKind", testRoundTrip},
		{"MetadataRoundTrip", testMetadataRoundTrip},
		{"WorkspaceIsolation", testWorkspaceIsolation},
		{"ConflictingSaves", testConflictingSaves},
		{"ConflictingCreates", testConflictingCreates},
		{"StaleSaveWritesNothing", testStaleSaveWritesNothing},
		{"SaveAfterAnotherWriter", testSaveAfterAnotherWriter},
		{"SaveAfterDelete", testSaveAfterDelete},
		{"Pagination", testPagination},
		{"ListByAlertAndAge", testListByAlertAndAge},
		{"Delete", testDelete},
		{"CorruptTranscript", testCorruptTranscript},
		{"NotFound", testNotFound},
		{"FindByPrefix", testFindByPrefix},
		{"Alerts", testAlerts},
		{"FindAlertsByPrefix", testFindAlertsByPrefix},
		{"Count", testCount},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newHarness(t))
		})
	}
}

// EveryPartKind is a transcript holding every genai.Part kind the product stores.
func EveryPartKind() []*genai.Content {
	return []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{Text: "What does this alert mean? 日本語も"},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 255}}},
			{FileData: &genai.FileData{MIMEType: "application/pdf", FileURI: "gs://bucket/report.pdf"}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "Let me think.", Thought: true, ThoughtSignature: []byte{1, 2, 3, 4, 0, 200}},
			{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "lookup_ip", Args: map[string]any{
				"ip": "192.0.2.1", "nested": map[string]any{"list": []any{"a", 1.5, true, nil}},
			}}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{ID: "call-1", Name: "lookup_ip", Response: map[string]any{
				"output": map[string]any{"country": "JP", "asn": 64500.0},
			}}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{ExecutableCode: &genai.ExecutableCode{Language: genai.LanguagePython, Code: "print(1+1)"}},
			{CodeExecutionResult: &genai.CodeExecutionResult{Outcome: genai.OutcomeOK, Output: "2\n"}},
			{Text: "The instance queried a known bad domain.", ThoughtSignature: []byte("sig")},
		}},
	}
}

// Transcript returns a text transcript of roughly size bytes, for benchmarks.
func Transcript(size int) []*genai.Content {
	const turn = 4096
	line := strings.Repeat("The EC2 instance i-99999999 queried 3322.org; GuardDuty rated it 8. ", 64)[:turn]
	var out []*genai.Content
	for n := 0; n < size; n += turn {
		role := genai.RoleUser
		if len(out)%2 == 1 {
			role = genai.RoleModel
		}
		out = append(out, genai.NewContentFromText(line, genai.Role(role)))
	}
	return out
}

// NewHistory returns an unsaved history of alert with the given transcript.
func NewHistory(alert record.AlertID, contents []*genai.Content) *record.History {
	now := store.Now()
	return &record.History{
		ID: store.NewHistoryID(), AlertID: alert, Title: "t", CreatedAt: now, UpdatedAt: now,
		MessageCount: len(contents), Contents: contents,
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func Save(t testing.TB, s store.Store, h *record.History) {
	t.Helper()
	if err := s.SaveHistory(context.Background(), h); err != nil {
		t.Fatalf("save %s: %v", h.ID, err)
	}
}

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
	hist.Usage = record.Usage{InputTokens: 1234, OutputTokens: 56}
	hist.Redactions = map[string]int{"EMAIL": 2, "IP": 1}
	hist.RedactedCount = 4
	hist.Summary = &record.Summary{Text: "IOCs: 198.51.100.7\n調査結果: beaconing", CoversCount: 2, CreatedAt: store.Now().Add(-time.Minute)}
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

func testWorkspaceIsolation(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, a, hist)
	before, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))

	if _, err := b.GetHistory(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get from other workspace: %v, want ErrNotFound", err)
	}
	if _, err := b.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get meta from other workspace: %v, want ErrNotFound", err)
	}
	page, err := b.ListHistories(ctx, store.HistoryQuery{})
	if err != nil || len(page.Histories) != 0 {
		t.Errorf("list from other workspace: %v, %d histories", err, len(page.Histories))
	}
	page, err = b.ListHistories(ctx, store.HistoryQuery{AlertID: "alert-1"})
	if err != nil || len(page.Histories) != 0 {
		t.Errorf("list by alert from other workspace: %v, %d histories", err, len(page.Histories))
	}
	if ids, err := b.FindHistories(ctx, string(hist.ID)[:8], 10); err != nil || len(ids) != 0 {
		t.Errorf("find from other workspace: %v %v", ids, err)
	}
	stolen := hist.Meta()
	stolen.Contents = []*genai.Content{genai.NewContentFromText("overwrite", genai.RoleUser)}
	if err := b.SaveHistory(ctx, stolen); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("save into other workspace's history: %v, want ErrNotFound", err)
	}
	if err := b.DeleteHistory(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete from other workspace: %v, want ErrNotFound", err)
	}
	// The owner still sees it intact.
	got, err := a.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatalf("owner lost the history: %v", err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, hist.Contents)) || got.Revision != hist.Revision {
		t.Fatal("other workspace changed the history")
	}
	after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))
	if !bytes.Equal(before, after) {
		t.Fatal("other workspace changed the transcript object")
	}
	// The same error as a missing ID: callers cannot tell the two apart.
	_, errOther := b.GetHistory(ctx, hist.ID)
	_, errMissing := b.GetHistory(ctx, store.NewHistoryID())
	if errors.Is(errOther, store.ErrNotFound) != errors.Is(errMissing, store.ErrNotFound) {
		t.Fatal("another workspace's history is distinguishable from a missing one")
	}
}

func conflictRound(t *testing.T, s1, s2 store.Store, base *record.History) {
	ctx := context.Background()
	c1, err := s1.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := s2.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	c1.Contents = append(c1.Contents, genai.NewContentFromText("writer one", genai.RoleUser))
	c1.MessageCount = len(c1.Contents)
	c2.Contents = append(c2.Contents, genai.NewContentFromText("writer two", genai.RoleUser), genai.NewContentFromText("two b", genai.RoleModel))
	c2.MessageCount = len(c2.Contents)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, c := range []*record.History{c1, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := s1
			if i == 1 {
				s = s2
			}
			errs[i] = s.SaveHistory(ctx, c)
		}()
	}
	wg.Wait()
	var winner *record.History
	switch {
	case errs[0] == nil && errors.Is(errs[1], store.ErrConflict):
		winner = c1
	case errs[1] == nil && errors.Is(errs[0], store.ErrConflict):
		winner = c2
	default:
		t.Fatalf("want exactly one winner and one ErrConflict, got %v and %v", errs[0], errs[1])
	}
	got, err := s1.GetHistory(ctx, base.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, winner.Contents)) {
		t.Fatal("stored transcript is not the winner's")
	}
	if got.MessageCount != winner.MessageCount || got.Revision != winner.Revision {
		t.Fatalf("stored metadata is not the winner's: %d/%d vs %d/%d", got.MessageCount, got.Revision, winner.MessageCount, winner.Revision)
	}
}

func testConflictingSaves(t *testing.T, h *Harness) {
	s1, s2 := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	base := NewHistory("alert-1", EveryPartKind())
	Save(t, s1, base)
	for range 3 {
		conflictRound(t, s1, s2, base)
	}
}

func testConflictingCreates(t *testing.T, h *Harness) {
	ctx := context.Background()
	s1, s2 := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	one := NewHistory("alert-1", []*genai.Content{genai.NewContentFromText("one", genai.RoleUser)})
	two := one.Meta()
	two.Contents = []*genai.Content{genai.NewContentFromText("two", genai.RoleUser)}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, pair := range []struct {
		s store.Store
		h *record.History
	}{{s1, one}, {s2, two}} {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = pair.s.SaveHistory(ctx, pair.h) }()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("want exactly one create to win, got errors %v", errs)
	}
	winner := one
	if errs[0] != nil {
		winner = two
	}
	got, err := s1.GetHistory(ctx, one.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, winner.Contents)) {
		t.Fatal("stored transcript is not the winner's")
	}
}

func testStaleSaveWritesNothing(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, s, hist)
	stale := hist.Meta()
	stale.Contents = hist.Contents
	hist.Contents = append(hist.Contents, genai.NewContentFromText("fresh", genai.RoleUser))
	hist.MessageCount++
	Save(t, s, hist)
	obj, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))

	stale.Contents = append(stale.Contents, genai.NewContentFromText("stale", genai.RoleUser))
	stale.Title = "stale"
	if err := s.SaveHistory(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v, want ErrConflict", err)
	}
	after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID))
	if !bytes.Equal(obj, after) {
		t.Fatal("stale save changed the transcript object")
	}
	got, err := s.GetHistoryMeta(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != hist.Title || got.Revision != hist.Revision || got.MessageCount != hist.MessageCount {
		t.Fatalf("stale save changed metadata: %+v", got)
	}
}

// A store may remember what it loaded to save without reading again; what another store (or
// process) wrote since must still make that save a conflict, and a fresh load must save.
func testSaveAfterAnotherWriter(t *testing.T, h *Harness) {
	ctx := context.Background()
	mine, other := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	base := NewHistory("alert-1", EveryPartKind())
	Save(t, mine, base)
	for round := range 3 {
		loaded, err := mine.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := other.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		theirs.Contents = append(theirs.Contents, genai.NewContentFromText(fmt.Sprintf("theirs %d", round), genai.RoleUser))
		theirs.MessageCount = len(theirs.Contents)
		Save(t, other, theirs)
		obj, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, base.ID))

		loaded.Contents = append(loaded.Contents, genai.NewContentFromText("mine", genai.RoleUser))
		loaded.MessageCount = len(loaded.Contents)
		if err := mine.SaveHistory(ctx, loaded); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("round %d: save over another writer's turn: %v, want ErrConflict", round, err)
		}
		if after, _ := h.ReadObject(t, store.ObjectKey(h.Prefix, base.ID)); !bytes.Equal(obj, after) {
			t.Fatalf("round %d: the conflicting save changed the transcript", round)
		}
		got, err := mine.GetHistory(ctx, base.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Revision != theirs.Revision || !bytes.Equal(mustJSON(t, got.Contents), mustJSON(t, theirs.Contents)) {
			t.Fatalf("round %d: stored revision %d, want the other writer's %d and its transcript", round, got.Revision, theirs.Revision)
		}
		// Saved twice in a row from the fresh load: the second save builds on the first.
		for range 2 {
			got.Contents = append(got.Contents, genai.NewContentFromText("mine again", genai.RoleUser))
			got.MessageCount = len(got.Contents)
			Save(t, mine, got)
		}
		if m, err := other.GetHistoryMeta(ctx, base.ID); err != nil || m.Revision != got.Revision || m.MessageCount != got.MessageCount {
			t.Fatalf("round %d: after saving a fresh load: %v %+v, want revision %d", round, err, m, got.Revision)
		}
	}
}

// A save of a history that another store deleted since it was loaded writes nothing: it is a
// conflict or not found, never a resurrection.
func testSaveAfterDelete(t *testing.T, h *Harness) {
	ctx := context.Background()
	mine, other := h.Open(t, "ws-a"), h.Open(t, "ws-a")
	hist := NewHistory("alert-1", EveryPartKind())
	Save(t, mine, hist)
	loaded, err := mine.GetHistory(ctx, hist.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.DeleteHistory(ctx, hist.ID); err != nil {
		t.Fatal(err)
	}
	loaded.Contents = append(loaded.Contents, genai.NewContentFromText("late", genai.RoleUser))
	err = mine.SaveHistory(ctx, loaded)
	if !errors.Is(err, store.ErrConflict) && !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("save of a deleted history: %v, want ErrConflict or ErrNotFound", err)
	}
	if _, ok := h.ReadObject(t, store.ObjectKey(h.Prefix, hist.ID)); ok {
		t.Fatal("the save recreated the deleted transcript")
	}
	if _, err := other.GetHistoryMeta(ctx, hist.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the save recreated the deleted metadata: %v", err)
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

func testCorruptTranscript(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	for name, mangle := range map[string]func([]byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"garbage":   func([]byte) []byte { return []byte("\x00\xffnot json") },
		"wrong":     func([]byte) []byte { return []byte(`{"role":"user"}`) },
		"empty":     func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			hist := NewHistory("alert-1", EveryPartKind())
			Save(t, s, hist)
			key := store.ObjectKey(h.Prefix, hist.ID)
			obj, _ := h.ReadObject(t, key)
			h.WriteObject(t, key, mangle(obj))
			_, err := s.GetHistory(ctx, hist.ID)
			if err == nil {
				t.Fatal("corrupt transcript loaded without error")
			}
			if errors.Is(err, store.ErrNotFound) {
				t.Fatalf("corrupt transcript reported as not found: %v", err)
			}
			if !strings.Contains(err.Error(), string(hist.ID)) {
				t.Fatalf("error does not name the history: %v", err)
			}
			if _, err := s.GetHistoryMeta(ctx, hist.ID); err != nil {
				t.Fatalf("metadata unreadable next to a corrupt transcript: %v", err)
			}
		})
	}
}

func testNotFound(t *testing.T, h *Harness) {
	ctx := context.Background()
	s := h.Open(t, "ws-a")
	for _, id := range []record.HistoryID{store.NewHistoryID(), "not-a-uuid", "../../etc/passwd", ""} {
		if _, err := s.GetHistory(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("get %q: %v, want ErrNotFound", id, err)
		}
		if err := s.DeleteHistory(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete %q: %v, want ErrNotFound", id, err)
		}
	}
	ghost := NewHistory("alert-1", nil)
	ghost.Revision = 3
	if err := s.SaveHistory(ctx, ghost); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("save of a missing history at revision 3: %v, want ErrNotFound", err)
	}
	if _, err := s.GetAlert(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("get alert: %v, want ErrNotFound", err)
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

func testCount(t *testing.T, h *Harness) {
	ctx := context.Background()
	a, b := h.Open(t, "ws-a"), h.Open(t, "ws-b")
	ca, ok := a.(store.Counter)
	if !ok {
		t.Fatalf("%T does not count histories", a)
	}
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
