package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// flakyStore fails every save while down is set, as a backend in an outage would.
type flakyStore struct {
	store.HistorySaver
	get  func(ctx context.Context, id record.HistoryID) (*record.History, error)
	down atomic.Bool
}

var errOutage = errors.New("backend unavailable: connection refused")

func (f *flakyStore) SaveHistory(ctx context.Context, h *record.History) error {
	if f.down.Load() {
		return errOutage
	}
	return f.HistorySaver.SaveHistory(ctx, h)
}

func (f *flakyStore) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return f.get(ctx, id)
}

// memSpool is a store.Spool in memory.
type memSpool struct {
	mu      sync.Mutex
	entries map[string]*record.History
	n       int
}

func (m *memSpool) Put(key string, h *record.History) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if key == "" {
		m.n++
		key = fmt.Sprintf("k%d", m.n)
	}
	if m.entries == nil {
		m.entries = map[string]*record.History{}
	}
	c := *h
	c.Contents = append([]*genai.Content(nil), h.Contents...)
	m.entries[key] = &c
	return key, nil
}

func (m *memSpool) Remove(key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, key)
	return nil
}

func texts(cs []*genai.Content) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Parts[0].Text
	}
	return out
}

func TestConflictForksWithForkPoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	first := e.session(t, false, nil)
	if _, err := first.Send(ctx, "q0", nil); err != nil {
		t.Fatal(err)
	}
	id := first.History().ID
	// Two writers load the same revision; the first to save keeps the history.
	loadA, _ := e.store.GetHistory(ctx, id)
	loadB, _ := e.store.GetHistory(ctx, id)
	a, b := e.session(t, false, loadA), e.session(t, false, loadB)
	turnA, err := a.Send(ctx, "from A", nil)
	if err != nil || turnA.SaveErr != nil || turnA.ForkedFrom != "" {
		t.Fatalf("A: %v %+v", err, turnA)
	}
	turnB, err := b.Send(ctx, "from B", nil)
	if err != nil || turnB.SaveErr != nil {
		t.Fatalf("B: %v %+v", err, turnB)
	}
	if turnB.ForkedFrom != id || b.History().ID == id {
		t.Fatalf("B did not fork: forked from %q, history %s", turnB.ForkedFrom, b.History().ID)
	}
	orig, _ := e.store.GetHistory(ctx, id)
	forked, err := e.store.GetHistory(ctx, b.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if forked.ParentID != id || forked.ForkPoint != 2 || len(forked.Contents) != 4 {
		t.Fatalf("fork: parent %s, fork point %d, %d contents", forked.ParentID, forked.ForkPoint, len(forked.Contents))
	}
	// Every turn exactly once: the original's contents plus the fork's after its fork point.
	all := append(texts(orig.Contents), texts(forked.Contents[forked.ForkPoint:])...)
	want := []string{"q0", "ok: q0", "from A", "ok: from A", "from B", "ok: from B"}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("turns %q, want %q", all, want)
	}
	// B goes on in its fork; a fork of the fork works the same way.
	stale, _ := e.store.GetHistory(ctx, forked.ID)
	if _, err := b.Send(ctx, "B again", nil); err != nil {
		t.Fatal(err)
	}
	c := e.session(t, false, stale)
	turnC, err := c.Send(ctx, "from C", nil)
	if err != nil || turnC.ForkedFrom != forked.ID {
		t.Fatalf("C: %v, forked from %q", err, turnC.ForkedFrom)
	}
	if h := c.History(); h.ParentID != forked.ID || h.ForkPoint != 4 {
		t.Fatalf("fork of fork: parent %s, fork point %d", h.ParentID, h.ForkPoint)
	}
}

func TestConflictWithOwnEarlierStateIsNoFork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	s := e.session(t, false, nil)
	if _, err := s.Send(ctx, "q0", nil); err != nil {
		t.Fatal(err)
	}
	h := s.History()
	// The same state saved twice (a flush that crashed before removing its entry, then the
	// session itself): the second finds it stored and writes nothing.
	again := *h
	again.Revision = 0
	res, err := store.SaveOrFork(ctx, e.store, &again, nil)
	if err != nil || res.ForkedFrom != "" || res.History.Revision != 1 {
		t.Fatalf("re-save of a stored state: %v, %+v", err, res)
	}
	// An older state (fewer contents) saved after a newer one: nothing is written either.
	older := *h
	older.Contents = h.Contents[:1]
	older.Revision = 0
	res, err = store.SaveOrFork(ctx, e.store, &older, nil)
	if err != nil || res.ForkedFrom != "" || len(res.History.Contents) != 2 {
		t.Fatalf("older state: %v, %+v", err, res)
	}
	list, _ := e.store.ListHistories(ctx, store.HistoryQuery{})
	if len(list.Histories) != 1 {
		t.Fatalf("%d histories, want 1", len(list.Histories))
	}
}

func TestDeletedMeanwhileForksFromZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	s := e.session(t, false, nil)
	if _, err := s.Send(ctx, "q0", nil); err != nil {
		t.Fatal(err)
	}
	id := s.History().ID
	if err := e.store.DeleteHistory(ctx, id); err != nil {
		t.Fatal(err)
	}
	turn, err := s.Send(ctx, "q1", nil)
	if err != nil || turn.SaveErr != nil || turn.ForkedFrom != id {
		t.Fatalf("%v %+v", err, turn)
	}
	if h := s.History(); h.ForkPoint != 0 || h.ParentID != id || len(h.Contents) != 4 {
		t.Fatalf("fork of a deleted history: %+v", h.Meta())
	}
}

func TestOutageSpoolsTurnAndNextSaveClearsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	fs := &flakyStore{HistorySaver: e.store, get: e.store.GetHistory}
	sp := &memSpool{}
	s, err := session.New(session.Options{LLM: geminiClient(t, e).Models, Store: fs, Redactor: e.red, Model: "gemini-test", Spool: sp}, e.alert, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(ctx, "q0", nil); err != nil {
		t.Fatal(err)
	}
	fs.down.Store(true)
	turn, err := s.Send(ctx, "my secret q1", nil)
	if err != nil || turn.SaveErr != nil || !turn.Spooled || !errors.Is(turn.SpoolCause, errOutage) {
		t.Fatalf("turn during an outage: %v %+v", err, turn)
	}
	if !s.Pending() || len(sp.entries) != 1 {
		t.Fatalf("pending %v, %d spool entries", s.Pending(), len(sp.entries))
	}
	for _, h := range sp.entries {
		if len(h.Contents) != 4 || h.Contents[2].Parts[0].Text != "my [REDACTED_SECRET] q1" {
			t.Fatalf("spooled %q", texts(h.Contents))
		}
	}
	// A second turn in the outage replaces the same entry.
	if turn, _ := s.Send(ctx, "q2", nil); !turn.Spooled || len(sp.entries) != 1 {
		t.Fatalf("second spooled turn: %+v, %d entries", turn, len(sp.entries))
	}
	fs.down.Store(false)
	turn, err = s.Send(ctx, "q3", nil)
	if err != nil || turn.SaveErr != nil || turn.Spooled || s.Pending() || len(sp.entries) != 0 {
		t.Fatalf("after the outage: %v %+v, pending %v, %d entries", err, turn, s.Pending(), len(sp.entries))
	}
	got, _ := e.store.GetHistory(ctx, s.History().ID)
	if len(got.Contents) != 8 {
		t.Fatalf("stored %d contents, want 8", len(got.Contents))
	}
}

func TestPermanentSaveErrorIsNotSpooled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sp := &memSpool{}
	st := &flakyStore{HistorySaver: failingSaver{store.ErrNoSpace}, get: e.store.GetHistory}
	s, err := session.New(session.Options{LLM: geminiClient(t, e).Models, Store: st, Redactor: e.red, Model: "gemini-test", Spool: sp}, e.alert, nil)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := s.Send(context.Background(), "q0", nil)
	if err != nil || !errors.Is(turn.SaveErr, store.ErrNoSpace) || turn.Spooled || len(sp.entries) != 0 {
		t.Fatalf("%v %+v", err, turn)
	}
}

type failingSaver struct{ err error }

func (f failingSaver) SaveHistory(context.Context, *record.History) error { return f.err }

func geminiClient(t *testing.T, e *env) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
