//go:build unix

package e2e_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/proctest"
)

// killLeft ends, when the test ends, the process whose PID is in pidFile if it still runs: a
// case that shows what survives must not leave it behind.
func killLeft(t *testing.T, pidFile string) {
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 && proctest.Alive(pid) {
				if p, err := os.FindProcess(pid); err == nil {
					_ = p.Kill()
				}
			}
		}
	})
}

// alertchat stopped by SIGTERM, SIGHUP or SIGKILL leaves no MCP server running, and on the
// signals it handles, nothing the server started either (npx's node, a wrapper's child). On
// SIGKILL, which no clean-up follows, Linux's parent-death signal ends the server alone: the
// case runs where that exists.
func TestMCPServerStopsWithAlertchat(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			if sig == syscall.SIGKILL && runtime.GOOS != "linux" {
				t.Skip("a killed parent takes its child only on Linux (Pdeathsig)")
			}
			c := newCLI(t, titleAnswer("T"))
			alertID := c.addAlert("guardduty.json")
			dir := t.TempDir()
			pid, child := filepath.Join(dir, "pid"), filepath.Join(dir, "child")
			killLeft(t, child)
			cfg := mcpConfigWith(t, map[string]any{"timeout": 2000, "env": map[string]string{"MCPSERVER_PIDFILE": pid, "MCPSERVER_CHILD_PIDFILE": child}})
			term := startTerminal(t, c, 120, "chat", "-a", alertID, "--mcp-config", cfg)
			term.waitFor("/help for commands")
			eventually.True(t, 20*time.Second, "the server to start", func() bool { _, err := os.Stat(pid); return err == nil }, nil)
			if err := term.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = term.cmd.Wait()
			assertStopped(t, pid)
			if sig != syscall.SIGKILL {
				assertStopped(t, child)
			}
		})
	}
}

// A one-shot question interrupted by SIGINT (Ctrl-C) or SIGTERM while the model thinks ends
// with the server and its child gone, and the question kept.
func TestMCPServerStopsWithOneShot(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			asked := make(chan struct{}, 1)
			c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				if r.Kind == geminitest.KindGenerateContent {
					return geminitest.Reply{Text: "T"}
				}
				select {
				case asked <- struct{}{}:
				default:
				}
				return geminitest.Reply{Chunks: []string{"thinking "}, Hang: true}
			}))
			alertID := c.addAlert("guardduty.json")
			dir := t.TempDir()
			pid, child := filepath.Join(dir, "pid"), filepath.Join(dir, "child")
			killLeft(t, child)
			cfg := mcpConfigWith(t, map[string]any{"env": map[string]string{"MCPSERVER_PIDFILE": pid, "MCPSERVER_CHILD_PIDFILE": child}})
			cmd := exec.Command(binary, "chat", "-a", alertID, "-q", "what is 203.0.113.7?", "--mcp-config", cfg)
			cmd.Env, cmd.Dir = c.env, c.dataDir
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-asked:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the question never reached the model")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("alertchat did not end on %v:\n%s", sig, stderr.String())
			}
			assertStopped(t, pid)
			assertStopped(t, child)
		})
	}
}
