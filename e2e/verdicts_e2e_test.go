package e2e_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// verdictAnswers answers structured requests (history resolve --suggest) with a verdict,
// titles with a title and questions with an answer.
func verdictAnswers() geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json":
			return geminitest.Reply{Text: `{"verdict":"false_positive","conclusion":"3322.org was queried by our own sinkhole test. No credentials left the instance."}`}
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "Drop point triage"}
		}
		return geminitest.Reply{Text: "answer to: " + r.LastUserText()}
	})
}

type listedHistory struct {
	ID         string   `json:"id"`
	Verdict    *string  `json:"verdict"`
	ResolvedAt *string  `json:"resolved_at"`
	ResolvedBy *string  `json:"resolved_by"`
	Analysts   []string `json:"analysts"`
}

func (c *cli) listHistories(args ...string) []listedHistory {
	c.t.Helper()
	var out []listedHistory
	if err := json.Unmarshal([]byte(c.mustRun("", append([]string{"history", "list", "-o", "json"}, args...)...)), &out); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// One investigation from the first question to its verdict, and the next analyst meeting its
// indicator, with the built binary: two analysts ask, the verdict is suggested by Gemini and
// confirmed on a terminal, the listings filter by it, and a chat on another alert sharing an
// indicator shows how the investigation ended.
func TestInvestigationConcludes(t *testing.T) {
	t.Parallel()
	c := newCLI(t, verdictAnswers())
	alertID := c.addAlert("guardduty.json")
	alice := append(append([]string{}, c.env...), "ALERTCHAT_ANALYST=alice")
	c.env, alice = alice, c.env
	first := c.askJSON("", "-a", alertID, "-q", "Which other hosts resolved 3322.org?")
	c.env = alice
	c.askJSON("", "--analyst", "bob", "--history", first.HistoryID, "-q", "Did anything leave the instance?")

	// Suggested, shown, confirmed on a terminal.
	term := startTerminal(t, c, 120, "--analyst", "carol", "history", "resolve", first.HistoryID[:8], "--suggest")
	term.waitFor("Record it? [y] yes, [e] edit, [N] no:")
	term.typeLine("y")
	if screen := term.wait(); !strings.Contains(screen, "Gemini suggests: false positive") || !strings.Contains(screen, "as false positive, by carol") {
		t.Fatalf("screen:\n%s", screen)
	}
	ls := c.listHistories()
	if len(ls) != 1 || *ls[0].Verdict != "false_positive" || *ls[0].ResolvedBy != "carol" || !slices.Equal(ls[0].Analysts, []string{"alice", "bob"}) {
		t.Fatalf("list: %+v", ls)
	}
	if got := c.listHistories("--verdict", "false_positive"); len(got) != 1 {
		t.Fatalf("--verdict: %+v", got)
	}
	if got := c.listHistories("--open"); len(got) != 0 {
		t.Fatalf("--open: %+v", got)
	}
	if got := c.listHistories("--analyst", "bob"); len(got) != 1 {
		t.Fatalf("--analyst bob: %+v", got)
	}
	show := c.mustRun("", "history", "show", first.HistoryID)
	for _, w := range []string{"You (alice):", "You (bob):", "verdict:  false positive, by carol", "(suggested by Gemini)", "note:     3322.org was queried"} {
		if !strings.Contains(show, w) {
			t.Errorf("history show lacks %q:\n%s", w, show)
		}
	}
	if r := c.run("", "history", "resolve", first.HistoryID, "--verdict", "nope"); r.code != 2 || !strings.Contains(r.stderr, "false_positive") {
		t.Fatalf("unknown verdict: exit %d, %q", r.code, r.stderr)
	}
	if r := c.run("", "history", "resolve", first.HistoryID, "--suggest"); r.code != 2 {
		t.Fatalf("--suggest in a pipe without -y: exit %d, %q", r.code, r.stderr)
	}

	// The next analyst meets the domain on another alert.
	other := filepath.Join(t.TempDir(), "dns.json")
	if err := os.WriteFile(other, []byte(`{"Title":"DNS query to 3322.org from i-0bbb1111","Domain":"3322.org","InstanceId":"i-0bbb1111"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	second := strings.TrimSpace(c.mustRun("", "alert", "add", "-f", other))
	term = startTerminal(t, c, 160, "--analyst", "dave", "chat", "-a", second, "-q", "Seen this domain before?")
	screen := term.wait()
	if !strings.Contains(screen, "1 earlier investigation of 3322.org: false positive (carol, ") || !strings.Contains(screen, first.HistoryID[:8]) {
		t.Fatalf("the next analyst was not told:\n%s", screen)
	}
	var alerts []struct {
		ID             string  `json:"id"`
		Investigations int     `json:"investigations"`
		Verdict        *string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "-o", "json")), &alerts); err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.ID == alertID && (a.Investigations != 1 || a.Verdict == nil || *a.Verdict != "false_positive") ||
			a.ID == second && (a.Investigations != 1 || a.Verdict != nil) {
			t.Errorf("alert list: %+v", a)
		}
	}
}

// On the cloud store, who asks is the Google identity of the credentials in use (here a
// service account's key file), the verdict fields are in the history's document, and the
// filters are Firestore queries.
func TestInvestigationConcludesOnCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, verdictAnswers())
	key := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(key, []byte(`{"type":"service_account","client_email":"triage@soc-project.iam.gserviceaccount.com","private_key":"unused"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.env = append(append(c.env, cloud.Env()...), "GOOGLE_APPLICATION_CREDENTIALS="+key, "ALERTCHAT_WORKSPACE=blue")
	alertID := c.addAlert("scc.json")
	got := c.askJSON("", "-a", alertID, "-q", "What happened?")
	c.mustRun("", "history", "resolve", got.HistoryID, "--verdict", "benign", "--note", "Reported by jane.doe@example.com: a test.")

	ctx := context.Background()
	snap, err := cloud.Firestore.Collection("histories").Doc(got.HistoryID).Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc := snap.Data()
	res, _ := doc["resolution"].(map[string]any)
	if doc["verdict"] != "benign" || res["resolved_by"] != "triage@soc-project.iam.gserviceaccount.com" ||
		strings.Contains(res["note"].(string), "jane.doe@example.com") || !strings.Contains(res["note"].(string), "[REDACTED_EMAIL_") {
		t.Fatalf("document: %v", doc)
	}
	if as, _ := doc["analysts"].([]any); len(as) != 1 || as[0] != "triage@soc-project.iam.gserviceaccount.com" {
		t.Fatalf("analysts: %v", doc["analysts"])
	}
	if ls := c.listHistories("--verdict", "benign", "--analyst", "triage@soc-project.iam.gserviceaccount.com"); len(ls) != 1 || ls[0].ID != got.HistoryID {
		t.Fatalf("--verdict --analyst: %+v", ls)
	}
	if ls := c.listHistories("--open"); len(ls) != 0 {
		t.Fatalf("--open: %+v", ls)
	}
	other := *c
	other.env = append(append([]string{}, c.env...), "ALERTCHAT_WORKSPACE=red")
	if r := other.run("", "history", "resolve", got.HistoryID, "--verdict", "true_positive"); r.code != 3 {
		t.Fatalf("another workspace: exit %d, %q", r.code, r.stderr)
	}
	c.mustRun("", "history", "reopen", got.HistoryID)
	if ls := c.listHistories("--open"); len(ls) != 1 || ls[0].Verdict != nil {
		t.Fatalf("reopened: %+v", ls)
	}
}
