package e2e_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// screen collects everything the program writes to its terminal and, like a terminal, answers
// cursor position requests (the line editor asks for one before each prompt).
type screen struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	reply io.Writer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range bytes.Count(p, []byte("\x1b[6n")) {
		_, _ = s.reply.Write([]byte("\x1b[1;1R"))
	}
	return s.buf.Write(p)
}

var ansi = regexp.MustCompile(`\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[@-Z\\-_])`)

// text is the screen without escape sequences, whitespace collapsed.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(strings.Fields(ansi.ReplaceAllString(s.buf.String(), "")), " ")
}

func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	eventually.True(t, 20*time.Second, fmt.Sprintf("the screen to show %q", want),
		func() bool { return strings.Contains(s.text(), want) }, func() string { return "screen:\n" + s.text() })
}

// terminalSession is the binary running in a pseudo-terminal of 40 rows and cols columns.
type terminalSession struct {
	t      *testing.T
	cmd    *exec.Cmd
	tty    *os.File
	scr    *screen
	copied chan struct{}
}

func startTerminal(t *testing.T, c *cli, cols uint16, args ...string) *terminalSession {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(c.env, "TERM=xterm-256color")
	cmd.Dir = c.dataDir
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tty.Close() })
	ts := &terminalSession{t: t, cmd: cmd, tty: tty, scr: &screen{reply: tty}, copied: make(chan struct{})}
	go func() { _, _ = io.Copy(ts.scr, tty); close(ts.copied) }()
	return ts
}

// typeLine types s and Enter.
func (ts *terminalSession) typeLine(s string) { ts.write(s + "\r") }

func (ts *terminalSession) write(s string) {
	if _, err := ts.tty.Write([]byte(s)); err != nil {
		ts.t.Fatal(err)
	}
}

func (ts *terminalSession) waitFor(want string) {
	ts.t.Helper()
	ts.scr.waitFor(ts.t, want)
}

// wait waits for the program to exit successfully and returns the whole screen's text.
func (ts *terminalSession) wait() string {
	ts.t.Helper()
	done := make(chan error, 1)
	go func() { done <- ts.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			ts.t.Fatalf("exited with %v; screen:\n%s", err, ts.scr.text())
		}
	case <-time.After(20 * time.Second):
		_ = ts.cmd.Process.Kill()
		ts.t.Fatalf("did not exit; screen:\n%s", ts.scr.text())
	}
	<-ts.copied
	return ts.scr.text()
}

func waitRequest(t *testing.T, srv *geminitest.Server, question string) {
	t.Helper()
	eventually.True(t, 20*time.Second, fmt.Sprintf("a request for %q", question), func() bool {
		for _, r := range srv.Requests() {
			if r.Kind == geminitest.KindStreamGenerateContent && r.LastUserText() == question {
				return true
			}
		}
		return false
	}, nil)
}

func TestInteractiveChat(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Generated Title"}
		}
		switch q := r.LastUserText(); {
		case strings.Contains(q, "slow"):
			return geminitest.Reply{Chunks: []string{"partial-start ", "never-1 ", "never-2 ", "never-3"}, ChunkDelay: 1500 * time.Millisecond}
		default:
			return geminitest.Reply{Chunks: []string{"**Answer** to ", q}}
		}
	}))
	alertID := c.addAlert("guardduty.json")

	term := startTerminal(t, c, 120, "chat", "-a", alertID)
	scr, typeLine := term.scr, term.typeLine

	scr.waitFor(t, "/help for commands")
	typeLine("first question")
	scr.waitFor(t, "Answer to first question")

	typeLine("second slow question")
	waitRequest(t, c.srv, "second slow question")
	// Text shows as it arrives (pkg/mdstream): once the first chunk is on the screen, the
	// chat has it, and the Ctrl-C below comes 1.5 s before the next chunk.
	scr.waitFor(t, "partial-start")
	term.write("\x03") // Ctrl-C while streaming
	scr.waitFor(t, "cancelled")
	scr.waitFor(t, "partial-start")

	typeLine(`"""`)
	typeLine("multi")
	typeLine("line")
	typeLine(`"""`)
	scr.waitFor(t, "Answer to multi line")

	typeLine("/title Investigation of i-99999999")
	scr.waitFor(t, "Title set: Investigation of i-99999999")
	typeLine("/usage")
	scr.waitFor(t, "Tokens:")
	typeLine("/exit")

	screenText := term.wait()
	if strings.Contains(screenText, "never-3") {
		t.Fatal("the cancelled answer kept streaming")
	}
	m := regexp.MustCompile(`Resume with: alertchat chat -a ` + alertID + ` --history ([0-9a-f-]{36})`).FindStringSubmatch(screenText)
	if m == nil {
		t.Fatalf("no resume hint; screen:\n%s", screenText)
	}
	h := c.history(m[1])
	if h.Title != "Investigation of i-99999999" {
		t.Fatalf("stored title %q", h.Title)
	}
	var texts []string
	for _, content := range h.Contents {
		texts = append(texts, content.Role+": "+content.Parts[0].Text)
	}
	want := []string{
		"user: first question", "model: **Answer** to first question",
		"user: second slow question", "model: partial-start ",
		"user: multi\nline", "model: **Answer** to multi\nline",
	}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("stored transcript:\n%q\nwant\n%q", texts, want)
	}
}
