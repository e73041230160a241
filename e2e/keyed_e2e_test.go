package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

var (
	ipToken    = regexp.MustCompile(`\[REDACTED_IP_[a-z0-9]{6,}\]`)
	emailToken = regexp.MustCompile(`\[REDACTED_EMAIL_[a-z0-9]{6,}\]`)
	typedRaw   = []string{"203.0.113.7", "198.51.100.23", "evil@example.com"}
)

const turnOne = "Is 203.0.113.7 malicious? It contacted evil@example.com from 198.51.100.23"

// scanForRaw fails when any file under dir holds one of the raw values.
func scanForRaw(t *testing.T, dir string, raw []string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, r := range raw {
			if strings.Contains(string(data), r) {
				t.Errorf("%s holds the raw value %q", p, r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRedactionKeepsMeaning: in one interactive session Gemini keeps seeing what was typed
// (turn 2's request carries the raw values of turn 1), while everything written holds keyed
// tokens: two IPs two tokens, the same IP the same token in another history, another token in
// another workspace, and no file under the data dir holds a typed value. A resumed
// conversation carries the tokens and the instruction about them.
func TestRedactionKeepsMeaning(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "IP triage"}
		}
		return geminitest.Reply{Text: "You mentioned 203.0.113.7 first."}
	}))
	alertID := c.addAlert("guardduty.json")

	ts := startTerminal(t, c, 160, "chat", "-a", alertID)
	ts.waitFor("/help for commands")
	ts.typeLine(turnOne)
	ts.waitFor("You mentioned 203.0.113.7 first.")
	ts.typeLine("Which of the two IPs did I mention first?")
	ts.waitForCount("You mentioned 203.0.113.7 first.", 2)
	ts.typeLine("/exit")
	screen := ts.wait()

	reqs := c.answerRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d answer requests", len(reqs))
	}
	contents, _ := json.Marshal(reqs[1].Contents) // the system instruction names tokens as examples
	body := string(contents)
	for _, raw := range typedRaw {
		if !strings.Contains(body, raw) {
			t.Errorf("turn 2's request lacks the live value %q", raw)
		}
	}
	if strings.Contains(body, "[REDACTED_") {
		t.Errorf("turn 2's request carries redaction tokens: %s", body)
	}

	m := regexp.MustCompile(`--history ([0-9a-f-]{36})`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no resume hint on the screen:\n%s", screen)
	}
	h := c.history(m[1])
	data, _ := json.Marshal(h.Contents)
	stored := string(data) + h.Title
	ips := ipToken.FindAllString(string(data), -1)
	if len(ips) < 3 || len(emailToken.FindAllString(stored, -1)) != 1 {
		t.Fatalf("stored transcript: %s", data)
	}
	distinct := map[string]bool{}
	for _, tok := range ips {
		distinct[tok] = true
	}
	if len(distinct) != 2 {
		t.Fatalf("two IPs should give two tokens, the same IP the same one: %v", ips)
	}
	first := ipToken.FindString(string(data)) // 203.0.113.7's, the first typed
	for _, raw := range typedRaw {
		if strings.Contains(stored, raw) {
			t.Errorf("the stored history holds %q", raw)
		}
	}

	// The same IP in another history of the workspace: the same token. Another workspace:
	// another token.
	other := c.askJSON("", "-a", alertID, "-q", "Seen 203.0.113.7 before?")
	if got := ipToken.FindString(strings.Join(c.show(other.HistoryID).texts(), " ")); got != first {
		t.Errorf("the same IP in another history: %q, want %q", got, first)
	}
	otherAlert := strings.TrimSpace(c.mustRun("", "--workspace", "blue", "alert", "add", "-f", filepath.Join(repoDir(t), "testdata", "alerts", "guardduty.json")))
	blue := c.askJSON("", "--workspace", "blue", "-a", otherAlert, "-q", "Seen 203.0.113.7 before?")
	out := c.mustRun("", "--workspace", "blue", "history", "show", blue.HistoryID, "-o", "json")
	if got := ipToken.FindString(out); got == "" || got == first {
		t.Errorf("another workspace's token %q, want one other than %q", got, first)
	}

	// Resume: the request carries the stored tokens, and the instruction says what they are.
	c.askJSON("", "--history", m[1], "-q", "And the e-mail?")
	reqs = c.answerRequests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), first) || !strings.Contains(last.SystemText(), "REDACTED") {
		t.Errorf("the resumed request lacks the tokens or the instruction about them: %s", last.SystemText())
	}
	scanForRaw(t, filepath.Join(c.dataDir, "data"), typedRaw)
}

// TestTokensAcrossAnalysts: two analysts with their own data directories on one cloud store get
// the same token for the same value; another workspace gets another.
func TestTokensAcrossAnalysts(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	answer := geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "T"}
		}
		return geminitest.Reply{Text: "noted"}
	})
	alice, bob := newCLI(t, answer), newCLI(t, answer)
	for _, c := range []*cli{alice, bob} {
		c.env = append(c.env, cloud.Env()...)
	}
	alertID := alice.addAlert("guardduty.json")
	token := func(c *cli, args ...string) string {
		t.Helper()
		got := c.askJSON("", append(args, "-q", "Is 203.0.113.7 malicious?")...)
		out := c.mustRun("", append(args[:len(args)-2:len(args)-2], "history", "show", got.HistoryID, "-o", "json")...)
		tok := ipToken.FindString(out)
		if tok == "" || strings.Contains(out, "203.0.113.7") {
			t.Fatalf("stored: %s", out)
		}
		return tok
	}
	a := token(alice, "-a", alertID)
	b := token(bob, "-a", alertID)
	if a != b {
		t.Fatalf("two analysts, one workspace: %s and %s", a, b)
	}
	bob.mustRun("", "--workspace", "red", "alert", "add", "-f", filepath.Join(repoDir(t), "testdata", "alerts", "guardduty.json"))
	if r := token(bob, "--workspace", "red", "-a", alertID); r == a {
		t.Fatalf("another workspace gave the same token %s", r)
	}
	for _, c := range []*cli{alice, bob} {
		scanForRaw(t, filepath.Join(c.dataDir, "data"), []string{"203.0.113.7"})
	}
}

// waitForCount waits until want appears n times on the terminal.
func (ts *terminalSession) waitForCount(want string, n int) {
	ts.t.Helper()
	ts.scr.waitForCount(ts.t, want, n)
}
