package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
)

// echoTool answers its "q" argument back; slow ones wait for release or cancellation.
type echoTool struct {
	name    string
	release chan struct{}
	started chan struct{}
	mu      sync.Mutex
	calls   int
}

func (e *echoTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: e.name, Description: "echo", Parameters: &genai.Schema{Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{"q": {Type: genai.TypeString}}}}
}

func (e *echoTool) Call(ctx context.Context, args map[string]any) map[string]any {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	if e.started != nil {
		e.started <- struct{}{}
	}
	if e.release != nil {
		select {
		case <-e.release:
		case <-ctx.Done():
			return tool.Error("interrupted")
		}
	}
	return map[string]any{"echo": args["q"]}
}

func (e *env) toolSession(t *testing.T, o func(*session.Options), tools ...tool.Tool) *session.Session {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	opts := session.Options{LLM: client.Models, Store: e.store, Redactor: e.red, Model: "gemini-test", Tools: reg}
	if o != nil {
		o(&opts)
	}
	s, err := session.New(opts, e.alert, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(name, id string, args map[string]any) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: name, Args: args}}
}

// answered reports whether the request's last content answers calls (a round of responses).
func answered(r *geminitest.Request) bool {
	last := r.Contents[len(r.Contents)-1]
	return len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil
}

// Two calls in one content, one without an id and the first with a thought signature: both
// run, the transcript is the four contents of the contract, the model's content as received,
// the responses in call order with name and id copied, and the fake (which refuses unpaired
// requests like the API) accepts the follow-up.
func TestToolRoundTranscript(t *testing.T) {
	t.Parallel()
	sig := []byte("signature-bytes")
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if answered(r) {
			return geminitest.Reply{Text: "found it"}
		}
		first := call("echo", "", map[string]any{"q": "203.0.113.7"})
		first.ThoughtSignature = sig
		return geminitest.Reply{Parts: []*genai.Part{first, call("echo", "c2", map[string]any{"q": "two"})}}
	}))
	echo := &echoTool{name: "echo"}
	s := e.toolSession(t, nil, echo)
	turn, err := s.Send(context.Background(), "where was 203.0.113.7 seen?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "found it" || len(turn.ToolCalls) != 2 || turn.ToolCalls[0].Name != "echo" || turn.ToolCalls[1].Error != "" {
		t.Fatalf("turn %+v", turn)
	}
	live := s.Contents()
	if len(live) != 4 {
		t.Fatalf("%d contents, want question, calls, responses, answer", len(live))
	}
	calls, responses := live[1], live[2]
	if calls.Role != genai.RoleModel || string(calls.Parts[0].ThoughtSignature) != string(sig) || calls.Parts[1].FunctionCall.ID != "c2" {
		t.Fatalf("model content not kept as received: %s", contentJSON(t, calls))
	}
	if responses.Role != genai.RoleUser || len(responses.Parts) != 2 {
		t.Fatalf("responses: %s", contentJSON(t, responses))
	}
	for i, want := range []struct{ id, echo string }{{"", "203.0.113.7"}, {"c2", "two"}} {
		fr := responses.Parts[i].FunctionResponse
		if fr.Name != "echo" || fr.ID != want.id || fr.Response["echo"] != want.echo {
			t.Fatalf("response %d: %+v", i, fr)
		}
	}
	if h := s.History(); h.ToolCalls != 2 || h.MessageCount != 4 {
		t.Fatalf("history metadata: %d calls, %d messages", h.ToolCalls, h.MessageCount)
	}
	for _, r := range e.srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent && (len(r.Tools) != 1 || r.Tools[0].FunctionDeclarations[0].Name != "echo") {
			t.Fatalf("request %d does not declare the tool", r.Seq)
		}
	}
	// A resumed history with calls is sent back exactly as stored, and the fake takes it.
	got, err := e.store.GetHistory(context.Background(), s.History().ID)
	if err != nil || len(got.Contents) != 4 || string(got.Contents[1].Parts[0].ThoughtSignature) != string(sig) {
		t.Fatalf("stored: %v", err)
	}
	again, err := session.New(session.Options{LLM: geminiModels(t, e), Store: e.store, Redactor: e.red, Model: "gemini-test"}, e.alert, got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Send(context.Background(), "and then?", nil); err != nil {
		t.Fatalf("resumed with calls: %v", err)
	}
}

// A model that keeps calling gets an answer to every call, then one request with calling
// turned off, and the question ends in text: after the same call three times, and after
// --max-tool-calls calls.
func TestToolLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		max       int
		distinct  bool
		wantCalls int
	}{
		{"same call three times", 12, false, 3},
		{"max calls", 4, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n int
			var mu sync.Mutex
			e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				if r.ToolConfig != nil && r.ToolConfig.FunctionCallingConfig != nil && r.ToolConfig.FunctionCallingConfig.Mode == genai.FunctionCallingConfigModeNone {
					return geminitest.Reply{Text: "final answer"}
				}
				mu.Lock()
				n++
				q := "same"
				if tc.distinct {
					q = strings.Repeat("x", n)
				}
				mu.Unlock()
				return geminitest.Reply{Parts: []*genai.Part{call("echo", "", map[string]any{"q": q})}}
			}))
			s := e.toolSession(t, func(o *session.Options) { o.MaxToolCalls = tc.max }, &echoTool{name: "echo"})
			turn, err := s.Send(context.Background(), "go", nil)
			if err != nil {
				t.Fatal(err)
			}
			if turn.Answer != "final answer" || len(turn.ToolCalls) != tc.wantCalls {
				t.Fatalf("answer %q after %d calls, want %d", turn.Answer, len(turn.ToolCalls), tc.wantCalls)
			}
		})
	}
}

// Bad calls are results the model reads: an unknown tool, a panicking tool, a result over the
// size limit (cut, and it says so); a tool of a server that asks is denied when no one can
// approve it.
func TestToolFailuresAreResults(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if answered(r) {
			return geminitest.Reply{Text: "ok"}
		}
		return geminitest.Reply{Parts: []*genai.Part{
			call("nope", "", nil), call("big", "", nil), call("mcp_intel_lookup", "", map[string]any{"ip": "203.0.113.7"}),
		}}
	}))
	s := e.toolSession(t, func(o *session.Options) { o.MaxToolResult = 1000 },
		toolFunc{"big", func() map[string]any { return map[string]any{"content": strings.Repeat("a", 5000)} }, tool.Origin{}},
		toolFunc{"mcp_intel_lookup", func() map[string]any { return map[string]any{"content": "ran"} }, tool.Origin{Server: "intel"}})
	turn, err := s.Send(context.Background(), "go", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := s.Contents()[2].Parts
	if msg, _ := resp[0].FunctionResponse.Response["error"].(string); !strings.Contains(msg, "unknown tool") {
		t.Fatalf("unknown tool: %v", resp[0].FunctionResponse.Response)
	}
	if note, _ := resp[1].FunctionResponse.Response["note"].(string); !strings.Contains(note, "cut at") {
		t.Fatalf("big result: %v", resp[1].FunctionResponse.Response)
	}
	if b, _ := json.Marshal(resp[1].FunctionResponse.Response); len(b) > 1200 {
		t.Fatalf("cut result is %d bytes", len(b))
	}
	if msg, _ := resp[2].FunctionResponse.Response["error"].(string); !strings.HasPrefix(msg, "denied") {
		t.Fatalf("untrusted tool without an approver: %v", resp[2].FunctionResponse.Response)
	}
	if turn.ToolCalls[2].Error == "" {
		t.Fatal("the denial is not reported")
	}
}

// Ctrl-C while a call runs answers it "cancelled", ends the turn at that content boundary, the
// reply after the responses marked cut short, and saves it.
func TestCancelDuringCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Parts: []*genai.Part{call("slow", "s1", map[string]any{"q": "x"})}}
	}))
	slow := &echoTool{name: "slow", release: make(chan struct{}), started: make(chan struct{}, 1)}
	s := e.toolSession(t, nil, slow)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-slow.started
		cancel()
	}()
	turn, err := s.Send(ctx, "go", nil)
	if !errors.Is(err, context.Canceled) || turn == nil {
		t.Fatalf("turn %+v, err %v", turn, err)
	}
	live := s.Contents()
	if len(live) != 4 {
		t.Fatalf("%d contents, want question, call, response, reply cut short", len(live))
	}
	if msg := live[2].Parts[0].FunctionResponse.Response["error"]; msg != "cancelled" {
		t.Fatalf("response %v", live[2].Parts[0].FunctionResponse.Response)
	}
	if !turn.Partial || live[3].Role != genai.RoleModel || len(live[3].Parts) != 1 || live[3].Parts[0].Text != session.PartialMarker {
		t.Fatalf("the reply is not marked cut short: %s", contentJSON(t, live[3]))
	}
	got, err := e.store.GetHistory(context.Background(), s.History().ID)
	if err != nil || len(got.Contents) != 4 {
		t.Fatalf("saved: %v", err)
	}
}

type toolFunc struct {
	name   string
	fn     func() map[string]any
	origin tool.Origin
}

func (f toolFunc) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: f.name, Description: f.name}
}
func (f toolFunc) Call(context.Context, map[string]any) map[string]any { return f.fn() }
func (f toolFunc) Origin() tool.Origin                                 { return f.origin }

func contentJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func geminiModels(t *testing.T, e *env) *genai.Models {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return client.Models
}
