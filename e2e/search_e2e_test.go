package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type searchOut struct {
	ID        string  `json:"id"`
	AlertID   string  `json:"alert_id"`
	Title     string  `json:"title"`
	UpdatedAt string  `json:"updated_at"`
	Score     float64 `json:"score"`
	Snippet   *string `json:"snippet"`
}

func (c *cli) search(args ...string) []searchOut {
	c.t.Helper()
	out := c.mustRun("", append([]string{"history", "search", "-o", "json"}, args...)...)
	var got []searchOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		c.t.Fatalf("history search -o json printed %q: %v", out, err)
	}
	return got
}

// A conversation is searchable as soon as it is saved, by the words of its turns, within its
// workspace and its alert; a removed history is gone from the results.
func TestSearchThroughTheBinary(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Beacon check"))
	alertID := c.addAlert("guardduty.json")
	first := c.askJSON("", "-a", alertID, "-q", "is the kerberoasting pattern here, and who is bob@example.com?")
	c.askJSON("", "-a", alertID, "-q", "what about the firewall logs?")

	got := c.search("kerberoasting")
	if len(got) != 1 || got[0].ID != first.HistoryID || got[0].AlertID != alertID || got[0].Snippet == nil || got[0].UpdatedAt == "" {
		t.Fatalf("search = %+v, want %s", got, first.HistoryID)
	}
	if !strings.Contains(strings.ToLower(*got[0].Snippet), "kerberoasting") {
		t.Fatalf("snippet = %q", *got[0].Snippet)
	}
	// The e-mail was stored as its keyed token only: the raw value typed in a query is turned
	// into that token and finds the history, while a part of it matches nothing stored.
	if got := c.search("who is bob@example.com"); len(got) != 1 || got[0].ID != first.HistoryID {
		t.Fatalf("search by the raw e-mail = %+v, want %s through its token", got, first.HistoryID)
	}
	if got := c.search("bob"); len(got) != 0 {
		t.Fatalf("a part of the raw e-mail found %+v: it must not be stored", got)
	}
	stored, _ := json.Marshal(c.history(first.HistoryID).Contents)
	if strings.Contains(string(stored), "bob@example.com") || !emailToken.Match(stored) {
		t.Fatalf("stored transcript: %s", stored)
	}
	if got := c.search("--alert", "no-such-alert-id", "kerberoasting"); len(got) != 0 {
		t.Fatalf("-a another alert: %+v", got)
	}
	if got := c.search("--workspace", "other", "kerberoasting"); len(got) != 0 {
		t.Fatalf("another workspace: %+v", got)
	}
	// Pipe: TSV.
	tsv := c.mustRun("", "history", "search", "firewall")
	if f := strings.Split(strings.TrimSpace(tsv), "\t"); len(f) != 6 || f[1] != alertID {
		t.Fatalf("tsv = %q", tsv)
	}
	c.mustRun("", "history", "rm", "-y", first.HistoryID)
	if got := c.search("kerberoasting"); len(got) != 0 {
		t.Fatalf("after rm: %+v", got)
	}
	// Nothing is missing from the index: fsck is clean, reindex has nothing to do.
	if r := c.run("", "history", "fsck"); r.code != 0 {
		t.Fatalf("fsck: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := c.run("", "history", "reindex"); r.code != 0 || !strings.Contains(r.stderr, "Every history is indexed") {
		t.Fatalf("reindex: exit %d: %s", r.code, r.stderr)
	}
	if r := c.run("", "history", "search"); r.code != 2 {
		t.Fatalf("search without a query: exit %d, want 2", r.code)
	}
}

// TestRelatedConversationsOnATerminal: a chat on an alert with no conversation yet shows, on a
// terminal, the related conversations of other alerts; --no-related and pipes show none.
func TestRelatedConversationsOnATerminal(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Drop point triage"))
	first := c.addAlert("guardduty.json")
	earlier := c.askJSON("", "-a", first, "-q", "The instance queried the drop point domain 3322.org: is it infected?")
	// The same finding seen again later: other JSON (its count), so another alert.
	data, err := os.ReadFile(filepath.Join(repoDir(t), "testdata", "alerts", "guardduty-finding.json"))
	if err != nil {
		t.Fatal(err)
	}
	later := strings.Replace(string(data), `"Count": 1`, `"Count": 2`, 1)
	second := strings.TrimSpace(c.mustRun(later, "alert", "add", "-f", "-"))
	if second == first || later == string(data) {
		t.Fatal("the two alerts have the same ID")
	}

	term := startTerminal(t, c, 120, "chat", "-a", second, "-q", "What is this finding?")
	screen := term.wait()
	if !strings.Contains(screen, "1 earlier investigation of ") || !strings.Contains(screen, earlier.HistoryID[:8]) {
		t.Fatalf("no related conversation offered:\n%s", screen)
	}
	// The alert has a conversation now: nothing is offered again.
	term = startTerminal(t, c, 120, "chat", "-a", second, "-q", "And now?")
	if screen := term.wait(); strings.Contains(screen, "earlier investigation") {
		t.Fatalf("offered for an alert that has a conversation:\n%s", screen)
	}
	third := c.addAlert("scc.json")
	term = startTerminal(t, c, 120, "chat", "--no-related", "-a", third, "-q", "Drop point?")
	if screen := term.wait(); strings.Contains(screen, "earlier investigation") {
		t.Fatalf("--no-related:\n%s", screen)
	}
	if r := c.run("", "chat", "-a", c.addAlert("scc_mini.json"), "-q", "Drop point?"); strings.Contains(r.stderr, "earlier investigation") {
		t.Fatalf("piped: %q", r.stderr)
	}
}
