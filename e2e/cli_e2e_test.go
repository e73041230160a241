package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/alert"
)

// chatResult is chat -o json's object with the failure fields.
type chatResult struct {
	HistoryID string  `json:"history_id"`
	AlertID   string  `json:"alert_id"`
	Answer    string  `json:"answer"`
	Error     *string `json:"error"`
	Complete  *bool   `json:"complete"`
}

func decodeChat(t *testing.T, r result) chatResult {
	t.Helper()
	var got chatResult
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || strings.Count(strings.TrimSpace(r.stdout), "\n{") > 0 {
		t.Fatalf("stdout is not one JSON object: %q (%v); stderr %q", r.stdout, err, r.stderr)
	}
	if got.Complete == nil {
		t.Fatalf("no \"complete\" field: %s", r.stdout)
	}
	return got
}

// TestChatJSONAlwaysOneObject: chat -o json prints one object whatever happens, with "error"
// null on success and the message otherwise, and "complete" false for an answer cut short.
func TestChatJSONAlwaysOneObject(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch q := r.LastUserText(); {
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "A title"}
		case strings.Contains(q, "broken"):
			return geminitest.Reply{Chunks: []string{"one ", "two ", "three ", "four "}, Status: 503}
		case strings.Contains(q, "refused"):
			return geminitest.Reply{Status: 403}
		}
		return geminitest.Reply{Text: "fine"}
	}))
	alertID := c.addAlert("guardduty.json")

	ok := decodeChat(t, c.run("", "chat", "-a", alertID, "-q", "all good?", "-o", "json", "--max-attempts", "1"))
	if ok.Error != nil || !*ok.Complete || ok.Answer != "fine" || ok.HistoryID == "" {
		t.Fatalf("success: %+v", ok)
	}

	r := c.run("", "chat", "-a", alertID, "-q", "broken stream?", "-o", "json", "--max-attempts", "1")
	cut := decodeChat(t, r)
	if r.code != 1 || cut.Error == nil || *cut.Complete || cut.Answer != "one two three four " || cut.HistoryID == "" {
		t.Fatalf("broken stream: exit %d, %+v, stderr %q", r.code, cut, r.stderr)
	}

	r = c.run("", "chat", "-a", alertID, "-q", "refused?", "-o", "json", "--max-attempts", "1")
	refused := decodeChat(t, r)
	if r.code != 1 || refused.Error == nil || *refused.Complete || refused.Answer != "" || refused.AlertID != alertID {
		t.Fatalf("refused: exit %d, %+v", r.code, refused)
	}

	r = c.run("", "chat", "-a", "ffffffff-ffff", "-q", "which alert?", "-o", "json")
	missing := decodeChat(t, r)
	if r.code != 3 || missing.Error == nil || !strings.Contains(*missing.Error, "no alert") || *missing.Complete {
		t.Fatalf("unknown alert: exit %d, %+v", r.code, missing)
	}
	// One sentence: the classification is not repeated after the message.
	if r.stderr != "Error: no alert \"ffffffff-ffff\"\n" {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// TestCommandLineContract: several alert files at once, alert ID prefixes, variables that
// reach only their own command, and deletions that are never unasked.
func TestCommandLineContract(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("T"))
	dir := filepath.Join(repoDir(t), "testdata", "alerts")
	matches, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(matches) < 2 {
		t.Fatalf("sample alerts: %v %v", matches, err)
	}
	// One ID a line for each finding of each file, in order (a file may hold several).
	findings := 0
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := alert.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		findings += len(fs)
	}
	// --all-events: the samples hold a Suricata stream whose events that are not alerts are
	// otherwise skipped (and counted); here every record is a finding.
	out := c.mustRun("", append([]string{"alert", "add", "--all-events", "-f"}, matches...)...)
	ids := strings.Fields(out)
	if len(ids) != findings || findings < len(matches) {
		t.Fatalf("alert add -f %d files of %d findings printed %q", len(matches), findings, out)
	}
	first := c.askJSON("", "-a", ids[0][:8], "-q", "about the first")
	second := c.askJSON("", "-a", ids[1][:10], "-q", "about the second")
	if first.AlertID != ids[0] || second.AlertID != ids[1] {
		t.Fatalf("alert prefixes resolved to %s and %s, want %s and %s", first.AlertID, second.AlertID, ids[0], ids[1])
	}

	// ALERTCHAT_ALERT is chat's alert, not a filter of history list.
	c.env = append(c.env, "ALERTCHAT_ALERT="+ids[0], "ALERTCHAT_YES=1", "ALERTCHAT_LIMIT=1")
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("history list under ALERTCHAT_ALERT/LIMIT: %v %v", list, err)
	}
	if got := c.askJSON("", "-q", "default alert"); got.AlertID != ids[0] {
		t.Fatalf("chat ignored ALERTCHAT_ALERT: %s", got.AlertID)
	}

	// No terminal: rm and prune refuse without -y, whatever the environment says.
	for _, args := range [][]string{
		{"history", "rm", first.HistoryID},
		{"history", "prune", "--older-than", "1s"},
	} {
		r := c.run("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "-y") {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := c.run("", "history", "rm", "-y", first.HistoryID); r.code != 0 {
		t.Fatalf("rm -y: exit %d, %q", r.code, r.stderr)
	}
	if r := c.run("", "history", "show", first.HistoryID); r.code != 3 {
		t.Fatalf("the history is still there: exit %d", r.code)
	}
}

// TestVariableValuesAreUsageErrors: a variable whose value its flag cannot take (a word for a
// number, a bool or a duration) is invalid input, exit 2, as the same value given as a flag is;
// the message names the variable, and nothing is asked or stored.
func TestVariableValuesAreUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	alertID := c.addAlert("guardduty.json")
	base := append([]string(nil), c.env...)
	for _, kv := range []string{
		"ALERTCHAT_MAX_ATTEMPTS=abc", "ALERTCHAT_STORE_TIMEOUT=soon", "ALERTCHAT_EMBEDDINGS=maybe", "ALERTCHAT_VERBOSE=maybe",
		"ALERTCHAT_CONTINUE=bogus", "ALERTCHAT_RAW=maybe", "ALERTCHAT_NO_TOOLS=x", "ALERTCHAT_MAX_TOOL_CALLS=many",
	} {
		c.env = append(append([]string(nil), base...), kv)
		r := c.run("", "chat", "-a", alertID, "-q", "a question")
		name, value, _ := strings.Cut(kv, "=")
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, name) || !strings.Contains(r.stderr, value) || strings.Contains(r.stderr, "*chat.") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 naming the variable", kv, r.code, r.stdout, r.stderr)
		}
	}
	c.env = base
	if n := len(c.answerRequests()); n != 0 {
		t.Errorf("%d questions reached Gemini", n)
	}
	if out := c.mustRun("", "history", "list"); out != "" {
		t.Errorf("histories were stored: %q", out)
	}
}

// TestRmPromptNamesWhatItDeletes runs history rm on a real terminal.
func TestRmPromptNamesWhatItDeletes(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Drop point triage"))
	alertID := c.addAlert("guardduty.json")
	h := c.askJSON("", "-a", alertID, "-q", "what happened?")
	ts := startTerminal(t, c, 120, "history", "rm", h.HistoryID[:8])
	ts.waitFor(`Delete history ` + h.HistoryID[:8] + ` "Drop point triage" (2 messages`)
	ts.typeLine("n")
	screen := ts.wait()
	if !strings.Contains(screen, "Aborted.") {
		t.Fatalf("screen:\n%s", screen)
	}
	c.history(h.HistoryID) // still there
}
