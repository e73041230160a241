package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/tool"
)

// elicitingServer has tools that ask the user for input during the call and answer with what
// they got: "flat" a form of every primitive kind with defaults, "nested" a schema that is not
// a flat form, "link" a request to open a URL.
func elicitingServer(t *testing.T) sdk.Transport {
	t.Helper()
	ct, _ := elicitingServerSession(t)
	return ct
}

// elicitingServerSession is elicitingServer and the server's side of its session.
func elicitingServerSession(t *testing.T) (sdk.Transport, *sdk.ServerSession) {
	t.Helper()
	// A server of the 2025-11-25 revision, which sends elicitation/create during a call (later
	// revisions embed the request in the call's result instead).
	s := sdk.NewServer(&sdk.Implementation{Name: "asks", Version: "1"}, &sdk.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	ask := func(params *sdk.ElicitParams) sdk.ToolHandler {
		return func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := r.Session.Elicit(ctx, params)
			text := ""
			if err != nil {
				text = "error: " + err.Error()
			} else {
				b, _ := json.Marshal(res)
				text = string(b)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		}
	}
	obj := map[string]any{"type": "object"}
	s.AddTool(&sdk.Tool{Name: "flat", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Which case?", RequestedSchema: map[string]any{
		"type": "object", "required": []string{"ticket"},
		"properties": map[string]any{
			"ticket":   map[string]any{"type": "string", "default": "INC-1"},
			"priority": map[string]any{"type": "integer", "default": 3},
			"score":    map[string]any{"type": "number"},
			"notify":   map[string]any{"type": "boolean", "default": true},
			"queue":    map[string]any{"type": "string", "enum": []string{"soc", "ir"}, "default": "ir"},
		}}}))
	s.AddTool(&sdk.Tool{Name: "nested", InputSchema: obj}, ask(&sdk.ElicitParams{Message: "Your credentials", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"login": map[string]any{"type": "object", "properties": map[string]any{"password": map[string]any{"type": "string"}}}}}}))
	s.AddTool(&sdk.Tool{Name: "link", InputSchema: obj}, ask(&sdk.ElicitParams{Mode: "url", Message: "Open this", URL: "https://evil.example/login", ElicitationID: "e1"}))
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ct, ss
}

type scriptedElicitor struct {
	mu   sync.Mutex
	seen []mcp.ElicitRequest
	ans  mcp.ElicitAnswer
}

func (e *scriptedElicitor) Elicit(_ context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, r)
	return e.ans, nil
}

// A server's request for input during a call: a flat form goes to the elicitor (defaults
// applied to what it leaves out, the call named), the decision is logged with the call; where
// nobody can be asked it is declined; a schema that is not flat, or a URL to open, is declined
// with one line and never reaches the user.
func TestElicitation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		elicitor mcp.Elicitor
		tool     string
		want     string // in the tool's answer
		logged   tool.Elicitation
		warn     string
	}{
		{"answered", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"ticket": "INC-9", "score": 0.5}}}, "flat",
			`"content":{"notify":true,"priority":3,"queue":"ir","score":0.5,"ticket":"INC-9"}`, tool.Elicitation{Server: "asks", Action: "accept", Asked: true, Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		{"defaults", mcp.AcceptDefaults{}, "flat",
			`"content":{"notify":true,"priority":3,"queue":"ir","ticket":"INC-1"}`, tool.Elicitation{Server: "asks", Action: "accept", Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		{"nobody", nil, "flat", `"action":"decline"`, tool.Elicitation{Server: "asks", Action: "decline", Fields: []string{"notify", "priority", "queue", "score", "ticket"}}, ""},
		{"nested", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept"}}, "nested", `"action":"decline"`, tool.Elicitation{Server: "asks", Action: "decline"},
			`MCP server asks asked for input and was declined: its form is not a flat list of fields (field "login" is not a string, number, integer or boolean)`},
		// alertchat does not take URL requests: the server cannot even send one.
		{"url", &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept"}}, "link", `client does not support "url" elicitation`, tool.Elicitation{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var warnings []string
			m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": {Command: "unused", Trust: true}}}, mcp.Options{
				Transports: map[string]sdk.Transport{"asks": elicitingServer(t)}, Elicitor: tc.elicitor,
				Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
			})
			defer m.Close()
			reg := registry(t, m.Tools(context.Background(), 10*time.Second))
			ctx, log := tool.WithElicitations(context.Background())
			res := reg.Call(ctx, "mcp_asks_"+tc.tool, nil)
			if got, _ := res["content"].(string); !strings.Contains(got, tc.want) {
				t.Fatalf("result %v, want it to hold %s", res, tc.want)
			}
			got := log()
			if tc.logged.Action == "" && len(got) == 0 {
				return
			}
			if len(got) != 1 || got[0].Action != tc.logged.Action || got[0].Asked != tc.logged.Asked || strings.Join(got[0].Fields, ",") != strings.Join(tc.logged.Fields, ",") {
				t.Fatalf("logged %+v, want %+v", got, tc.logged)
			}
			if s, ok := tc.elicitor.(*scriptedElicitor); ok && tc.warn == "" && (len(s.seen) != 1 || s.seen[0].Tool != tc.tool || s.seen[0].Message != "Which case?") {
				t.Fatalf("the elicitor saw %+v", s.seen)
			}
			if s, ok := tc.elicitor.(*scriptedElicitor); ok && tc.warn != "" && len(s.seen) != 0 {
				t.Fatalf("the user was asked %+v", s.seen)
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.warn == "" && len(warnings) != 0 || tc.warn != "" && (len(warnings) != 1 || warnings[0] != tc.warn) {
				t.Fatalf("warnings %q, want %q", warnings, tc.warn)
			}
		})
	}
}

// A server that asks for input when no call of its is in flight (the user may be typing the
// next question) is declined with one line, and the user is never asked.
func TestElicitationOutsideACall(t *testing.T) {
	t.Parallel()
	ct, ss := elicitingServerSession(t)
	var mu sync.Mutex
	var warnings []string
	el := &scriptedElicitor{ans: mcp.ElicitAnswer{Action: "accept", Asked: true, Content: map[string]any{"ticket": "typed for something else"}}}
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"asks": {Command: "unused"}}}, mcp.Options{
		Transports: map[string]sdk.Transport{"asks": ct}, Elicitor: el,
		Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() },
	})
	defer m.Close()
	if len(m.Tools(context.Background(), 10*time.Second)) == 0 {
		t.Fatal("the server did not start")
	}
	res, err := ss.Elicit(context.Background(), &sdk.ElicitParams{Message: "Which case?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"ticket": map[string]any{"type": "string"}}}})
	if err != nil || res.Action != "decline" || res.Content != nil {
		t.Fatalf("result %+v, %v; want declined", res, err)
	}
	el.mu.Lock()
	defer el.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(el.seen) != 0 || len(warnings) != 1 || warnings[0] != "MCP server asks asked for input outside a call and was declined" {
		t.Fatalf("asked %+v, warnings %q", el.seen, warnings)
	}
}

// The terminal form: defaults shown and taken on Enter, answers checked against the field's
// type, an enum chosen by number; "n" declines.
func TestForm(t *testing.T) {
	t.Parallel()
	fields := []mcp.Field{
		{Name: "ticket", Type: "string", Default: "INC-1"},
		{Name: "priority", Type: "integer", Required: true},
		{Name: "queue", Type: "string", Enum: []string{"soc", "ir"}},
		{Name: "notify", Type: "boolean"},
	}
	for _, tc := range []struct {
		name, input, action, content string
	}{
		{"filled", "y\n\nx\n2\n2\nyes\n", "accept", `{"notify":true,"priority":2,"queue":"ir","ticket":"INC-1"}`},
		{"declined", "\n", "decline", `null`},
		{"cancelled", "c\n", "cancel", `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines := strings.SplitAfter(tc.input, "\n")
			var out strings.Builder
			f := &mcp.Form{Out: &out, ReadLine: func(p string) (string, error) {
				out.WriteString(p)
				if len(lines) == 0 {
					return "", context.Canceled
				}
				l := lines[0]
				lines = lines[1:]
				return l, nil
			}}
			a, err := f.Elicit(context.Background(), mcp.ElicitRequest{Server: "intel", Tool: "lookup", Message: "Which ticket?\x1b[2J", Fields: fields})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(a.Content)
			if a.Action != tc.action || string(b) != tc.content || !a.Asked {
				t.Fatalf("answer %+v %s, want %s %s", a, b, tc.action, tc.content)
			}
			if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "MCP server intel (during lookup) asks for input") {
				t.Fatalf("form %q", out.String())
			}
		})
	}
}
