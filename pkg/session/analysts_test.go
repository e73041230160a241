package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// Each question records who asked it in the metadata, beside the transcript: the transcript
// holds exactly what Gemini was sent, and a resumed history adds the next analyst's question.
func TestQuestionsRecordWhoAsked(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if len(r.Tools) > 0 || r.Kind == geminitest.KindStreamGenerateContent {
			return geminitest.Reply{Text: "answer"}
		}
		return geminitest.Reply{Text: "Title"}
	}))
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	open := func(h *record.History, who string) *session.Session {
		s, err := session.New(session.Options{LLM: client.Models, Store: e.store, Redactor: e.red, Model: "gemini-test",
			Analyst: func() string { return who }}, e.alert, h)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	alice := open(nil, "alice")
	for _, q := range []string{"first?", "second?"} {
		if _, err := alice.Send(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	id := alice.History().ID
	loaded, err := e.store.GetHistory(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	bob := open(loaded, "bob")
	if _, err := bob.Send(ctx, "third?", nil); err != nil {
		t.Fatal(err)
	}
	got, err := e.store.GetHistory(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var who []string
	for _, q := range got.Questions {
		c := got.Contents[q.Content]
		if c.Role != genai.RoleUser || !strings.HasSuffix(c.Parts[0].Text, "?") || q.At.IsZero() {
			t.Fatalf("question %+v points at %+v", q, c)
		}
		who = append(who, q.Analyst+":"+c.Parts[0].Text)
	}
	if want := []string{"alice:first?", "alice:second?", "bob:third?"}; !slices.Equal(who, want) {
		t.Fatalf("questions %v, want %v", who, want)
	}
	if a := got.Analysts(); !slices.Equal(a, []string{"alice", "bob"}) {
		t.Fatalf("analysts %v", a)
	}
	// Nothing of it in what Gemini was sent.
	for _, r := range e.srv.Requests() {
		if strings.Contains(string(r.Body), "alice") || strings.Contains(string(r.Body), "bob") {
			t.Fatalf("a request names the analyst: %s", r.Body)
		}
	}
	page, err := e.store.ListHistories(ctx, store.HistoryQuery{Analyst: "bob"})
	if err != nil || len(page.Histories) != 1 || page.Histories[0].ID != id {
		t.Fatalf("bob's histories: %v %v", err, page)
	}
}

// What the analyst was shown at the start (earlier investigations and how they ended) goes to
// the model with every request, in the system instruction, never into the transcript.
func TestOfferGoesToTheModelNotTheTranscript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.session(t, false, nil)
	s.Offer("Earlier investigations: 1 false positive (alice, 11-20).")
	for _, q := range []string{"one?", "two?"} {
		if _, err := s.Send(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, r := range reqs {
		if !strings.Contains(r.SystemText(), "false positive (alice, 11-20)") || !strings.Contains(r.SystemText(), "783957204773") {
			t.Fatalf("system instruction: %q", r.SystemText())
		}
	}
	got, err := e.store.GetHistory(context.Background(), s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(mustJSON(t, got), "alice") {
		t.Fatal("the offer was stored")
	}
}
