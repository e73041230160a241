package conclude_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/record"
)

func models(t *testing.T, srv *geminitest.Server) *genai.Models {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k",
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c.Models
}

func investigation() (*record.Alert, *record.History) {
	a := &record.Alert{ID: "alert-1", Data: json.RawMessage(`{"RemoteIp":"203.0.113.7","Type":"Recon:EC2/PortProbeUnprotectedPort"}`)}
	h := &record.History{ID: "h1", AlertID: a.ID, Contents: []*genai.Content{
		genai.NewContentFromText("Who owns 203.0.113.7?", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "let me think about ownership", Thought: true}, {Text: "It is our own vulnerability scanner."}}},
	}}
	return a, h
}

const good = `{"verdict":"false_positive","conclusion":"The probes came from 203.0.113.7, the team's own scanner. Nothing else touched the instance."}`

// The request is Gemini 3's structured output, built simply: JSON with a schema whose verdict
// is an enum of the verdicts, room to think, no temperature and no thinking budget.
func TestSuggestRequest(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Text: good})
	a, h := investigation()
	s, err := conclude.Suggest(context.Background(), models(t, srv), "gemini-3.8-flash", a, h)
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != record.VerdictFalsePositive || !strings.HasPrefix(s.Conclusion, "The probes came") {
		t.Fatalf("suggestion %+v", s)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	gc := r.GenerationConfig
	if r.Kind != geminitest.KindGenerateContent || r.Model != "gemini-3.8-flash" || gc == nil {
		t.Fatalf("request %s %s, config %+v", r.Kind, r.Model, gc)
	}
	// gemini-3.8-flash: its lowest level (LOW), never a budget, room for that thinking.
	if gc.ResponseMIMEType != "application/json" || gc.Temperature != nil || gc.ThinkingConfig == nil ||
		gc.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow || gc.ThinkingConfig.ThinkingBudget != nil || gc.MaxOutputTokens < 3000 {
		t.Fatalf("generation config %+v, thinking %+v", gc, gc.ThinkingConfig)
	}
	sch := gc.ResponseSchema
	if sch == nil || sch.Type != genai.TypeObject || !slices.Equal(sch.Required, []string{"verdict", "conclusion", "confidence", "evidence"}) {
		t.Fatalf("schema %+v", sch)
	}
	if c := sch.Properties["confidence"]; c == nil || c.Type != genai.TypeNumber || c.Minimum == nil || *c.Minimum != 0 || c.Maximum == nil || *c.Maximum != 1 {
		t.Fatalf("confidence schema %+v", c)
	}
	want := []string{"true_positive", "false_positive", "benign", "escalated", "inconclusive"}
	if v := sch.Properties["verdict"]; v == nil || v.Type != genai.TypeString || !slices.Equal(v.Enum, want) {
		t.Fatalf("verdict schema %+v", sch.Properties["verdict"])
	}
	if c := sch.Properties["conclusion"]; c == nil || c.Type != genai.TypeString {
		t.Fatalf("conclusion schema %+v", sch.Properties["conclusion"])
	}
	if e := sch.Properties["evidence"]; e == nil || e.Type != genai.TypeArray || e.Items == nil ||
		!slices.Equal(e.Items.Required, []string{"value", "claim"}) {
		t.Fatalf("evidence schema %+v", sch.Properties["evidence"])
	}
	body := r.LastUserText()
	if !strings.Contains(body, "Recon:EC2/PortProbeUnprotectedPort") || !strings.Contains(body, "Analyst: Who owns 203.0.113.7?") ||
		!strings.Contains(body, "Assistant: It is our own vulnerability scanner.") || strings.Contains(body, "let me think") {
		t.Fatalf("the request's text: %q", body)
	}
	if !strings.Contains(r.SystemText(), "two to four sentences") {
		t.Fatalf("system instruction %q", r.SystemText())
	}
}

// An answer that is not the schema is asked again once; twice is a clear error.
func TestSuggestBadAnswers(t *testing.T) {
	t.Parallel()
	bad := map[string]geminitest.Reply{
		"prose":           {Text: "I think this is a false positive."},
		"fenced":          {Text: "```json\n" + good + "\n```"},
		"unknown verdict": {Text: `{"verdict":"malicious","conclusion":"It is bad."}`},
		"no conclusion":   {Text: `{"verdict":"benign"}`},
		"empty":           {Text: `{"verdict":"benign","conclusion":"  "}`},
		"extra field":     {Text: `{"verdict":"benign","conclusion":"Fine.","certainty":0.9}`},
		"two values":      {Text: good + good},
		"nothing":         {FinishReason: genai.FinishReasonMaxTokens},
		"blocked":         {BlockReason: genai.BlockedReasonSafety},
	}
	for name, reply := range bad {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, h := investigation()
			// Once bad, then good: the retry answers.
			srv := geminitest.NewServer(t)
			srv.Enqueue(reply, geminitest.Reply{Text: good})
			s, err := conclude.Suggest(context.Background(), models(t, srv), "m", a, h)
			if err != nil || s.Verdict != record.VerdictFalsePositive || len(srv.Requests()) != 2 {
				t.Fatalf("bad then good: %+v, %v, %d requests", s, err, len(srv.Requests()))
			}
			// Twice bad: an error naming what went wrong, after exactly two requests.
			srv = geminitest.NewServer(t)
			srv.Enqueue(reply, reply)
			s, err = conclude.Suggest(context.Background(), models(t, srv), "m", a, h)
			if !errors.Is(err, conclude.ErrBadAnswer) || s != nil || len(srv.Requests()) != 2 {
				t.Fatalf("twice bad: %+v, %v, %d requests", s, err, len(srv.Requests()))
			}
		})
	}
}

// A failed request is not a bad answer: it is reported as it is, not asked again here.
func TestSuggestRequestFails(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Status: 400, ErrorMessage: "bad request"})
	a, h := investigation()
	_, err := conclude.Suggest(context.Background(), models(t, srv), "m", a, h)
	var apiErr genai.APIError
	if err == nil || errors.Is(err, conclude.ErrBadAnswer) || !errors.As(err, &apiErr) || len(srv.Requests()) != 1 {
		t.Fatalf("%v after %d requests", err, len(srv.Requests()))
	}
}

// A long conversation is sent by its most recent turns, after the summary of what came before.
func TestSuggestLongConversation(t *testing.T) {
	t.Parallel()
	a, h := investigation()
	big := strings.Repeat("x", 100<<10)
	h.Contents = nil
	for i := range 10 {
		h.Contents = append(h.Contents, genai.NewContentFromText(big+string(rune('a'+i)), genai.RoleUser))
	}
	h.Summary = &record.Summary{Text: "summary of the start", CoversCount: 4}
	contents, _ := conclude.Request("gemini-3.8-flash", a, h)
	text := contents[0].Parts[0].Text
	if len(text) > 500<<10 || !strings.Contains(text, "summary of the start") || !strings.Contains(text, big+"j") || strings.Contains(text, big+"a") {
		t.Fatalf("%d bytes; summary %v", len(text), strings.Contains(text, "summary of the start"))
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    *record.History
		want string
	}{
		{&record.History{Resolution: &record.Resolution{Verdict: record.VerdictFalsePositive, ResolvedBy: "alice", ResolvedAt: at}}, "false positive (alice, 11-20)"},
		{&record.History{Resolution: &record.Resolution{Verdict: record.VerdictTruePositive, ResolvedAt: at}}, "true positive (11-20)"},
		{&record.History{Questions: []record.Question{{Analyst: "bob"}, {Analyst: "carol"}}}, "open (bob)"},
		{&record.History{Questions: []record.Question{{Analyst: "b\x1b[2Job"}}}, "open (bob)"},
		{&record.History{}, "open"},
	} {
		if got := conclude.Outcome(tc.h, time.UTC); got != tc.want {
			t.Errorf("Outcome = %q, want %q", got, tc.want)
		}
	}
	// The day is the reader's.
	tokyo := time.FixedZone("JST", 9*3600)
	h := &record.History{Resolution: &record.Resolution{Verdict: record.VerdictBenign, ResolvedBy: "a", ResolvedAt: at}}
	if got := conclude.Outcome(h, tokyo); got != "benign (a, 11-21)" {
		t.Errorf("in Tokyo: %q", got)
	}
}
