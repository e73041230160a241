package conclude_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/record"
)

// The evidence Gemini lists comes back with the suggestion, cleaned (one line, bounded, empty
// values dropped), and the usage of the request is counted.
func TestSuggestEvidence(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Text: `{"verdict":"true_positive","conclusion":"Root signed in from a new country.",
		"evidence":[{"value":"203.0.113.7","claim":"the source of the sign-in"},{"value":"","claim":"nothing"},
		{"value":"root\u001b[2J","claim":"the user\nsigned in"}]}`})
	a, h := investigation()
	s, err := conclude.Suggest(context.Background(), models(t, srv), "gemini-3.8-flash", a, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Evidence) != 2 || s.Evidence[0].Value != "203.0.113.7" || s.Evidence[1].Value != "root" ||
		s.Evidence[1].Claim != "the user signed in" {
		t.Fatalf("evidence %+v", s.Evidence)
	}
	if s.Usage.InputTokens == 0 || s.Usage.OutputTokens == 0 {
		t.Fatalf("usage %+v", s.Usage)
	}
}

// Evidence is supported when the alert or a tool result holds it (case and spacing aside),
// also inside a result's escaped JSON strings and keys; anything else is unsupported, the
// model's own answer text included (it is not a source).
func TestGround(t *testing.T) {
	t.Parallel()
	a := &record.Alert{ID: "a", Data: json.RawMessage(`{"RemoteIp":"203.0.113.7","User":"Alice@Example.com"}`)}
	contents := []*genai.Content{
		genai.NewContentFromText("who is 198.51.100.9?", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "grep_evidence", Args: map[string]any{"pattern": "evil.example"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "grep_evidence", Response: map[string]any{
			"matches": []any{map[string]any{"text": `GET /login "quoted"   from  192.0.2.44`}}, "c2.evil.example": true}}}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "It talked to 198.51.100.9 and 192.0.2.44."}}},
	}
	src := conclude.SourcesOf(a, contents)
	cases := []struct {
		value string
		want  bool
	}{
		{"203.0.113.7", true},
		{"alice@example.com", true},
		{`/login "quoted" from 192.0.2.44`, true},
		{"c2.evil.example", true},
		{"198.51.100.9", false}, // only in the question and the model's own words
		{"evil.example", true},  // only in the call's args, but also in the result's key
		{"10.0.0.1", false},
	}
	for _, c := range cases {
		if got := src.Holds(c.value); got != c.want {
			t.Errorf("Holds(%q) = %v, want %v", c.value, got, c.want)
		}
	}
	sg := &conclude.Suggestion{Evidence: []conclude.Evidence{{Value: "203.0.113.7"}, {Value: "10.0.0.1"}}}
	if n := conclude.Ground(sg, src); n != 1 || sg.Evidence[0].Unsupported || !sg.Evidence[1].Unsupported {
		t.Fatalf("ground %d %+v", n, sg.Evidence)
	}
}
