package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/testinstall"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// egressConfig writes a config naming the test server "intel", trusted and public-only, with
// an internal domain; everything the server receives is appended to the returned file.
func egressConfig(t *testing.T) (cfg, received string) {
	t.Helper()
	received = filepath.Join(t.TempDir(), "received")
	server := map[string]any{"command": mcpServer(t), "trust": true, "egress": "public-only", "timeout": 5000,
		"env": map[string]string{"MCPSERVER_RECEIVED": received}}
	b, _ := json.Marshal(map[string]any{"internalDomains": []string{"corp.example"}, "mcpServers": map[string]any{"intel": server}})
	cfg = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, received
}

// readReceived is what the server received ("" when nothing).
func readReceived(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// internalValues are what never reaches the public-only server unless the user says so.
var internalValues = []string{"10.0.3.7", "dc01.corp.example", "alice@corp.example"}

// A trusted, public-only server where nobody can be asked (a one-shot on a pipe, batch, 'mcp
// call' on a pipe): a call carrying internal data is answered with the denial and never sent;
// a public indicator is.
func TestEgressWhereNobodyCanAsk(t *testing.T) {
	t.Parallel()
	internal := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "10.0.3.7", "ctx": map[string]any{"dc01.corp.example": "alice@corp.example"}}}
	public := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}
	c := newCLI(t, callsThenAnswer(internal, public))
	alertID := c.addAlert("guardduty.json")
	cfg, received := egressConfig(t)

	t.Run("one-shot", func(t *testing.T) {
		r := c.run("", "chat", "-o", "json", "-a", alertID, "-q", "who is 10.0.3.7?", "--mcp-config", cfg)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var out toolChatOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatal(err)
		}
		want := "denied: would send internal data (dc01.corp.example, alice@corp.example, 10.0.3.7) to intel, a public-only server"
		if len(out.ToolCalls) != 2 || out.ToolCalls[0].Error != want || out.ToolCalls[1].Error != "" {
			t.Fatalf("tool calls %+v, want the first denied with %q", out.ToolCalls, want)
		}
		got := readReceived(t, received)
		if !strings.Contains(got, "203.0.113.7") {
			t.Fatalf("the public indicator was not sent: %q", got)
		}
		for _, v := range internalValues {
			if strings.Contains(got, v) {
				t.Fatalf("the server received %s: %q", v, got)
			}
		}
		// The history says the held call was denied without asking, not that the trusted
		// server ran it, and names what would have left by kind only.
		approvals := c.history(out.HistoryID).ToolApprovals
		wantApprovals := []record.ToolApproval{
			{Tool: "mcp_intel_lookup", Server: "intel", Decision: "denied", Content: 1, Call: 0,
				Egress: &record.EgressHold{Kinds: []string{"internal host", "e-mail address", "internal address"}}},
			{Tool: "mcp_intel_lookup", Server: "intel", Decision: "trusted", Content: 3, Call: 0},
		}
		if len(approvals) != len(wantApprovals) {
			t.Fatalf("approvals %+v", approvals)
		}
		for i, w := range wantApprovals {
			approvals[i].At = w.At
			if !reflect.DeepEqual(approvals[i], w) {
				t.Errorf("approval %d %+v (egress %+v), want %+v", i, approvals[i], approvals[i].Egress, w)
			}
		}
		shown := c.mustRun("", "history", "show", out.HistoryID, "-o", "json")
		var js struct {
			ToolApprovals json.RawMessage `json:"tool_approvals"`
		}
		if err := json.Unmarshal([]byte(shown), &js); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, js.ToolApprovals); err != nil {
			t.Fatal(err)
		}
		js.ToolApprovals = compact.Bytes()
		if !strings.Contains(string(js.ToolApprovals), `"decision":"denied","asked":false,`) ||
			!strings.Contains(string(js.ToolApprovals), `"egress":{"kinds":["internal host","e-mail address","internal address"],"sent":false}`) {
			t.Errorf("history show -o json: %s", js.ToolApprovals)
		}
		for _, v := range internalValues {
			if strings.Contains(string(js.ToolApprovals), v) {
				t.Errorf("the approvals hold %s: %s", v, js.ToolApprovals)
			}
		}
		if shown := c.mustRun("", "history", "show", out.HistoryID); !strings.Contains(shown,
			"[denied: nobody could be asked; held back: it would have sent internal data (internal host, e-mail address, internal address) to a public-only server]") {
			t.Errorf("history show:\n%s", shown)
		}
	})

	t.Run("batch", func(t *testing.T) {
		in := `{"id": "a", "alert_id": "` + alertID + `", "query": "who is 10.0.3.7?"}` + "\n"
		// A batch declares no MCP tools: a call the model makes to one is never sent.
		c.withEnv("ALERTCHAT_MCP_CONFIG=" + cfg)
		r := c.run(in, "batch", "-f", "-", "--no-title-generation")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, v := range internalValues {
			if strings.Contains(readReceived(t, received), v) {
				t.Fatalf("the server received %s in a batch", v)
			}
		}
	})

	t.Run("mcp call", func(t *testing.T) {
		r := c.run("", "mcp", "call", "intel", "lookup", `{"q": "mail alice@corp.example"}`, "-o", "json", "--mcp-config", cfg)
		if r.code != 1 || strings.TrimSpace(r.stdout) != `{
  "error": "denied: would send internal data (alice@corp.example) to intel, a public-only server"
}` {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if r := c.run("", "mcp", "call", "intel", "lookup", `{"q": "evil.example"}`, "--mcp-config", cfg); r.code != 0 {
			t.Fatalf("a public indicator: exit %d: %s", r.code, r.stderr)
		}
		got := readReceived(t, received)
		if !strings.Contains(got, "evil.example") {
			t.Fatalf("the public indicator was not sent: %q", got)
		}
		for _, v := range internalValues {
			if strings.Contains(got, v) {
				t.Fatalf("the server received %s: %q", v, got)
			}
		}
	})
}

// On a terminal the held call is asked about, naming what would leave, even though the server
// is trusted: Enter (the default) keeps it, y sends it.
func TestEgressAskedOnTerminal(t *testing.T) {
	t.Parallel()
	internal := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "10.0.3.7"}}
	c := newCLI(t, callsThenAnswer(internal))
	alertID := c.addAlert("guardduty.json")
	cfg, received := egressConfig(t)
	term := startTerminal(t, c, 160, "chat", "-a", alertID, "--mcp-config", cfg)
	term.waitFor("/help for commands")
	term.typeLine("first")
	term.waitFor("mcp_intel_lookup of MCP server intel, a public-only server, would receive internal data: 10.0.3.7")
	term.typeLine("")
	term.waitFor("answer after tools")
	if got := readReceived(t, received); strings.Contains(got, "10.0.3.7") {
		t.Fatalf("sent after no: %q", got)
	}
	term.typeLine("second")
	term.waitForCount("would receive internal data: 10.0.3.7", 2)
	term.typeLine("y")
	term.waitForCount("answer after tools", 2)
	term.typeLine("/exit")
	screen := term.wait()
	if !strings.Contains(screen, "denied: would send internal data (10.0.3.7) to intel, a public-only server") {
		t.Fatalf("the first answer did not carry the denial:\n%s", screen)
	}
	if got := readReceived(t, received); strings.Count(got, "10.0.3.7") != 1 {
		t.Fatalf("the server received %q, want the address once (after yes)", got)
	}
	// The history says the user decided each call at the egress question: the first denied,
	// the second let through; neither as the trusted server's.
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &list); err != nil || len(list) != 1 {
		t.Fatalf("history list: %v %+v", err, list)
	}
	approvals := c.history(list[0].ID).ToolApprovals
	if len(approvals) != 2 {
		t.Fatalf("approvals %+v", approvals)
	}
	kinds := []string{"internal address"}
	for i, want := range []record.ToolApproval{
		{Decision: "denied", Asked: true, Egress: &record.EgressHold{Kinds: kinds}},
		{Decision: "approved", Asked: true, Egress: &record.EgressHold{Kinds: kinds, Sent: true}},
	} {
		a := approvals[i]
		if a.Decision != want.Decision || a.Asked != want.Asked || !reflect.DeepEqual(a.Egress, want.Egress) {
			t.Errorf("approval %d %+v (egress %+v), want %+v (egress %+v)", i, a, a.Egress, want, want.Egress)
		}
	}
}

// everythingMain installs the reference server @modelcontextprotocol/server-everything (the
// committed lockfile in testdata/mcp-everything) and returns its entry point; without npm the
// test is skipped, except under CI=true, where it fails.
func everythingMain(t *testing.T) string {
	t.Helper()
	dir := "../testdata/mcp-everything"
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	const entry = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	if err := testinstall.NPM(dir, entry); err != nil {
		fail("%v", err)
	}
	main, err := filepath.Abs(filepath.Join(dir, entry))
	if err != nil {
		t.Fatal(err)
	}
	return main
}

// The reference server in an interactive chat, as a new user tries it: no warning (its tool
// list, changed as it starts, replaces the first one), and its form of every field type is asked
// and filled on the terminal, the server getting what was typed and the defaults.
func TestEverythingInteractiveChat(t *testing.T) {
	t.Parallel()
	main := everythingMain(t)
	c := newCLI(t, callsThenAnswer(&genai.FunctionCall{Name: "mcp_everything_trigger-elicitation-request", Args: map[string]any{}}))
	alertID := c.addAlert("guardduty.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": "node", "args": []string{main, "stdio"}, "trust": true, "timeout": 60000}}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	term := startTerminal(t, c, 200, "chat", "-a", alertID, "--mcp-config", cfg)
	term.waitFor("/help for commands")
	term.typeLine("fill the form")
	term.waitFor("Answer? [y] fill in, [N] decline, [c] cancel the call")
	term.typeLine("y")
	// Fields in the order the server's schema gives them; Enter takes the server's default.
	for _, step := range []struct{ prompt, typed string }{
		{"(name)", "Ada"}, {"(check)", "y"}, {"(firstLine)", ""}, {"(email)", "ada@example.com"}, {"(homepage)", ""},
		{"(birthdate)", ""}, {"(integer)", "7"}, {"(number)", ""},
		{"(untitledSingleSelectEnum)", "Joey"}, {"(untitledMultipleSelectEnum)", "Piano,Drums"},
		{"(titledSingleSelectEnum)", ""}, {"(titledMultipleSelectEnum)", "1, 3"}, {"(legacyTitledEnum)", "2"},
	} {
		term.waitFor(step.prompt)
		term.typeLine(step.typed)
	}
	term.waitFor("answer after tools")
	term.typeLine("/exit")
	screen := term.wait()
	for _, want := range []string{"User provided the requested information", "Name: Ada", "Favorite Integer: 7", "fish-3", "pet-2", "Drums", "Joey"} {
		if !strings.Contains(screen, want) {
			t.Errorf("%q is not in the answer:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "Warning") {
		t.Errorf("warnings on the screen:\n%s", screen)
	}
}
