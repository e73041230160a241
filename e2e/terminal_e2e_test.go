package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// raw is everything written to the terminal, escape sequences included.
func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// plain is the screen's bytes without escape sequences and carriage returns, line breaks kept.
func (s *screen) plain() string {
	return strings.ReplaceAll(ansi.ReplaceAllString(s.raw(), ""), "\r", "")
}

func waitRaw(t *testing.T, s *screen, want string) {
	t.Helper()
	eventually.True(t, 20*time.Second, fmt.Sprintf("the terminal to receive %q", want),
		func() bool { return strings.Contains(s.raw(), want) }, func() string { return "screen:\n" + s.text() })
}

// waitPrompts waits until the line editor has shown its prompt n times (it asks for bracketed
// paste each time).
func waitPrompts(t *testing.T, s *screen, n int) {
	t.Helper()
	eventually.True(t, 20*time.Second, fmt.Sprintf("the prompt to show %d times", n),
		func() bool { return strings.Count(s.raw(), "\x1b[?2004h") >= n }, func() string { return "screen:\n" + s.text() })
}

func streamRequests(srv *geminitest.Server) []*geminitest.Request {
	var out []*geminitest.Request
	for _, r := range srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			out = append(out, r)
		}
	}
	return out
}

func answeringCLI(t *testing.T, answer func(question string) geminitest.Reply) *cli {
	return newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Generated Title"}
		}
		return answer(r.LastUserText())
	}))
}

// TestTerminalPaste: a bracketed paste of four log lines is one question, which can still be
// edited before it is sent; the prompt asks for bracketed paste and turns it off when done.
func TestTerminalPaste(t *testing.T) {
	t.Parallel()
	c := answeringCLI(t, func(q string) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + strings.ReplaceAll(q, "\n", " / ")}
	})
	alertID := c.addAlert("guardduty.json")
	term := startTerminal(t, c, 120, "chat", "-a", alertID)
	scr := term.scr
	scr.waitFor(t, "/help for commands")
	waitRaw(t, scr, "\x1b[?2004h")

	// Terminals send a pasted line break as CR, the same byte as Enter.
	term.write("\x1b[200~Nov 23 01:02:03 sshd[1]: Failed password for root\rNov 23 01:02:04 sshd[1]: Failed password for root\r" +
		"Nov 23 01:02:05 sshd[1]: Accepted password for root\rNov 23 01:02:06 sudo: root : COMMAND=/bin/sh\x1b[201~")
	scr.waitFor(t, "COMMAND=/bin/sh")
	term.write(" what happened?\r")
	want := "Nov 23 01:02:03 sshd[1]: Failed password for root\nNov 23 01:02:04 sshd[1]: Failed password for root\n" +
		"Nov 23 01:02:05 sshd[1]: Accepted password for root\nNov 23 01:02:06 sudo: root : COMMAND=/bin/sh what happened?"
	waitRequest(t, c.srv, want)
	scr.waitFor(t, "answer to Nov 23")
	waitPrompts(t, scr, 2)
	term.typeLine("/exit")
	term.wait()

	if reqs := streamRequests(c.srv); len(reqs) != 1 {
		var qs []string
		for _, r := range reqs {
			qs = append(qs, r.LastUserText())
		}
		t.Fatalf("%d questions sent for one paste: %q", len(reqs), qs)
	}
	raw := scr.raw()
	if strings.LastIndex(raw, "\x1b[?2004l") < strings.LastIndex(raw, "\x1b[?2004h") {
		t.Fatal("bracketed paste left on at exit")
	}
}

// TestTerminalBigPaste: a paste of 500 log lines stands in the line as a placeholder (the line
// editor would take minutes to draw it), and is sent whole, as one question.
func TestTerminalBigPaste(t *testing.T) {
	t.Parallel()
	c := answeringCLI(t, func(q string) geminitest.Reply {
		return geminitest.Reply{Text: fmt.Sprintf("got %d lines", strings.Count(q, "\n")+1)}
	})
	alertID := c.addAlert("guardduty.json")
	term := startTerminal(t, c, 120, "chat", "-a", alertID)
	scr := term.scr
	scr.waitFor(t, "/help for commands")
	waitRaw(t, scr, "\x1b[?2004h")
	var lines []string
	for i := range 500 {
		lines = append(lines, fmt.Sprintf("Nov 23 01:02:%02d host sshd[%d]: Failed password for invalid user admin from 203.0.113.%d", i%60, i, i%250))
	}
	term.write("\x1b[200~" + strings.Join(lines, "\r") + "\r\x1b[201~")
	scr.waitFor(t, "500 lines")
	term.write(" what is this?\r")
	waitRequest(t, c.srv, strings.Join(lines, "\n")+" what is this?")
	scr.waitFor(t, "got 500 lines")
	term.typeLine("/exit")
	term.wait()
	if reqs := streamRequests(c.srv); len(reqs) != 1 {
		t.Fatalf("%d questions sent for one paste", len(reqs))
	}
}

// TestTerminalMarkdown: on a terminal an answer's headings are rendered, blocks are one blank
// line apart, the spinner says what it waits for, and the text shows as it arrives.
func TestTerminalMarkdown(t *testing.T) {
	t.Parallel()
	c := answeringCLI(t, func(q string) geminitest.Reply {
		return geminitest.Reply{
			Chunks:     []string{"## Assessment\nThe host is **compromised**.\n\n", "- isolate it\n- rotate keys\n\n", "Still open paragraph", " ends here."},
			ChunkDelay: 300 * time.Millisecond,
		}
	})
	alertID := c.addAlert("guardduty.json")
	term := startTerminal(t, c, 100, "chat", "-a", alertID)
	scr := term.scr
	scr.waitFor(t, "/help for commands")
	term.typeLine("is this host compromised?")
	// The open paragraph is on the screen before the answer ends.
	scr.waitFor(t, "Still open paragraph")
	if strings.Contains(scr.text(), "ends here") {
		t.Log("the last chunk arrived before the open paragraph was seen (slow machine)")
	}
	waitPrompts(t, scr, 2)
	raw := scr.raw()
	plain := strings.ReplaceAll(ansi.ReplaceAllString(raw[:strings.LastIndex(raw, "\x1b[?2004h")], ""), "\r", "")
	term.typeLine("/exit")
	term.wait()

	if strings.Contains(plain, "## Assessment") || strings.Contains(plain, "**compromised**") {
		t.Fatalf("Markdown shown unrendered:\n%s", plain)
	}
	if !strings.Contains(plain, "Assessment\n\n  The host is compromised.\n\n  • isolate it\n  • rotate keys\n\n") {
		t.Fatalf("blocks not rendered one blank line apart:\n%q", plain)
	}
	answer := plain[strings.Index(plain, "Assessment"):]
	if strings.Contains(answer, "\n\n\n") {
		t.Fatalf("two blank lines in the answer:\n%q", answer)
	}
	if text := scr.text(); !strings.Contains(text, "asking Gemini…") || !strings.Contains(text, "saving…") ||
		strings.Index(text, "saving…") < strings.Index(text, "Assessment") {
		t.Fatalf("the spinner does not say it is asking Gemini, then saving after the answer:\n%s", text)
	}
}

// TestTerminalJudgeSpinner: the first question is answered at once; while the judge is still
// comparing it with earlier conversations, the spinner says so, then the match is offered.
func TestTerminalJudgeSpinner(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case isJudgeRequest(r):
			// Slower than the answer, so the chat waits for it after answering.
			return geminitest.Reply{Text: verdicts(r.LastUserText(), "exfiltration"), Latency: 1500 * time.Millisecond}
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "Generated Title"}
		}
		return geminitest.Reply{Text: "answer to: " + r.LastUserText()}
	}))
	alertID := c.addAlert("guardduty.json")
	c.askJSON("", "-a", alertID, "-q", "Is there data exfiltration over DNS?")

	term := startTerminal(t, c, 160, "chat", "-a", alertID)
	scr := term.scr
	scr.waitFor(t, "/help for commands")
	term.typeLine("What volume of exfiltration happened?")
	scr.waitFor(t, "Ask it again there")
	term.typeLine("n")
	term.typeLine("/exit")
	text := term.wait()
	answer := strings.Index(text, "answer to: What volume of exfiltration happened?")
	label, offer := strings.Index(text, "checking earlier conversations…"), strings.Index(text, "This looks like the earlier conversation")
	if answer < 0 || label < answer || label > offer {
		t.Fatalf("want the answer, then the judge's spinner label, then its offer:\n%s", text)
	}
}

// TestHistoryShowPager: history show renders the transcript on a terminal, through $PAGER
// when it is taller than the screen, and never pages into a pipe.
func TestHistoryShowPager(t *testing.T) {
	t.Parallel()
	var long strings.Builder
	long.WriteString("## Timeline\n\n")
	for i := range 60 {
		long.WriteString("- step " + string(rune('a'+i%26)) + " of the intrusion\n")
	}
	c := answeringCLI(t, func(string) geminitest.Reply { return geminitest.Reply{Text: long.String()} })
	pagerScript := filepath.Join(t.TempDir(), "fakepager")
	if err := os.WriteFile(pagerScript, []byte("#!/bin/sh\necho PAGED-BY-FAKE\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = append(c.env, "PAGER="+pagerScript)
	alertID := c.addAlert("guardduty.json")
	got := c.askJSON("", "-a", alertID, "-q", "What happened, step by step?")

	term := startTerminal(t, c, 100, "history", "show", got.HistoryID)
	text := term.wait()
	if !strings.Contains(text, "PAGED-BY-FAKE") {
		t.Fatalf("a transcript taller than the terminal was not paged:\n%s", text)
	}
	plain := term.scr.plain()
	if strings.Contains(plain, "## ") || !strings.Contains(plain, "Timeline") || !strings.Contains(plain, "• step a of the intrusion") {
		t.Fatalf("transcript not rendered:\n%s", plain)
	}

	piped := c.mustRun("", "history", "show", got.HistoryID)
	if strings.Contains(piped, "PAGED-BY-FAKE") || !strings.Contains(piped, "## Timeline") {
		t.Fatalf("piped output paged or changed:\n%s", piped)
	}
}
