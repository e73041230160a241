package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/session"
)

func isJudgeRequest(r *geminitest.Request) bool {
	return r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "continues an earlier conversation")
}

func isSummaryRequest(r *geminitest.Request) bool {
	return r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "running summary")
}

var candidateLine = regexp.MustCompile(`(?m)^(\d+)\. Title:`)

// verdicts answers the judge: SAME for each candidate whose block mentions topic, when the new
// question does too.
func verdicts(prompt, topic string) string {
	newQ, rest, _ := strings.Cut(prompt, "Earlier conversations:")
	idx := candidateLine.FindAllStringSubmatchIndex(rest, -1)
	var out []string
	for i, m := range idx {
		end := len(rest)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		v := "DIFFERENT"
		if strings.Contains(newQ, topic) && strings.Contains(rest[m[0]:end], topic) {
			v = "SAME"
		}
		out = append(out, rest[m[2]:m[3]]+": "+v)
	}
	return strings.Join(out, "\n")
}

// sameConversationCLI is a CLI whose fake answers titles, the judge (SAME on the topic
// "exfiltration"), summaries and questions; judgeFail makes the judge fail, and a question
// containing "(fail)" fails.
func sameConversationCLI(t *testing.T) (*cli, *atomic.Bool, *atomic.Int64) {
	var judgeFail atomic.Bool
	var judgeCalls atomic.Int64
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case isJudgeRequest(r):
			judgeCalls.Add(1)
			if judgeFail.Load() {
				return geminitest.Reply{Status: 500}
			}
			return geminitest.Reply{Text: verdicts(r.LastUserText(), "exfiltration")}
		case isSummaryRequest(r):
			return geminitest.Reply{Text: "IOCs: 198.51.100.7. Findings: DNS exfiltration. Contact: soc-lead@example.com"}
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "Generated Title"}
		case strings.Contains(r.LastUserText(), "(fail)"):
			return geminitest.Reply{Status: 503}
		}
		return geminitest.Reply{Text: "answer to: " + r.LastUserText()}
	}))
	return c, &judgeFail, &judgeCalls
}

// TestContinueAuto: --continue=auto continues the conversation the judge matches, the verdict is
// cached, and a failed judgement starts a new conversation. Plain --continue is unchanged.
func TestContinueAuto(t *testing.T) {
	t.Parallel()
	c, judgeFail, judgeCalls := sameConversationCLI(t)
	alertID := c.addAlert("guardduty.json")
	exfil := c.askJSON("", "-a", alertID, "-q", "Is there data exfiltration over DNS?")
	owner := c.askJSON("", "-a", alertID, "-q", "Who owns the instance?")
	if judgeCalls.Load() != 0 {
		t.Fatal("a new chat without a terminal or --continue=auto was judged")
	}

	// Judged (the two conversations in one call) and continued.
	q := "What volume of exfiltration happened?"
	r := c.run("", "chat", "-o", "json", "-a", alertID, "--continue=auto", "-q", q)
	var got chatOut
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if got.HistoryID != exfil.HistoryID || judgeCalls.Load() != 1 || !strings.Contains(r.stderr, "Continuing") {
		t.Fatalf("continued %s (want %s) after %d judge calls; stderr %q", got.HistoryID, exfil.HistoryID, judgeCalls.Load(), r.stderr)
	}
	reqs := c.answerRequests()
	if last := reqs[len(reqs)-1]; len(last.Contents) != 3 || last.Contents[0].Parts[0].Text != "Is there data exfiltration over DNS?" {
		t.Fatalf("the continued request does not carry the earlier turn: %d contents", len(last.Contents))
	}
	var judgePrompt string
	for _, req := range c.srv.Requests() {
		if isJudgeRequest(req) {
			judgePrompt = req.LastUserText()
		}
	}
	if !strings.Contains(judgePrompt, "1. Title: Generated Title") || !strings.Contains(judgePrompt, "- Who owns the instance?") ||
		!strings.Contains(judgePrompt, "2. Title:") || !strings.Contains(judgePrompt, q) {
		t.Fatalf("judge prompt:\n%s", judgePrompt)
	}
	st, err := os.Stat(filepath.Join(c.dataDir, "data", "judge-cache.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("judge cache: %v %v", st, err)
	}

	// The identical start again: no judge call (the other conversation's verdict is cached, the
	// matched one ends with this very question), same conversation.
	got = c.askJSON("", "-a", alertID, "--continue=auto", "-q", q)
	if got.HistoryID != exfil.HistoryID || judgeCalls.Load() != 1 {
		t.Fatalf("second start: %s after %d judge calls", got.HistoryID, judgeCalls.Load())
	}

	// A start whose answer fails is saved in the conversation it continues, its reply cut
	// short; the same start again is served from the cache entirely.
	fq := "exfiltration volume per hour (fail)?"
	if r := c.run("", "chat", "-a", alertID, "--continue=auto", "-q", fq); r.code != 1 {
		t.Fatalf("failing answer: exit %d", r.code)
	}
	if h := c.history(exfil.HistoryID); len(h.Contents) < 2 || h.Contents[len(h.Contents)-2].Parts[0].Text != fq ||
		h.Contents[len(h.Contents)-1].Parts[0].Text != session.PartialMarker {
		t.Fatalf("the failed start is not in the conversation it continues (%d contents)", len(h.Contents))
	}
	calls := judgeCalls.Load()
	if r := c.run("", "chat", "-a", alertID, "--continue=auto", "-q", fq); r.code != 1 || judgeCalls.Load() != calls {
		t.Fatalf("identical start: exit %d, %d judge calls, want %d", r.code, judgeCalls.Load(), calls)
	}

	// A question on another topic: judged DIFFERENT, a new conversation.
	other := c.askJSON("", "-a", alertID, "--continue=auto", "-q", "What is the severity?")
	if other.HistoryID == exfil.HistoryID || other.HistoryID == owner.HistoryID {
		t.Fatalf("a different question continued %s", other.HistoryID)
	}

	// The judge failing: a new conversation, said on stderr, exit 0.
	judgeFail.Store(true)
	r = c.run("", "chat", "-o", "json", "-a", alertID, "--continue=auto", "-q", "Any exfiltration to new domains?")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || !strings.Contains(r.stderr, "starting a new one") {
		t.Fatalf("judge failure: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	for _, id := range []string{exfil.HistoryID, owner.HistoryID, other.HistoryID} {
		if got.HistoryID == id {
			t.Fatalf("judge failure continued %s", id)
		}
	}

	// Plain --continue still resumes the most recent, without judging.
	calls = judgeCalls.Load()
	latest := c.askJSON("", "-a", alertID, "--continue", "-q", "and then?")
	if latest.HistoryID != got.HistoryID || judgeCalls.Load() != calls {
		t.Fatalf("--continue resumed %s, want %s", latest.HistoryID, got.HistoryID)
	}
	if r := c.run("", "chat", "-a", alertID, "--continue=maybe", "-q", "x"); r.code != 2 {
		t.Fatalf("--continue=maybe: exit %d", r.code)
	}
	if r := c.run("", "chat", "--help"); !strings.Contains(r.stdout, "--continue[=auto], -c") || !strings.Contains(r.stdout, "--judge-model") {
		t.Fatalf("help:\n%s", r.stdout)
	}
}

// TestInteractiveSameConversationOffer: a new interactive chat whose first question continues
// an earlier conversation is answered at once in the new conversation, then offered to be asked
// again in the earlier one; /compress summarises it.
func TestInteractiveSameConversationOffer(t *testing.T) {
	t.Parallel()
	c, _, judgeCalls := sameConversationCLI(t)
	alertID := c.addAlert("guardduty.json")
	exfil := c.askJSON("", "-a", alertID, "-q", "Is there data exfiltration over DNS?")

	term := startTerminal(t, c, 160, "chat", "-a", alertID)
	scr, typeLine := term.scr, term.typeLine

	scr.waitFor(t, "/help for commands")
	typeLine("What volume of exfiltration happened?")
	scr.waitFor(t, "answer to: What volume of exfiltration happened?")
	scr.waitFor(t, `This looks like the earlier conversation "Generated Title"`)
	scr.waitFor(t, "Ask it again there, with that conversation's context? [y/N]")
	typeLine("y")
	scr.waitFor(t, "Continuing")
	waitPrompts(t, scr, 2)
	typeLine("/compress")
	scr.waitFor(t, "Summarised the first 2 of 4 messages")
	typeLine("/exit")

	term.wait()
	if judgeCalls.Load() != 1 {
		t.Fatalf("%d judge calls", judgeCalls.Load())
	}

	// The question was answered in a new conversation, kept, then asked again in the match.
	if hs := c.list(); len(hs) != 2 {
		t.Fatalf("%d histories, want the earlier one and the new one", len(hs))
	}
	h := c.history(exfil.HistoryID)
	if len(h.Contents) != 4 || h.Summary == nil || h.Summary.CoversCount != 2 {
		t.Fatalf("stored: %d contents, summary %+v", len(h.Contents), h.Summary)
	}
	if strings.Contains(h.Summary.Text, "soc-lead@example.com") || !strings.Contains(h.Summary.Text, "[REDACTED_EMAIL_") {
		t.Fatalf("stored summary not redacted: %q", h.Summary.Text)
	}

	// history show keeps every turn and notes the summary.
	text := c.mustRun("", "history", "show", exfil.HistoryID)
	if !strings.Contains(text, "summary:  the first 2 of 4 messages are summarised") ||
		!strings.Contains(text, "Is there data exfiltration over DNS?") || !strings.Contains(text, "What volume of exfiltration happened?") {
		t.Fatalf("history show:\n%s", text)
	}
	md := c.mustRun("", "history", "show", exfil.HistoryID, "-o", "md")
	if !strings.Contains(md, "- Summary: the first 2 of 4 messages") {
		t.Fatalf("history show -o md:\n%s", md)
	}
	var shown struct {
		Summary *struct {
			Text        string `json:"text"`
			CoversCount int    `json:"covers_count"`
		} `json:"summary"`
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "show", exfil.HistoryID, "-o", "json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Summary == nil || shown.Summary.CoversCount != 2 || len(shown.Contents) != 4 {
		t.Fatalf("history show -o json: %+v", shown)
	}
}

// TestLongConversationThroughCLI: one-shot turns continued under a small --max-context-tokens
// get summarised, and every request stays within the budget.
func TestLongConversationThroughCLI(t *testing.T) {
	t.Parallel()
	c, _, _ := sameConversationCLI(t)
	alertID := c.addAlert("guardduty.json")
	long := strings.Repeat("Which resolvers did the instance query, and how often? ", 3)
	first := c.askJSON("", "--max-context-tokens", "2000", "-a", alertID, "-q", "Is there data exfiltration? "+long)
	for i := range 12 {
		got := c.askJSON("", "--max-context-tokens", "2000", "-a", alertID, "--continue", "-q", fmt.Sprintf("Follow-up %d: %s", i, long))
		if got.HistoryID != first.HistoryID {
			t.Fatalf("turn %d went to %s", i, got.HistoryID)
		}
		if got.Usage.InputTokens > 2000 {
			t.Fatalf("turn %d: %d prompt tokens", i, got.Usage.InputTokens)
		}
	}
	h := c.history(first.HistoryID)
	if len(h.Contents) != 26 || h.Summary == nil {
		t.Fatalf("%d contents, summary %+v", len(h.Contents), h.Summary)
	}
	reqs := c.answerRequests()
	last := reqs[len(reqs)-1]
	if !strings.HasPrefix(last.Contents[0].Parts[0].Text, "Summary of the earlier conversation") || len(last.Contents) >= 25 {
		t.Fatalf("last request: %d contents, first %q", len(last.Contents), last.Contents[0].Parts[0].Text)
	}
	if r := c.run("", "--max-context-tokens", "10", "chat", "-a", alertID, "-q", "x"); r.code != 2 {
		t.Fatalf("--max-context-tokens 10: exit %d", r.code)
	}
}

// waitForCount waits until want appears n times on the screen.
func (s *screen) waitForCount(t *testing.T, want string, n int) {
	t.Helper()
	eventually.True(t, 20*time.Second, fmt.Sprintf("the screen to show %q %d times", want, n),
		func() bool { return strings.Count(s.text(), want) >= n }, func() string { return "screen:\n" + s.text() })
}
