package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/pkg/geminitest"
)

var (
	mcpServerOnce sync.Once
	mcpServerBin  string
	mcpServerErr  error
)

// mcpServer builds testdata/mcpserver (an MCP server written with the Go SDK) once.
func mcpServer(t *testing.T) string {
	t.Helper()
	mcpServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpserver-")
		if err != nil {
			mcpServerErr = err
			return
		}
		mcpServerBin = filepath.Join(dir, "mcpserver")
		out, err := exec.Command("go", "build", "-o", mcpServerBin, "../testdata/mcpserver").CombinedOutput()
		if err != nil {
			mcpServerErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if mcpServerErr != nil {
		t.Fatal(mcpServerErr)
	}
	return mcpServerBin
}

// mcpConfig writes a config naming the test server "intel", its PID written to pidFile.
func mcpConfig(t *testing.T, trust bool, pidFile string) string {
	t.Helper()
	cfg := map[string]any{"mcpServers": map[string]any{"intel": map[string]any{
		"command": mcpServer(t), "env": map[string]string{"MCPSERVER_PIDFILE": pidFile}, "trust": trust, "timeout": 2000,
	}}}
	b, _ := json.Marshal(cfg)
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// callsThenAnswer scripts a model that makes one call per round, in order, then answers with
// the last round's responses.
func callsThenAnswer(calls ...*genai.FunctionCall) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "MCP title"}
		}
		rounds := 0
		for i := len(r.Contents) - 1; i >= 0; i-- {
			c := r.Contents[i]
			if c.Role == genai.RoleUser && len(c.Parts) > 0 && c.Parts[0].Text != "" {
				break
			}
			if c.Role == genai.RoleUser {
				rounds++
			}
		}
		if rounds < len(calls) {
			return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: calls[rounds]}}}
		}
		b, _ := json.Marshal(r.Contents[len(r.Contents)-1].Parts)
		return geminitest.Reply{Text: "answer after tools: " + string(b)}
	})
}

// Piped, nobody can approve: the untrusted server's tools are denied, the question is still
// answered, exit 0; the server's plea to be trusted changes nothing.
func TestMCPDeniedWhenNobodyCanAsk(t *testing.T) {
	t.Parallel()
	c := newCLI(t, callsThenAnswer(&genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}))
	alertID := c.addAlert("guardduty.json")
	cfg := mcpConfig(t, false, filepath.Join(t.TempDir(), "pid"))
	r := c.run("", "chat", "-o", "json", "-a", alertID, "-q", "who is 203.0.113.7?", "--mcp-config", cfg)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out toolChatOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.ToolCalls) != 1 || !strings.HasPrefix(out.ToolCalls[0].Error, "denied") || !strings.Contains(out.Answer, "answer after tools") {
		t.Fatalf("%+v", out)
	}
	// A trusted server's tool runs without asking.
	c2 := newCLI(t, callsThenAnswer(&genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}))
	c2.dataDir, c2.env = c.dataDir, withBaseURL(c.env, c2.srv.URL())
	r = c2.run("", "chat", "-o", "json", "-a", alertID, "-q", "again", "--mcp-config", mcpConfig(t, true, filepath.Join(t.TempDir(), "pid")))
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v: %s", r.code, err, r.stderr)
	}
	if out.ToolCalls[0].Error != "" || !strings.Contains(out.Answer, "known scanner") {
		t.Fatalf("trusted: %+v", out)
	}
	// A config that is not valid is a usage error.
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"command": "a", "url": "b"}}}`), 0o600)
	if r := c.run("", "chat", "-a", alertID, "-q", "x", "--mcp-config", bad); r.code != 2 || !strings.Contains(r.stderr, "exactly one") {
		t.Fatalf("bad config: exit %d, %q", r.code, r.stderr)
	}
}

func withBaseURL(env []string, url string) []string {
	out := append([]string(nil), env...)
	for i, kv := range out {
		if strings.HasPrefix(kv, "GOOGLE_GEMINI_BASE_URL=") {
			out[i] = "GOOGLE_GEMINI_BASE_URL=" + url
		}
	}
	return out
}

// On a terminal each untrusted call asks: y runs it once, Enter (no) denies it, a runs it for
// the rest of the session; /tools lists the tools, their server and whether they ask.
func TestMCPApprovalOnTerminal(t *testing.T) {
	t.Parallel()
	lookup := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}
	c := newCLI(t, callsThenAnswer(lookup, &genai.FunctionCall{Name: "mcp_intel_env"}))
	alertID := c.addAlert("guardduty.json")
	pid := filepath.Join(t.TempDir(), "pid")
	term := startTerminal(t, c, 160, "chat", "-a", alertID, "--mcp-config", mcpConfig(t, false, pid))
	term.waitFor("/help for commands")
	term.typeLine("/tools")
	term.waitFor("mcp_intel_lookup")
	term.typeLine("first")
	term.waitFor("Run mcp_intel_lookup of MCP server intel")
	term.typeLine("y")
	term.waitFor("Run mcp_intel_env of MCP server intel")
	term.typeLine("")
	term.waitFor("answer after tools")
	term.typeLine("second")
	term.waitForCount("Run mcp_intel_lookup of MCP server intel", 2)
	term.typeLine("a")
	term.waitForCount("Run mcp_intel_env of MCP server intel", 2)
	term.typeLine("n")
	term.waitForCount("answer after tools", 2)
	term.typeLine("third")
	term.waitForCount("Run mcp_intel_env of MCP server intel", 3)
	term.typeLine("n")
	term.waitForCount("answer after tools", 3)
	term.typeLine("/exit")
	screen := term.wait()
	if n := strings.Count(screen, "Run mcp_intel_lookup"); n != 2 {
		t.Fatalf("lookup asked %d times, want 2 (always after a)", n)
	}
	if strings.Contains(screen, "GEMINI_API_KEY") {
		t.Fatal("the server's environment held alertchat's key")
	}
	// The server stopped with the chat.
	assertStopped(t, pid)
}

// assertStopped checks that the server whose PID is in pidFile is gone.
func assertStopped(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the server never started: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	eventually.True(t, 10*time.Second, "the MCP server to stop", func() bool {
		return syscall.Kill(pid, 0) != nil
	}, nil)
}

// alertchat stopped by SIGTERM, SIGHUP or SIGKILL leaves no MCP server running.
func TestMCPServerStopsWithAlertchat(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, titleAnswer("T"))
			alertID := c.addAlert("guardduty.json")
			pid := filepath.Join(t.TempDir(), "pid")
			term := startTerminal(t, c, 120, "chat", "-a", alertID, "--mcp-config", mcpConfig(t, false, pid))
			term.waitFor("/help for commands")
			eventually.True(t, 20*time.Second, "the server to start", func() bool { _, err := os.Stat(pid); return err == nil }, nil)
			if err := term.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = term.cmd.Wait()
			assertStopped(t, pid)
		})
	}
}
