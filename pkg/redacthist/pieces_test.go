package redacthist_test

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
)

func keyedEngine(t *testing.T) *redact.Redactor {
	t.Helper()
	tok, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return redact.New(redact.AllTypes()...).WithTokens(tok)
}

func answerOf(c *genai.Content, thought bool) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Thought == thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// TestContentsJudgesAContentAsOneText: a value cut by a part boundary (a signed part, text
// on either side of a call, thoughts apart from the answer) is replaced whole with the token
// it has anywhere else; parts and signatures stay as the API sent them.
func TestContentsJudgesAContentAsOneText(t *testing.T) {
	t.Parallel()
	r := keyedEngine(t)
	tokEmail, _ := r.String("alice@example.com")
	tokIP, _ := r.String("203.0.113.77")
	tests := []struct {
		name        string
		parts       []*genai.Part
		wantAnswer  string
		wantThought string
		wantParts   int
	}{
		{
			name: "a signed part cuts a URL's password",
			parts: []*genai.Part{
				{Text: "Use postgres://admin:S3cr3t"},
				{Text: "Passw0rd@db.internal to connect.", ThoughtSignature: []byte("sig-1")},
			},
			wantAnswer: "Use postgres://admin:[REDACTED_SECRET_", wantParts: 2,
		},
		{
			name: "an address whose rest is a signed part of its own",
			parts: []*genai.Part{
				{Text: "The source was 203.0.11"},
				{Text: "3.77", ThoughtSignature: []byte("sig-2")},
			},
			wantAnswer: "The source was " + tokIP, wantParts: 2,
		},
		{
			name: "an unsigned part left empty is dropped",
			parts: []*genai.Part{
				{Text: "owner al"},
				{Text: "ice@example.com"},
				{Text: "", ThoughtSignature: []byte("sig-3")},
			},
			wantAnswer: "owner " + tokEmail, wantParts: 2,
		},
		{
			name: "text on either side of a function call",
			parts: []*genai.Part{
				{Text: "Looking up alice@exam"},
				{FunctionCall: &genai.FunctionCall{Name: "get_alert", Args: map[string]any{"alert_id": "a1"}}, ThoughtSignature: []byte("sig-4")},
				{Text: "ple.com now"},
			},
			wantAnswer: "Looking up " + tokEmail + " now", wantParts: 3,
		},
		{
			name: "thoughts are a text of their own",
			parts: []*genai.Part{
				{Text: "mail al", Thought: true},
				{Text: "ice@example.com", Thought: true, ThoughtSignature: []byte("sig-5")},
				{Text: "Done."},
			},
			wantAnswer: "Done.", wantThought: "mail " + tokEmail, wantParts: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sigs []string
			for _, p := range tt.parts {
				if len(p.ThoughtSignature) > 0 {
					sigs = append(sigs, string(p.ThoughtSignature))
				}
			}
			c := &genai.Content{Role: genai.RoleModel, Parts: tt.parts}
			redacthist.Contents(r, []*genai.Content{c})
			if got := answerOf(c, false); !strings.HasPrefix(got, tt.wantAnswer) {
				t.Errorf("answer %q, want it to begin %q", got, tt.wantAnswer)
			}
			if got := answerOf(c, true); got != tt.wantThought {
				t.Errorf("thought %q, want %q", got, tt.wantThought)
			}
			if len(c.Parts) != tt.wantParts {
				t.Errorf("%d parts, want %d: %+v", len(c.Parts), tt.wantParts, c.Parts)
			}
			var gotSigs []string
			for _, p := range c.Parts {
				if len(p.ThoughtSignature) > 0 {
					gotSigs = append(gotSigs, string(p.ThoughtSignature))
				}
				if p.Text == "" && len(p.ThoughtSignature) == 0 && p.FunctionCall == nil {
					t.Errorf("an empty part was kept: %+v", p)
				}
			}
			if strings.Join(gotSigs, ",") != strings.Join(sigs, ",") {
				t.Errorf("signatures %q, want %q", gotSigs, sigs)
			}
			data, _ := json.Marshal(c)
			for _, raw := range []string{"S3cr3t", "Passw0rd", "203.0.11", "3.77", "ice@example", "al\""} {
				if strings.Contains(string(data), raw) {
					t.Errorf("%q survives in %s", raw, data)
				}
			}
		})
	}
}

// TestContentsCutShort: a reply cut short (its last part the marker) loses the piece of a
// value that had arrived.
func TestContentsCutShort(t *testing.T) {
	t.Parallel()
	r := keyedEngine(t)
	for _, tail := range []string{"postgres://admin:S3cr", "203.0.11", "alice@exa"} {
		c := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "Try " + tail[:3]}, {Text: tail[3:], ThoughtSignature: []byte("s")}, genai.NewPartFromText("\n\n" + redacthist.PartialMarker),
		}}
		redacthist.Contents(r, []*genai.Content{c})
		data, _ := json.Marshal(c)
		if strings.Contains(string(data), tail[3:]) || strings.Contains(answerOf(c, false), tail) {
			t.Errorf("a piece of %q survives: %s", tail, data)
		}
		if !strings.HasSuffix(answerOf(c, false), "\n\n"+redacthist.PartialMarker) {
			t.Errorf("the marker is gone: %s", data)
		}
		// the same text in a reply that was not cut short is left to the detectors
		whole := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Try " + tail}}}
		redacthist.Contents(r, []*genai.Content{whole})
		if strings.HasPrefix(tail, "203") && answerOf(whole, false) != "Try "+tail {
			t.Errorf("an uncut reply changed: %q", answerOf(whole, false))
		}
	}
}
