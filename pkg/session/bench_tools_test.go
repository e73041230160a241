package session_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
)

// callingLLM answers a question with n calls in one content, then, once they are answered,
// with text; in memory, so a benchmark times the loop, not a server.
type callingLLM struct{ n int }

func (c callingLLM) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return nil, nil
}

func (c callingLLM) GenerateContentStream(_ context.Context, _ string, contents []*genai.Content, _ *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	last := contents[len(contents)-1]
	var parts []*genai.Part
	if c.n > 0 && (len(last.Parts) == 0 || last.Parts[0].FunctionResponse == nil) {
		for i := range c.n {
			parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: "wait", Args: map[string]any{"i": float64(i)}}})
		}
	} else {
		parts = []*genai.Part{{Text: "done"}}
	}
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}}}}, nil)
	}
}

// waitTool answers after d.
type waitTool struct{ d time.Duration }

func (w waitTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: "wait", Description: "wait"}
}

func (w waitTool) Call(ctx context.Context, _ map[string]any) map[string]any {
	if w.d > 0 {
		t := time.NewTimer(w.d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return map[string]any{"ok": true}
}

// discardStore keeps nothing.
type discardStore struct{}

func (discardStore) SaveHistory(context.Context, *record.History) error { return nil }

func benchToolQuestion(b *testing.B, calls int, d time.Duration) {
	reg, err := tool.NewRegistry(waitTool{d})
	if err != nil {
		b.Fatal(err)
	}
	alert := &record.Alert{ID: "alert", Data: json.RawMessage(`{"Title":"bench"}`)}
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		sess, err := session.New(session.Options{LLM: callingLLM{calls}, Store: discardStore{}, Redactor: nopRedactor{}, Model: "m", Tools: reg}, alert, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := sess.Send(ctx, "What next?", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolLoop: a question answered at once, with one instant call, with four instant
// calls, and with four calls that each take 20 ms (concurrent: about 20 ms, not 80). The loop's
// own cost per call is (one call - none), the model and the tool being instant.
func BenchmarkToolLoop(b *testing.B) {
	b.Run("no call", func(b *testing.B) { benchToolQuestion(b, 0, 0) })
	b.Run("one call", func(b *testing.B) { benchToolQuestion(b, 1, 0) })
	b.Run("four calls", func(b *testing.B) { benchToolQuestion(b, 4, 0) })
	b.Run("four 20ms calls", func(b *testing.B) { benchToolQuestion(b, 4, 20*time.Millisecond) })
}
