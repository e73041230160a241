package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/termtest"
	"github.com/alertchat/alertchat/pkg/session"
)

// These tests look at what a person at a terminal sees: the binary runs in a pseudo-terminal
// whose output goes through a terminal emulator, and they read the emulator's cells.

const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// startScreen runs the binary with args in a terminal of cols columns and 40 rows.
func (c *cli) startScreen(t *testing.T, cols int, args ...string) *termtest.Proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(c.env, "TERM=xterm-256color")
	cmd.Dir = c.dataDir
	return termtest.Start(t, cmd, cols, 40)
}

// longArgument is an argument longer than any terminal line, whose end says so.
var longArgument = strings.Repeat("198.51.100.23 contacted 203.0.113.7 over DNS; ", 14) + "END-OF-THE-ARGUMENT"

// toolRoundThenAnswer scripts a model that, for each question, calls the untrusted lookup
// tool with calls' arguments (all in one content), then streams its answer in three pieces.
func toolRoundThenAnswer(answer string, calls ...*genai.FunctionCall) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Screen title"}
		}
		if last := r.Contents[len(r.Contents)-1]; last.Role == genai.RoleUser && len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil {
			return geminitest.Reply{Chunks: []string{answer + "\n\n", "The second paragraph ", "ends here."}, ChunkDelay: 150 * time.Millisecond}
		}
		var parts []*genai.Part
		for _, fc := range calls {
			parts = append(parts, &genai.Part{FunctionCall: fc})
		}
		return geminitest.Reply{Parts: parts}
	})
}

// noIndicatorOver checks, over several indicator frames' time, that nothing is drawn on the
// screen while a question waits: no frame, no label, and the question still there.
func noIndicatorOver(t *testing.T, p *termtest.Proc, question string) {
	t.Helper()
	for range 5 {
		time.Sleep(100 * time.Millisecond)
		v := p.Visible()
		if strings.ContainsAny(v, spinnerFrames) || strings.Contains(v, "running mcp_") || strings.Contains(v, "asking Gemini") {
			t.Fatalf("the indicator is drawn while the question waits:\n%s", p.Dump())
		}
		if !strings.Contains(v, question) {
			t.Fatalf("the question went off the screen:\n%s", p.Dump())
		}
	}
	if p.CursorHidden() {
		t.Fatalf("the cursor is hidden while the question waits:\n%s", p.Dump())
	}
}

// waitPrompt waits until the chat's prompt is on the cursor's row, alone: what is typed from
// then on goes to the line editor, not to the terminal's echo under a status line.
func waitPrompt(t *testing.T, p *termtest.Proc) {
	t.Helper()
	p.WaitFor(t, 30*time.Second, "the prompt", func(s *termtest.Screen) bool {
		_, y := s.Cursor()
		return s.Rows()[y] == ">"
	})
}

// wholeCallShown checks that the screen shows the call's argument whole, end included.
func wholeCallShown(t *testing.T, p *termtest.Proc) {
	t.Helper()
	// Spaces are left out of the comparison: the screen keeps no trailing spaces, and the wrap
	// may fall on one.
	noSpace := func(s string) string { return strings.NewReplacer(" ", "", "\n", "").Replace(s) }
	if !strings.Contains(noSpace(p.Visible()), noSpace(`"note": "`+longArgument+`"`)) {
		t.Fatalf("the whole argument is not on the screen:\n%s", p.Dump())
	}
}

// answeredOnce checks that the answer after the tool round is on the screen exactly once and
// whole, with no indicator frame or label on its lines.
func answeredOnce(t *testing.T, p *termtest.Proc, answer string) {
	t.Helper()
	if n := p.Count(answer); n != 1 {
		t.Fatalf("the answer's first line is on the screen %d times, want once:\n%s", n, p.Dump())
	}
	if p.Count("The second paragraph ends here.") != 1 {
		t.Fatalf("the answer's end is not on the screen once:\n%s", p.Dump())
	}
	for _, l := range p.Lines() {
		if (strings.Contains(l, answer) || strings.Contains(l, "second paragraph")) &&
			(strings.ContainsAny(l, spinnerFrames) || strings.Contains(l, "asking Gemini") || strings.Contains(l, "saving")) {
			t.Fatalf("the indicator is drawn on the answer's line %q:\n%s", l, p.Dump())
		}
	}
}

// A one-shot on a terminal with an untrusted MCP tool and a long argument: while the question
// waits the whole call is on the screen and nothing is drawn over it; after the tool round the
// streamed answer is drawn once, intact; at the end the cursor is shown.
func TestScreenOneShotApproval(t *testing.T) {
	t.Parallel()
	const answer = "The lookup says 203.0.113.7 is a known scanner."
	lookup := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7", "note": longArgument}}
	c := newCLI(t, toolRoundThenAnswer(answer, lookup))
	alertID := c.addAlert("guardduty.json")
	log := filepath.Join(t.TempDir(), "log")
	cfg := mcpConfigWith(t, map[string]any{"env": map[string]string{"MCPSERVER_LOG": log}})
	p := c.startScreen(t, 100, "chat", "-a", alertID, "-q", "who is 203.0.113.7?", "--mcp-config", cfg)
	const question = "Run mcp_intel_lookup? [y] once, [a] always in this session, [N] no"
	p.WaitText(t, question)
	noIndicatorOver(t, p, question)
	wholeCallShown(t, p)
	if p.Count("Run mcp_intel_lookup of MCP server intel with these arguments:") != 1 {
		t.Fatalf("the call is not named once:\n%s", p.Dump())
	}
	p.Type(t, "y\r")
	if code := p.Wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Dump())
	}
	answeredOnce(t, p, answer)
	if p.CursorHidden() {
		t.Fatalf("the cursor is left hidden:\n%s", p.Dump())
	}
	if got := serverLog(t, log); got != "call lookup" {
		t.Fatalf("server log %q", got)
	}
}

// In the interactive chat: the same question reads cleanly, and the answer after the tool
// round is drawn once. Ctrl-C at a question cancels the turn: no other call of that content is
// asked or run, each is answered "cancelled", the turn is saved with a reply marked cut short
// after the responses, and the chat goes on.
func TestScreenInteractiveApprovalCtrlC(t *testing.T) {
	t.Parallel()
	const answer = "Both indicators belong to a scanning service."
	lookup := &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7", "note": longArgument}}
	env := &genai.FunctionCall{Name: "mcp_intel_env"}
	c := newCLI(t, toolRoundThenAnswer(answer, lookup, env))
	alertID := c.addAlert("guardduty.json")
	log := filepath.Join(t.TempDir(), "log")
	cfg := mcpConfigWith(t, map[string]any{"env": map[string]string{"MCPSERVER_LOG": log}})
	p := c.startScreen(t, 100, "chat", "-a", alertID, "--mcp-config", cfg)
	waitPrompt(t, p)
	p.Type(t, "who is 203.0.113.7?\r")

	// The two calls of one content run concurrently: either may be asked first.
	const lookupQ, envQ = "Run mcp_intel_lookup? [y] once, [a] always in this session, [N] no", "Run mcp_intel_env of MCP server intel with {}?"
	questions := func(s *termtest.Screen) int { return s.Count(lookupQ) + s.Count(envQ) }
	for asked := 1; asked <= 2; asked++ {
		p.WaitFor(t, 30*time.Second, "an approval question", func(s *termtest.Screen) bool { return questions(s) == asked })
		rows := p.Rows()
		if x, y := p.Cursor(); strings.Contains(rows[y], envQ) {
			noIndicatorOver(t, p, envQ)
			p.Type(t, "n\r")
		} else {
			if !strings.Contains(rows[y], lookupQ) {
				t.Fatalf("the cursor (%d, %d) is not after a question:\n%s", x, y, p.Dump())
			}
			noIndicatorOver(t, p, lookupQ)
			wholeCallShown(t, p)
			p.Type(t, "y\r")
		}
	}
	p.WaitText(t, "The second paragraph ends here.")
	answeredOnce(t, p, answer)

	waitPrompt(t, p)
	p.Type(t, "and again?\r")
	p.WaitFor(t, 30*time.Second, "the second question's first approval", func(s *termtest.Screen) bool { return questions(s) == 3 })
	p.Type(t, "\x03")
	p.WaitText(t, "(cancelled")
	// Let a wrongly asked next question show before looking.
	time.Sleep(500 * time.Millisecond)
	if n := questions(p.Screen); n != 3 {
		t.Fatalf("after Ctrl-C the other call was asked too:\n%s", p.Dump())
	}
	waitPrompt(t, p)
	p.Type(t, "/exit\r")
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Dump())
	}
	if got := serverLog(t, log); got != "call lookup" {
		t.Fatalf("server log %q: only the first question's approved lookup may run", got)
	}
	// The hint may wrap: its rows are joined as they stand.
	m := regexp.MustCompile(`--history ([0-9a-f-]{36})`).FindStringSubmatch(strings.Join(p.Lines(), ""))
	if m == nil {
		t.Fatalf("no resume hint:\n%s", p.Dump())
	}
	h := c.history(m[1])
	if cut := h.Contents[len(h.Contents)-1]; cut.Role != "model" || len(cut.Parts) != 1 || cut.Parts[0].Text != session.PartialMarker {
		b, _ := json.Marshal(cut)
		t.Fatalf("the cancelled turn does not end with a reply marked cut short: %s", b)
	}
	last := h.Contents[len(h.Contents)-2]
	if len(last.Parts) != 2 {
		b, _ := json.Marshal(last)
		t.Fatalf("the cancelled turn does not end with its two calls' responses: %s", b)
	}
	for _, part := range last.Parts {
		if fr := part.FunctionResponse; fr == nil || fr.Response["error"] != "cancelled" {
			b, _ := json.Marshal(last)
			t.Fatalf("a pending call is not answered cancelled: %s", b)
		}
	}
	if p.CursorHidden() {
		t.Fatal("the cursor is left hidden")
	}
}

// Ctrl-C in a one-shot on a terminal cancels the turn: what arrived is saved at a content
// boundary, -o json still prints its object with the error, the exit status is 130, and the
// cursor is shown again.
func TestScreenOneShotCtrlC(t *testing.T) {
	t.Parallel()
	chunks := []string{"The first part of the answer arrived. "}
	for range 40 {
		chunks = append(chunks, "more ")
	}
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Slow answer"}
		}
		return geminitest.Reply{Chunks: chunks, ChunkDelay: 500 * time.Millisecond}
	}))
	alertID := c.addAlert("guardduty.json")

	t.Run("text", func(t *testing.T) {
		p := c.startScreen(t, 120, "chat", "-a", alertID, "-q", "slowly, please")
		p.WaitText(t, "The first part of the answer arrived.")
		p.Type(t, "\x03")
		if code := p.Wait(t, 30*time.Second); code != 130 {
			t.Fatalf("exit %d, want 130:\n%s", code, p.Dump())
		}
		if p.CursorHidden() {
			t.Fatalf("the cursor is left hidden:\n%s", p.Dump())
		}
		if p.Count("interrupted: what had arrived was saved") != 1 {
			t.Fatalf("the interruption is not said:\n%s", p.Dump())
		}
		var list []struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &list); err != nil || len(list) != 1 {
			t.Fatalf("histories %v %+v", err, list)
		}
		h := c.history(list[0].ID)
		if len(h.Contents) != 2 || h.Contents[0].Parts[0].Text != "slowly, please" {
			t.Fatalf("stored %d contents", len(h.Contents))
		}
		var text strings.Builder
		for _, part := range h.Contents[1].Parts {
			text.WriteString(part.Text)
		}
		if !strings.HasPrefix(text.String(), "The first part of the answer arrived.") || !strings.HasSuffix(text.String(), session.PartialMarker) {
			t.Fatalf("stored answer %q", text.String())
		}
	})
	t.Run("json", func(t *testing.T) {
		p := c.startScreen(t, 160, "chat", "-o", "json", "-a", alertID, "-q", "slowly, in JSON")
		var got struct {
			Error    *string `json:"error"`
			Complete bool    `json:"complete"`
			AlertID  string  `json:"alert_id"`
		}
		interruptJSON(t, c, p, "slowly, in JSON", &got)
		if got.Error == nil || !strings.HasPrefix(*got.Error, "interrupted") || got.Complete || got.AlertID != alertID {
			t.Fatalf("object %+v", got)
		}
		if p.CursorHidden() {
			t.Fatal("the cursor is left hidden")
		}
	})
}

// interruptJSON presses Ctrl-C once the request for question has reached the model, checks
// that the one-shot exits 130, and decodes the JSON object it printed into v.
func interruptJSON(t *testing.T, c *cli, p *termtest.Proc, question string, v any) {
	t.Helper()
	waitRequest(t, c.srv, question)
	p.Type(t, "\x03")
	if code := p.Wait(t, 30*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, p.Dump())
	}
	text := p.Text()
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		t.Fatalf("no JSON object printed:\n%s", p.Dump())
	}
	if err := json.Unmarshal([]byte(text[start:end+1]), v); err != nil {
		t.Fatalf("%v:\n%s", err, p.Dump())
	}
}
