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
// and their IDs are saved on the history; a resumed one is given none anew.
func TestKnowledgeGivenToNewInvestigations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := &notes{es: []*record.Knowledge{{ID: "1a2b3c4d-0000-4000-8000-000000000000", Text: "the scanner", Author: "alice",
		CreatedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}}}
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
	if sys := answerRequests(e.srv)[2].SystemText(); strings.Contains(sys, "[K-") || k.calls != 1 {
		t.Fatalf("a resumed conversation looked up notes (%d) or was given some:\n%s", k.calls, sys)
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
