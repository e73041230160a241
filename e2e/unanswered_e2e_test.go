package e2e_test

import (
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/session"
)

// Ctrl-C in a one-shot on a terminal before the first byte of the answer (the model holds its
// reply, and the title's): the question is saved, its reply marked cut short, under its
// fallback title; the exit status is 130; the text run names the history, and -o json prints
// its object with the history_id, the error and "complete": false.
func TestScreenOneShotCtrlCBeforeFirstByte(t *testing.T) {
	t.Parallel()
	const firstLine = "Who ran the binary on i-99999999?"
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "too late", Latency: 5 * time.Minute} // answers and titles alike
	}))
	alertID := c.addAlert("guardduty.json")
	want := func(question string) []string {
		return []string{"user: " + question, "model: " + session.PartialMarker}
	}

	t.Run("text", func(t *testing.T) {
		question := firstLine + "\nAnd from which address? (text)"
		p := c.startScreen(t, 160, "chat", "-a", alertID, "-q", question)
		waitRequest(t, c.srv, question)
		p.Type(t, "\x03")
		if code := p.Wait(t, 30*time.Second); code != 130 {
			t.Fatalf("exit %d, want 130:\n%s", code, p.Dump())
		}
		if p.Count("interrupted before Gemini answered: the question was saved") != 1 {
			t.Fatalf("the interruption is not said:\n%s", p.Dump())
		}
		m := regexp.MustCompile(`Saved as ([0-9a-f-]{36})\. Continue with: alertchat chat --history ([0-9a-f-]{36})`).FindStringSubmatch(p.Text())
		if m == nil || m[1] != m[2] {
			t.Fatalf("no resume hint:\n%s", p.Dump())
		}
		h := c.show(m[1])
		if strings.Join(h.turns(), "|") != strings.Join(want(question), "|") || h.Title != firstLine {
			t.Fatalf("stored %q under %q", h.turns(), h.Title)
		}
		if p.CursorHidden() {
			t.Fatal("the cursor is left hidden")
		}
	})
	t.Run("json", func(t *testing.T) {
		question := firstLine + "\nAnd from which address? (json)"
		p := c.startScreen(t, 200, "chat", "-o", "json", "-a", alertID, "-q", question)
		var got struct {
			HistoryID string  `json:"history_id"`
			Title     string  `json:"title"`
			Error     *string `json:"error"`
			Complete  bool    `json:"complete"`
		}
		interruptJSON(t, c, p, question, &got)
		if got.Error == nil || !strings.HasPrefix(*got.Error, "interrupted before Gemini answered: the question was saved") ||
			got.Complete || len(got.HistoryID) != 36 || got.Title != firstLine {
			t.Fatalf("object %+v", got)
		}
		h := c.show(got.HistoryID)
		if strings.Join(h.turns(), "|") != strings.Join(want(question), "|") || h.Title != firstLine {
			t.Fatalf("stored %q under %q", h.turns(), h.Title)
		}
	})
}

// In the interactive chat, Ctrl-C before the first byte keeps the question in the
// conversation; /retry asks it again as a new turn, and the stored transcript has both, the
// first marked cut short.
func TestScreenInteractiveCtrlCBeforeFirstByteThenRetry(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Binary run", Latency: 5 * time.Minute}
		}
		if asked.Add(1) == 1 {
			return geminitest.Reply{Text: "too late", Latency: 5 * time.Minute}
		}
		return geminitest.Reply{Text: "An operator ran it from the console."}
	}))
	alertID := c.addAlert("guardduty.json")
	p := c.startScreen(t, 160, "chat", "-a", alertID, "--no-related")
	waitPrompt(t, p)
	p.Type(t, "Who ran the binary?\r")
	waitRequest(t, c.srv, "Who ran the binary?")
	p.Type(t, "\x03")
	p.WaitText(t, "(cancelled; your question is saved in the conversation; /retry sends it again)")
	waitPrompt(t, p)
	p.Type(t, "/retry\r")
	p.WaitText(t, "An operator ran it from the console.")
	waitPrompt(t, p)
	p.Type(t, "/exit\r")
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.Dump())
	}
	m := regexp.MustCompile(`--history ([0-9a-f-]{36})`).FindStringSubmatch(strings.Join(p.Lines(), ""))
	if m == nil {
		t.Fatalf("no resume hint:\n%s", p.Dump())
	}
	h := c.show(m[1])
	want := []string{"user: Who ran the binary?", "model: " + session.PartialMarker, "user: Who ran the binary?", "model: An operator ran it from the console."}
	if strings.Join(h.turns(), "|") != strings.Join(want, "|") || h.Title != "Who ran the binary?" {
		t.Fatalf("stored %q under %q", h.turns(), h.Title)
	}
}
