package e2e_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// rssKB is the resident set size of process pid (VmRSS in /proc/PID/status), in KiB.
func rssKB(tb testing.TB, pid int) int {
	tb.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// chatRSS starts an interactive chat with the servers of config (none when ""), waits until
// /tools lists want, and returns alertchat's RSS (not its servers').
func chatRSS(b *testing.B, c *cli, alertID, config, want string) int {
	b.Helper()
	args := []string{"chat", "-a", alertID}
	if config != "" {
		args = append(args, "--mcp-config", config)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(c.env, "TERM=xterm-256color")
	cmd.Dir = c.dataDir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = tty.Close()
	}()
	var mu sync.Mutex
	var screen strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			// The line editor asks where the cursor is; a terminal answers.
			for range strings.Count(string(buf[:n]), "\x1b[6n") {
				_, _ = io.WriteString(tty, "\x1b[1;1R")
			}
			if err != nil {
				return
			}
		}
	}()
	waitScreen := func(s string) {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := strings.Contains(screen.String(), s)
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("never saw %q:\n%s", s, screen.String())
	}
	waitScreen("/help for commands")
	_, _ = io.WriteString(tty, "/tools\r")
	waitScreen(want)
	time.Sleep(200 * time.Millisecond) // settle
	return rssKB(b, cmd.Process.Pid)
}

// The RSS of alertchat (not of its servers) with three stdio MCP servers connected, against
// none: rss-KB for each, and rss-delta-KB.
func BenchmarkMCPChatRSS(b *testing.B) {
	c := newCLI(b, titleAnswer("T"))
	alertID := c.addAlert("guardduty.json")
	servers := map[string]any{}
	for _, n := range []string{"s1", "s2", "s3"} {
		servers[n] = map[string]any{"command": mcpServerFor(b)}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	config := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(config, data, 0o600); err != nil {
		b.Fatal(err)
	}
	var none, three int
	for b.Loop() {
		none += chatRSS(b, c, alertID, "", "get_alert")
		three += chatRSS(b, c, alertID, config, "mcp_s3_slow")
	}
	b.ReportMetric(float64(none)/float64(b.N), "rss-none-KB")
	b.ReportMetric(float64(three)/float64(b.N), "rss-three-KB")
	b.ReportMetric(float64(three-none)/float64(b.N), "rss-delta-KB")
}
