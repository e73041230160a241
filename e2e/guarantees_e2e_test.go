package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// titled answers a title request with title and every question with answer.
func titled(title, answer string) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: title}
		}
		return geminitest.Reply{Text: answer}
	})
}

// pemKey is a private key as an analyst pastes or types it: only the whole block is
// recognisable, its body lines alone are not.
var pemKey = []string{
	"-----BEGIN RSA PRIVATE KEY-----",
	"MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z8b2xPQ3Qy5oW0XxNf7Kcs2w",
	"q6Mb9oyRZtB1pMzL4k3W9Kx4V0i2DzNw8rR0yCq3ZlH2bQy7m5vA1c9uT2LsYw8b",
	"-----END RSA PRIVATE KEY-----",
}

// TestInputHistoryKeepsAQuestionWhole: a private key typed in a """ block, and one pasted, reach
// the input history only redacted (the body lines included), and the next session recalls the
// question whole.
func TestInputHistoryKeepsAQuestionWhole(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Key triage"}
		}
		return geminitest.Reply{Chunks: []string{"Noted ", "question ", "end"}}
	}))
	alertID := c.addAlert("guardduty.json")

	term := startTerminal(t, c, 120, "chat", "-a", alertID)
	term.waitFor("/help for commands")
	term.typeLine(`"""`)
	for _, l := range pemKey {
		term.typeLine(l)
	}
	term.typeLine(`"""`)
	term.waitFor("Noted question end")
	term.write("whose key is this? \x1b[200~" + strings.Join(pemKey, "\r") + "\x1b[201~\r")
	eventually.True(t, 20*time.Second, "the pasted question to be asked", func() bool {
		for _, r := range c.answerRequests() {
			if r.LastUserText() == "whose key is this? "+strings.Join(pemKey, "\n") {
				return true
			}
		}
		return false
	}, func() string {
		var qs []string
		for _, r := range c.answerRequests() {
			qs = append(qs, r.LastUserText())
		}
		return fmt.Sprintf("questions asked %q; screen:\n%s", qs, term.scr.text())
	})
	term.typeLine("/exit")
	term.wait()

	path := filepath.Join(c.dataDir, "data", "input_history")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range pemKey {
		if strings.Contains(string(data), l) {
			t.Errorf("input_history holds the key's line %q raw:\n%s", l, data)
		}
	}
	if strings.Count(string(data), "[REDACTED_SECRET_") != 2 {
		t.Errorf("input_history should hold the two keys as tokens:\n%s", data)
	}

	// the next session recalls a question whole (as stored: redacted)
	term = startTerminal(t, c, 120, "chat", "-a", alertID, "--continue")
	term.waitFor("/help for commands")
	// the prompt is up (the line editor has its cursor report) before the arrow key is sent
	eventually.True(t, 20*time.Second, "the prompt", func() bool { return strings.HasSuffix(term.scr.text(), ">") }, term.scr.text)
	term.write("\x1b[A\x1b[A\r") // the last entry is /exit; the one before, the pasted question
	var recalled string
	eventually.True(t, 20*time.Second, "the recalled question to be asked", func() bool {
		for _, r := range c.answerRequests() {
			if q := r.LastUserText(); strings.HasPrefix(q, "whose key is this? [REDACTED_SECRET_") {
				recalled = q
				return true
			}
		}
		return false
	}, func() string {
		term.scr.mu.Lock()
		defer term.scr.mu.Unlock()
		h, _ := os.ReadFile(path)
		return fmt.Sprintf("history file %q; screen %q", h, term.scr.buf.String())
	})
	if strings.Contains(recalled, "\n") || strings.Contains(recalled, "MIIE") {
		t.Errorf("recalled question %q", recalled)
	}
	term.waitFor("Noted question end")
	eventually.True(t, 20*time.Second, "the prompt", func() bool { return strings.HasSuffix(term.scr.text(), ">") }, term.scr.text)
	term.typeLine("/exit")
	term.wait()
}

// TestMCPResultKeysAreRedacted: an MCP server's structured content keyed by address is stored
// with its keys redacted, and a branch nested deeper than the walk goes is replaced, not
// written as it came.
func TestMCPResultKeysAreRedacted(t *testing.T) {
	t.Parallel()
	c := newCLI(t, callsThenAnswer(&genai.FunctionCall{Name: "mcp_intel_indicators", Args: map[string]any{}}))
	alertID := c.addAlert("guardduty.json")
	cfg := mcpConfigWith(t, map[string]any{"trust": true})
	out := c.askJSON("", "-a", alertID, "-q", "what do the indicators say?", "--mcp-config", cfg)
	h := c.history(out.HistoryID)
	var resp map[string]any
	for _, content := range h.Contents {
		for _, p := range content.Parts {
			if p.FunctionResponse != nil {
				resp = p.FunctionResponse.Response
			}
		}
	}
	if resp == nil {
		t.Fatalf("no function response stored: %+v", h.Contents)
	}
	b, _ := json.Marshal(resp)
	stored := string(b)
	for _, raw := range []string{"203.0.113.99", "mallory@example.org", "soc@example.net", "deep.owner@example.net", "10.66.77.88"} {
		if strings.Contains(stored, raw) {
			t.Errorf("%s stored raw: %s", raw, stored)
		}
	}
	if !ipToken.MatchString(stored) || !emailToken.MatchString(stored) || !strings.Contains(stored, redact.TooDeep) {
		t.Errorf("stored result %s", stored)
	}
	scanForRaw(t, filepath.Join(c.dataDir, "data"), []string{"203.0.113.99", "mallory@example.org", "deep.owner@example.net"})
}

// TestAlertSecretsAreRedactedInHistories: the alert's indicators are written as they are in a
// history, but a secret or a key the alert holds is not.
func TestAlertSecretsAreRedactedInHistories(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titled("Leaked credentials", "Rotate Wint3r-Is-C0ming-42 and ghp_9z8Y7x6W5v4U3t2S1r0Q9p8O7n6M5l4K3j2I now; 192.0.2.44 is the source."))
	alert := filepath.Join(t.TempDir(), "leak.json")
	if err := os.WriteFile(alert, []byte(`{"title":"Secret in a public repository","source_ip":"192.0.2.44","committer":"dev@example.com",`+
		`"match":"db_password = \"Wint3r-Is-C0ming-42\"","token":"ghp_9z8Y7x6W5v4U3t2S1r0Q9p8O7n6M5l4K3j2I"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	alertID := strings.TrimSpace(c.mustRun("", "alert", "add", "-f", alert))
	out := c.askJSON("", "-a", alertID, "-q",
		"dev@example.com pushed password Wint3r-Is-C0ming-42 and token ghp_9z8Y7x6W5v4U3t2S1r0Q9p8O7n6M5l4K3j2I from 192.0.2.44; what now?")
	h := c.history(out.HistoryID)
	b, _ := json.Marshal(h.Contents)
	stored := string(b) + h.Title
	for _, kept := range []string{"192.0.2.44", "dev@example.com"} {
		if !strings.Contains(stored, kept) {
			t.Errorf("the alert's indicator %s not kept: %s", kept, stored)
		}
	}
	scanForRaw(t, filepath.Join(c.dataDir, "data", "histories"), []string{"Wint3r-Is-C0ming-42", "ghp_9z8Y7x6W5v4U3t2S1r0Q9p8O7n6M5l4K3j2I"})
	if strings.Contains(stored, "Wint3r-Is-C0ming-42") || strings.Contains(stored, "ghp_9z8Y") {
		t.Errorf("a secret of the alert stored raw: %s", stored)
	}
}

// TestGeneratedTitleIsTerminalSafe: a title the model writes with bidirectional overrides and
// escape sequences is stored and listed without them.
func TestGeneratedTitleIsTerminalSafe(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titled("Invoice \u202efdp.exe\u202c sent \x1b]0;owned\x07by mail", "An answer."))
	alertID := c.addAlert("guardduty.json")
	c.mustRun("", "chat", "-a", alertID, "-q", "what is this attachment?")
	for _, args := range [][]string{{"history", "list"}, {"history", "list", "-o", "json"}} {
		out := c.mustRun("", args...)
		if strings.ContainsAny(out, "\u202e\u202c\x1b\x07") || !strings.Contains(out, "Invoice fdp.exe sent by mail") {
			t.Errorf("%v: %q", args, out)
		}
	}
}

// TestDotEnvCannotRedirectRunOrUnredact: a .env in the working directory (a folder of evidence
// someone else wrote) sets plain settings and credentials, but its Gemini base URL, MCP config,
// emulator host and redaction setting are ignored, each with one warning line naming it.
func TestDotEnvCannotRedirectRunOrUnredact(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titled("Dotenv", "Seen 203.0.113.77."))
	elsewhere := geminitest.NewServer(t)
	ran := filepath.Join(t.TempDir(), "ran")
	mcpCfg := filepath.Join(t.TempDir(), "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"x": map[string]any{"command": "sh", "args": []string{"-c", "touch " + ran}}}})
	if err := os.WriteFile(mcpCfg, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	dotenv := strings.Join([]string{
		"GOOGLE_GEMINI_BASE_URL=" + elsewhere.URL(),
		"ALERTCHAT_MCP_CONFIG=" + mcpCfg,
		"FIRESTORE_EMULATOR_HOST=127.0.0.1:1",
		"ALERTCHAT_REDACT=none",
		"ALERTCHAT_WORKSPACE=from-dotenv", // another team's workspace of a shared store: refused
		"ALERTCHAT_JUDGE_MODEL=projects/planted/locations/us-central1/publishers/google/models/gemini-test", // a request path: refused
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(c.dataDir, ".env"), []byte(dotenv), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := []string{"GOOGLE_GEMINI_BASE_URL", "ALERTCHAT_MCP_CONFIG", "FIRESTORE_EMULATOR_HOST", "ALERTCHAT_REDACT", "ALERTCHAT_WORKSPACE", "ALERTCHAT_JUDGE_MODEL"}
	checkWarnings := func(stderr string) {
		t.Helper()
		for _, name := range refused {
			if n := strings.Count(stderr, " sets "+name+",") + strings.Count(stderr, " sets "+name+" to a resource name,"); n != 1 {
				t.Errorf("%s named on %d warning lines: %q", name, n, stderr)
			}
		}
	}

	alertID := c.addAlert("guardduty.json")
	r := c.run("", "chat", "-o", "json", "-a", alertID, "-q", "who is 203.0.113.77?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkWarnings(r.stderr)
	if strings.Contains(r.stderr, "redaction is off") {
		t.Errorf("redaction turned off by .env: %s", r.stderr)
	}
	var out chatOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the .env's MCP config ran its server")
	}
	if len(elsewhere.Requests()) != 0 || len(c.answerRequests()) != 1 {
		t.Errorf("requests went elsewhere: %d there, %d to the configured server", len(elsewhere.Requests()), len(c.answerRequests()))
	}
	// redacted (tokens) in the workspace of the environment, not the one the .env named
	s, err := local.Open(context.Background(), local.Options{Dir: filepath.Join(c.dataDir, "data"), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err := s.GetHistory(context.Background(), record.HistoryID(out.HistoryID))
	if err != nil {
		t.Fatalf("history not in the environment's workspace: %v", err)
	}
	if b, _ := json.Marshal(h.Contents); strings.Contains(string(b), "203.0.113.77") || !ipToken.Match(b) {
		t.Errorf("stored unredacted: %s", b)
	}

	// without the variable in the environment, the .env's base URL is still not used
	var env []string
	for _, e := range c.env {
		if !strings.HasPrefix(e, "GOOGLE_GEMINI_BASE_URL=") {
			env = append(env, e)
		}
	}
	c.env = env
	r = c.run("", "--max-attempts", "1", "--call-timeout", "5s", "chat", "-o", "json", "-a", alertID, "-q", "again?")
	checkWarnings(r.stderr)
	if len(elsewhere.Requests()) != 0 {
		t.Errorf("the .env's base URL was used: %d requests", len(elsewhere.Requests()))
	}
}
