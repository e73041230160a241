package session_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
)

// notes is a Knowledge source that gives the same entries to every alert, or fails.
type notes struct {
	es    []*record.Knowledge
	err   error
	calls int
}

func (n *notes) ForAlert(context.Context, *record.Alert) ([]*record.Knowledge, error) {
	n.calls++
	return n.es, n.err
}

// byID is notes that also read entries by ID, as knowledge.Retriever does: only those in
// active, as a store holding retired ones would leave them out.
type byID struct {
	notes
	active map[record.KnowledgeID]bool
	asked  [][]record.KnowledgeID
}

func (b *byID) ByIDs(_ context.Context, ids []record.KnowledgeID) ([]*record.Knowledge, error) {
	b.asked = append(b.asked, ids)
	var out []*record.Knowledge
	for _, e := range b.es {
		if slices.Contains(ids, e.ID) && b.active[e.ID] {
			out = append(out, e)
		}
	}
	return out, nil
}

func (e *env) sessionWith(t *testing.T, k session.Knowledge, h *record.History) *session.Session {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(session.Options{LLM: client.Models, Store: e.store, Redactor: e.red, Model: "gemini-test", Knowledge: k}, e.alert, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func answerRequests(srv *geminitest.Server) []*geminitest.Request {
	var out []*geminitest.Request
	for _, r := range srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			out = append(out, r)
		}
	}
	return out
}

// A new investigation's notes are in the system instruction of every request, with their IDs,
// and their IDs are saved on the history; a resumed one is given again those of its notes that
// are still active, and no new ones.
func TestKnowledgeGivenToNewInvestigations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const id = record.KnowledgeID("1a2b3c4d-0000-4000-8000-000000000000")
	k := &byID{notes: notes{es: []*record.Knowledge{{ID: id, Text: "the scanner", Author: "alice",
		CreatedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}}}, active: map[record.KnowledgeID]bool{id: true}}
	s := e.sessionWith(t, k, nil)
	ctx := context.Background()
	if got := s.Knowledge(ctx); len(got) != 1 {
		t.Fatalf("Knowledge = %v", got)
	}
	for _, q := range []string{"first", "second"} {
		if _, err := s.Send(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := answerRequests(e.srv)
	for i, r := range reqs {
		if sys := r.SystemText(); strings.Count(sys, "[K-1a2b3c4d] as of 2026-11-20, by alice, added by hand: the scanner") != 1 {
			t.Fatalf("request %d's system instruction:\n%s", i, sys)
		}
	}
	stored, err := e.store.GetHistory(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(stored.KnowledgeIDs, []record.KnowledgeID{"1a2b3c4d-0000-4000-8000-000000000000"}) {
		t.Fatalf("stored knowledge_ids %v", stored.KnowledgeIDs)
	}
	if k.calls != 1 {
		t.Errorf("looked up %d times", k.calls)
	}

	resumed := e.sessionWith(t, k, stored)
	if _, err := resumed.Send(ctx, "third", nil); err != nil {
		t.Fatal(err)
	}
	if sys := answerRequests(e.srv)[2].SystemText(); strings.Count(sys, "[K-1a2b3c4d] as of 2026-11-20, by alice, added by hand: the scanner") != 1 || k.calls != 1 {
		t.Fatalf("a resumed conversation looked up notes anew (%d) or lost the one it was given:\n%s", k.calls, sys)
	}
	if len(k.asked) != 1 || !slices.Equal(k.asked[0], stored.KnowledgeIDs) {
		t.Errorf("asked by ID for %v", k.asked)
	}

	// Retired since: never given again, and the history still says it was given.
	k.active[id] = false
	again, err := e.store.GetHistory(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.sessionWith(t, k, again).Send(ctx, "fourth", nil); err != nil {
		t.Fatal(err)
	}
	if sys := answerRequests(e.srv)[3].SystemText(); strings.Contains(sys, "Team notes") {
		t.Fatalf("a retired note was given again:\n%s", sys)
	}
	if final, _ := e.store.GetHistory(ctx, s.History().ID); !slices.Equal(final.KnowledgeIDs, []record.KnowledgeID{id}) {
		t.Errorf("knowledge_ids after the resumes: %v", final.KnowledgeIDs)
	}

	// A source that cannot read by ID gives a resumed conversation nothing.
	plain := &notes{es: k.es}
	if _, err := e.sessionWith(t, plain, again).Send(ctx, "fifth", nil); err != nil {
		t.Fatal(err)
	}
	if sys := answerRequests(e.srv)[4].SystemText(); strings.Contains(sys, "Team notes") || plain.calls != 0 {
		t.Fatalf("looked up %d times, or given:\n%s", plain.calls, sys)
	}
}

// Without a source nothing is given; a failed lookup costs the notes, not the answer.
func TestKnowledgeAbsentOrFailing(t *testing.T) {
	t.Parallel()
	for name, k := range map[string]session.Knowledge{"none": nil, "failing": &notes{err: errors.New("store down")}} {
		e := newEnv(t)
		s := e.sessionWith(t, k, nil)
		turn, err := s.Send(context.Background(), "what?", nil)
		if err != nil || turn.Answer == "" {
			t.Fatalf("%s: %v", name, err)
		}
		if sys := answerRequests(e.srv)[0].SystemText(); strings.Contains(sys, "Team notes") || len(s.History().KnowledgeIDs) != 0 {
			t.Fatalf("%s: notes given:\n%s", name, sys)
		}
	}
}
