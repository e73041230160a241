package session_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
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

// BenchmarkFirstTokenWithTools compares the first token's delay of a question the model answers
// without calling anything, with the built-in tools' declarations on the request and without.
func BenchmarkFirstTokenWithTools(b *testing.B) {
	decls := []tool.Tool{
		declOnly{"get_alert", 1}, declOnly{"search_alerts", 2}, declOnly{"search_histories", 3}, declOnly{"get_history", 2},
	}
	for _, run := range []struct {
		withTools bool
		latency   time.Duration
	}{{false, 0}, {true, 0}, {false, 20 * time.Millisecond}, {true, 20 * time.Millisecond}} {
		withTools := run.withTools
		name := "noTools"
		if withTools {
			name = "tools"
		}
		name += "/latency=" + run.latency.String()
		b.Run(name, func(b *testing.B) {
			srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithLatency(run.latency), geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
				return geminitest.Reply{Chunks: []string{"first", " rest"}}
			}))
			client := benchClient(b, srv)
			var reg *tool.Registry
			if withTools {
				var err error
				if reg, err = tool.NewRegistry(decls...); err != nil {
					b.Fatal(err)
				}
			}
			firstTokens(b, func() (*session.Session, error) {
				return session.New(session.Options{LLM: client.Models, Store: discardStore{}, Redactor: nopRedactor{}, Model: "m", Tools: reg}, benchAlert, nil)
			})
		})
	}
}

// declOnly is a tool declared with n string parameters, as the built-in ones are.
type declOnly struct {
	name string
	n    int
}

func (d declOnly) Declaration() *genai.FunctionDeclaration {
	props := map[string]*genai.Schema{}
	for i := range d.n {
		props[string(rune('a'+i))+"_argument"] = &genai.Schema{Type: genai.TypeString, Description: "an argument of the tool, described in a few words"}
	}
	return &genai.FunctionDeclaration{Name: d.name, Description: "A tool of about the built-in tools' description length.", Parameters: &genai.Schema{Type: genai.TypeObject, Properties: props}}
}

func (declOnly) Call(context.Context, map[string]any) map[string]any { return nil }
