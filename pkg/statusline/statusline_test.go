package statusline_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/termtest"
	"github.com/alertchat/alertchat/pkg/statusline"
)

const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

func hasFrame(s string) bool { return strings.ContainsAny(s, frames) }

func onTerminal(t *testing.T, cols int) (*termtest.Term, *statusline.Line) {
	t.Helper()
	term := termtest.Open(t, cols, 10)
	l := statusline.New(statusline.Options{Out: term.TTY, Indicator: true, Progress: true, Width: func() int { return cols }})
	t.Cleanup(l.Stop)
	return term, l
}

func waitSpinning(t *testing.T, term *termtest.Term, label string) {
	t.Helper()
	term.WaitFor(t, 10*time.Second, "the indicator labelled "+label, func(s *termtest.Screen) bool {
		for _, r := range s.Rows() {
			if strings.Contains(r, label) && hasFrame(r) {
				return true
			}
		}
		return false
	})
}

// The indicator is drawn with its label, changes label in place, and Stop leaves nothing: the
// row is empty and the cursor shown again.
func TestIndicatorOnTerminal(t *testing.T) {
	t.Parallel()
	term, l := onTerminal(t, 60)
	l.Start(statusline.AskingGemini)
	waitSpinning(t, term, statusline.AskingGemini)
	if !term.CursorHidden() {
		t.Fatal("the cursor is shown under the indicator")
	}
	l.Start(statusline.Running("mcp_intel_lookup"))
	waitSpinning(t, term, "running mcp_intel_lookup")
	l.Stop()
	term.Flush(t)
	if v := term.Visible(); v != "" {
		t.Fatalf("after Stop the screen shows:\n%s", v)
	}
	if term.CursorHidden() {
		t.Fatal("the cursor stays hidden after Stop")
	}
	l.Stop() // twice is nothing
}

// Stop before an answer: the answer is drawn once, whole, and no frame comes after it, even
// after the label changed (the live indicator is the one stopped).
func TestStopBeforeAnswer(t *testing.T) {
	t.Parallel()
	term, l := onTerminal(t, 60)
	l.Start(statusline.AskingGemini)
	l.Start(statusline.Running("lookup"))
	l.Start(statusline.AskingGemini)
	waitSpinning(t, term, statusline.AskingGemini)
	l.Stop()
	if _, err := term.TTY.WriteString("The host is compromised.\r\n"); err != nil {
		t.Fatal(err)
	}
	term.Flush(t)
	raw := term.Raw()
	time.Sleep(3 * 100 * time.Millisecond) // three frames' time: a live indicator would draw
	term.Flush(t)
	if after := strings.TrimPrefix(term.Raw(), raw); hasFrame(after) {
		t.Fatalf("the indicator drew after Stop: %q", after)
	}
	if got := term.Visible(); got != "The host is compromised." {
		t.Fatalf("screen:\n%s", got)
	}
}

// While a prompt is up nothing is drawn over it: not the indicator, not a label change, not a
// notice from another goroutine. After it, held notices are printed and the indicator comes
// back with its latest label.
func TestPromptPausesEverything(t *testing.T) {
	t.Parallel()
	term, l := onTerminal(t, 60)
	l.Start(statusline.Running("lookup"))
	waitSpinning(t, term, "running lookup")
	asked := make(chan struct{})
	answer := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- l.Prompt(func() error {
			_, _ = term.TTY.WriteString("Run lookup? [y/N] ")
			close(asked)
			<-answer
			_, _ = term.TTY.WriteString("y\r\n")
			return nil
		})
	}()
	<-asked
	term.Flush(t)
	before := term.Raw()
	l.Println("→ mcp_intel_env")
	l.Start(statusline.Running("env"))
	l.Progress("[##....] 2/6")
	time.Sleep(3 * 100 * time.Millisecond)
	term.Flush(t)
	if after := strings.TrimPrefix(term.Raw(), before); strings.Contains(after, "env") || hasFrame(after) || strings.Contains(after, "2/6") {
		t.Fatalf("drawn while the question was up: %q", after)
	}
	if v := term.Visible(); v != "Run lookup? [y/N]" {
		t.Fatalf("the question is not alone on the screen:\n%s", term.Dump())
	}
	if term.CursorHidden() {
		t.Fatal("the cursor is hidden while a question waits")
	}
	close(answer)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	term.WaitText(t, "2/6")
	rows := term.Rows()
	if rows[0] != "Run lookup? [y/N] y" || rows[1] != "→ mcp_intel_env" || rows[2] != "[##....] 2/6" {
		t.Fatalf("after the prompt:\n%s", term.Dump())
	}
}

// Println writes above the indicator, which is drawn again below: the line is whole.
func TestPrintlnAboveIndicator(t *testing.T) {
	t.Parallel()
	term, l := onTerminal(t, 60)
	l.Start(statusline.AskingGemini)
	waitSpinning(t, term, statusline.AskingGemini)
	l.Println(`→ search_histories query="203.0.113.7"`)
	l.Start(statusline.Running("search_histories"))
	waitSpinning(t, term, "running search_histories")
	rows := term.Rows()
	if rows[0] != `→ search_histories query="203.0.113.7"` || !strings.Contains(rows[1], "running search_histories") {
		t.Fatalf("screen:\n%s", term.Dump())
	}
	l.Stop()
	term.Flush(t)
	if got := term.Visible(); got != `→ search_histories query="203.0.113.7"` {
		t.Fatalf("after Stop:\n%s", term.Dump())
	}
}

// A label wider than the terminal, or of wide characters, is cut to one line: the indicator
// never erases the lines above it.
func TestLabelFitsOneLine(t *testing.T) {
	t.Parallel()
	for _, label := range []string{strings.Repeat("running a tool with a very long name ", 4), "以前の会話を確認しています、しばらくお待ちください…"} {
		term, l := onTerminal(t, 24)
		l.Println("line above")
		l.Start(label)
		term.WaitFor(t, 10*time.Second, "a frame", func(s *termtest.Screen) bool { return hasFrame(s.Rows()[1]) })
		time.Sleep(3 * 100 * time.Millisecond)
		term.Flush(t)
		rows := term.Rows()
		if rows[0] != "line above" || rows[2] != "" {
			t.Fatalf("label %q:\n%s", label, term.Dump())
		}
		l.Stop()
	}
}

// Progress lines are redrawn in place; a notice goes above; Stop erases. Where they are not
// allowed, or the indicator is not (or the output is not a terminal), nothing is written.
func TestProgressAndNotATerminal(t *testing.T) {
	t.Parallel()
	term, l := onTerminal(t, 60)
	l.Progress("[#.....] 1/6")
	l.Progress("[###...] 3/6")
	l.Println("Found batch job j1")
	term.Flush(t)
	rows := term.Rows()
	if rows[0] != "Found batch job j1" || rows[1] != "[###...] 3/6" {
		t.Fatalf("screen:\n%s", term.Dump())
	}
	l.Stop()
	term.Flush(t)
	if got := term.Visible(); got != "Found batch job j1" {
		t.Fatalf("after Stop:\n%s", term.Dump())
	}

	var buf bytes.Buffer
	quiet := statusline.New(statusline.Options{Out: &buf, Indicator: true})
	quiet.Start(statusline.AskingGemini)
	quiet.Progress("1/2")
	quiet.Stop()
	if buf.Len() != 0 {
		t.Fatalf("drawn into a buffer: %q", buf.String())
	}
	quiet.Println("a notice")
	if buf.String() != "a notice\n" {
		t.Fatalf("notice %q", buf.String())
	}
	noIndicator := termtest.Open(t, 60, 5)
	off := statusline.New(statusline.Options{Out: noIndicator.TTY})
	off.Start(statusline.AskingGemini)
	off.Stop()
	noIndicator.Flush(t)
	if strings.Contains(noIndicator.Raw(), "asking") {
		t.Fatalf("indicator drawn though not allowed: %q", noIndicator.Raw())
	}
	var nilLine *statusline.Line
	nilLine.Start("x")
	nilLine.Stop()
	if err := nilLine.Prompt(func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// Keys typed while the indicator spins are not drawn beside it (the terminal's echo is off
// while it is drawn), and they are not lost: the program reads them afterwards, and typing is
// echoed again once the indicator is gone.
func TestTypedAheadIsNotDrawnOnTheIndicator(t *testing.T) {
	t.Parallel()
	term := termtest.Open(t, 60, 10)
	l := statusline.New(statusline.Options{Out: term.TTY, Indicator: true, Width: func() int { return 60 }, Input: term.TTY})
	t.Cleanup(l.Stop)
	l.Start(statusline.AskingGemini)
	waitSpinning(t, term, statusline.AskingGemini)
	term.Type(t, "CALL lookup")
	// Several frames: an echo would be on the screen by then.
	time.Sleep(400 * time.Millisecond)
	term.Flush(t)
	// Raw, not the screen: the next frame erases the row, so an echo shows only between two
	// frames, as a flicker a person does see.
	if strings.Contains(term.Raw(), "CALL") {
		t.Fatalf("typed-ahead keys are drawn on the status line: %q", term.Raw())
	}
	l.Stop()
	term.Type(t, " 203.0.113.7\n")
	got := make([]byte, 64)
	n, err := term.TTY.Read(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(got[:n]) != "CALL lookup 203.0.113.7\n" {
		t.Fatalf("the program read %q, want what was typed before and after", got[:n])
	}
	term.Flush(t)
	// After Stop the echo is back: what was typed then is on the screen.
	term.WaitText(t, "203.0.113.7")
	if hasFrame(term.Visible()) {
		t.Fatalf("a frame is left on the screen:\n%s", term.Dump())
	}
}
