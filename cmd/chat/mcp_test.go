package chat

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/syncbuf"

	"github.com/alertchat/alertchat/internal/mcptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// declared is the names of the tools a request declares.
func declared(r *geminitest.Request) []string {
	var out []string
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			out = append(out, d.Name)
		}
	}
	return out
}

// An interactive chat whose MCP server is ready only after the first question's wait: the
// first question goes without its tools (one warning), the next one has them without waiting
// (and says so once), /tools lists them, and the "not ready yet" warning is not repeated.
func TestMCPServerReadyAfterFirstQuestion(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	in, typed := io.Pipe()
	t.Cleanup(func() { _ = typed.Close() })
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	// A terminal's stdin (so the chat is interactive) but no terminal to ask approvals on.
	ios := &cmdutil.IOStreams{In: in, Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
	opts := testOptions(t, srv, ios)
	opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
	opts.MCPConfig = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(opts.MCPConfig, []byte(`{"mcpServers": {"fast": {"command": "unused"}, "late": {"command": "unused"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	managers := make(chan *mcp.Manager, 1)
	opts.mcpHooks = &mcpHooks{
		transports: map[string]sdk.Transport{"fast": mcptest.Server(t, "a"), "late": mcptest.Gated{Transport: mcptest.Server(t, "b"), Gate: gate}},
		wait:       200 * time.Millisecond,
		started:    func(m *mcp.Manager) { managers <- m },
	}
	done := make(chan error, 1)
	go func() { done <- chatRun(context.Background(), opts) }()

	// ask types a question and returns the tools its request declared.
	ask := func(question string) []string {
		t.Helper()
		if _, err := io.WriteString(typed, question+"\n"); err != nil {
			t.Fatal(err)
		}
		var got []string
		eventually.True(t, 20*time.Second, "a request for "+question, func() bool {
			for _, r := range srv.Requests() {
				if r.Kind == geminitest.KindStreamGenerateContent && r.LastUserText() == question {
					got = declared(r)
					return true
				}
			}
			return false
		}, func() string { return stderr.String() })
		return got
	}
	if got := ask("first"); !slices.Contains(got, "mcp_fast_a") || slices.Contains(got, "mcp_late_b") {
		t.Fatalf("first question declared %q: want the fast server's tool, not the late one's", got)
	}
	close(gate)
	<-(<-managers).Started()
	if got := ask("second"); !slices.Contains(got, "mcp_late_b") || !slices.Contains(got, "mcp_fast_a") {
		t.Fatalf("second question declared %q: want the late server's tool too", got)
	}
	if _, err := io.WriteString(typed, "third\n/tools\n"); err != nil {
		t.Fatal(err)
	}
	_ = typed.Close() // Ctrl-D
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat ended with %v; stderr:\n%s", err, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the chat did not end at EOF; stderr:\n%s", stderr)
	}
	errText := stderr.String()
	for _, c := range []struct {
		says string
		n    int
	}{
		{"Warning: MCP servers not ready yet, asking without them: late", 1},
		{"MCP server late is ready; its tools are offered from now on.", 1},
		{"MCP server fast is ready", 0},
	} {
		if got := strings.Count(errText, c.says); got != c.n {
			t.Errorf("%q said %d times, want %d; stderr:\n%s", c.says, got, c.n, errText)
		}
	}
	listed := false
	for _, l := range strings.Split(errText, "\n") {
		listed = listed || strings.HasPrefix(l, "mcp_late_b") && strings.Contains(l, "MCP server late") && strings.Contains(l, "asks before it runs")
	}
	if !listed {
		t.Errorf("/tools did not list the late server's tool; stderr:\n%s", errText)
	}
}

// lastResponse is the last function response of a request, nil when its last content holds none.
func lastResponse(r *geminitest.Request) *genai.FunctionResponse {
	if len(r.Contents) == 0 {
		return nil
	}
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			return p.FunctionResponse
		}
	}
	return nil
}

// A server that announces a changed tool list (as the reference server does right after it
// starts, and again mid-chat while one of its calls is in flight): its new list replaces its
// old one before the next question, without a warning about its own tools colliding, without
// restarting it, and the call in flight is answered.
func TestMCPChangedToolListReplacesTheOld(t *testing.T) {
	t.Parallel()
	obj := map[string]any{"type": "object"}
	answer := func(text string) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil
		}
	}
	entered, release := make(chan struct{}), make(chan struct{})
	s := sdk.NewServer(&sdk.Implementation{Name: "changing", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "a", InputSchema: obj}, answer("a"))
	s.AddTool(&sdk.Tool{Name: "slow", InputSchema: obj}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slow done"}}}, nil
	})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	// Counted once the manager recorded the change, not when the notification passed the
	// transport: a question asked in between would still see the old list.
	var changes atomic.Int32

	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if fr := lastResponse(r); fr != nil {
			b, _ := json.Marshal(fr.Response)
			return geminitest.Reply{Text: "the call said " + string(b)}
		}
		if r.LastUserText() == "second" {
			return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "mcp_x_slow", Args: map[string]any{}}}}}
		}
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	in, typed := io.Pipe()
	t.Cleanup(func() { _ = typed.Close() })
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	ios := &cmdutil.IOStreams{In: in, Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
	opts := testOptions(t, srv, ios)
	opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
	opts.MCPConfig = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(opts.MCPConfig, []byte(`{"mcpServers": {"x": {"command": "unused", "trust": true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	managers := make(chan *mcp.Manager, 1)
	opts.mcpHooks = &mcpHooks{transports: map[string]sdk.Transport{"x": ct}, wait: 20 * time.Second,
		started: func(m *mcp.Manager) { managers <- m }, toolsChanged: func(string) { changes.Add(1) }}
	done := make(chan error, 1)
	go func() { done <- chatRun(context.Background(), opts) }()
	<-(<-managers).Started()

	// The server changes its list after it started and before its tools were first offered.
	s.AddTool(&sdk.Tool{Name: "b", InputSchema: obj}, answer("b"))
	eventually.True(t, 10*time.Second, "the first list_changed", func() bool { return changes.Load() >= 1 }, stderr.String)

	ask := func(question string) *geminitest.Request {
		t.Helper()
		if _, err := io.WriteString(typed, question+"\n"); err != nil {
			t.Fatal(err)
		}
		var got *geminitest.Request
		eventually.True(t, 20*time.Second, "a request for "+question, func() bool {
			for _, r := range srv.Requests() {
				if r.Kind == geminitest.KindStreamGenerateContent && r.LastUserText() == question {
					got = r
					return true
				}
			}
			return false
		}, stderr.String)
		return got
	}
	// mcpDeclared are the MCP tools a request declared.
	mcpDeclared := func(r *geminitest.Request) []string {
		var out []string
		for _, n := range declared(r) {
			if strings.HasPrefix(n, "mcp_") {
				out = append(out, n)
			}
		}
		return out
	}
	if got := mcpDeclared(ask("first")); !slices.Equal(got, []string{"mcp_x_a", "mcp_x_b", "mcp_x_slow"}) {
		t.Fatalf("first question declared %q", got)
	}

	// Mid-call the server changes its list again: the call in flight is still answered.
	ask("second")
	<-entered
	s.RemoveTools("a")
	s.AddTool(&sdk.Tool{Name: "c", InputSchema: obj}, answer("c"))
	eventually.True(t, 10*time.Second, "the second list_changed", func() bool { return changes.Load() >= 2 }, stderr.String)
	close(release)
	eventually.True(t, 20*time.Second, "the slow call's answer", func() bool {
		for _, r := range srv.Requests() {
			if fr := lastResponse(r); fr != nil && fr.Name == "mcp_x_slow" {
				return fr.Response["content"] == "slow done"
			}
		}
		return false
	}, stderr.String)
	if got := mcpDeclared(ask("third")); !slices.Equal(got, []string{"mcp_x_b", "mcp_x_c", "mcp_x_slow"}) {
		t.Fatalf("third question declared %q, want the new list only", got)
	}
	_ = typed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat ended with %v; stderr:\n%s", err, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the chat did not end at EOF; stderr:\n%s", stderr)
	}
	errText := stderr.String()
	if strings.Contains(errText, "Warning") {
		t.Errorf("warnings:\n%s", errText)
	}
	if n := strings.Count(errText, "MCP server x changed its tools"); n != 1 {
		t.Errorf("the change was said %d times, want once (the mid-chat one):\n%s", n, errText)
	}
}
