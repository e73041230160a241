package chat

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/syncbuf"

	"github.com/alertchat/alertchat/internal/mcptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/pkg/geminitest"
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
