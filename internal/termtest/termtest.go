// Package termtest lets tests look at a program the way a person at a terminal does: what it
// writes to a pseudo-terminal goes through a terminal emulator (github.com/charmbracelet/x/vt),
// and tests read the emulator's cells (the rows on the screen, the lines scrolled off above
// them, whether the cursor is shown), not the byte stream. A line that was drawn and then
// erased or overwritten is not on the screen, as for a person; one drawn twice is there twice.
//
// Start runs a command in a pseudo-terminal; Open gives a pseudo-terminal to a test's own
// code. Either way the emulator answers the program's queries (the cursor position a line
// editor asks for) as a terminal would.
package termtest

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// Screen is a terminal emulator that keeps what it was sent. It is safe from several
// goroutines.
type Screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
	raw bytes.Buffer

	cols, rows int
}

// NewScreen returns an emulator of cols columns and rows rows, keeping up to 10,000 lines
// scrolled off its top. Its answers to the program's queries are read from Replies.
func NewScreen(cols, rows int) *Screen {
	return &Screen{emu: vt.NewEmulator(cols, rows), cols: cols, rows: rows}
}

// SetColors gives the terminal its own foreground and background, as a person's light or
// dark theme does: cells drawn without a colour take them, and the terminal answers the
// program's colour queries (OSC 10 and 11) with them.
func (s *Screen) SetColors(fg, bg color.Color) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emu.SetDefaultForegroundColor(fg)
	s.emu.SetDefaultBackgroundColor(bg)
}

// Colors returns the foreground and background of the cell at column x, row y of the screen;
// nil is the terminal's own colour (what SetColors gave it).
func (s *Screen) Colors(x, y int) (fg, bg color.Color) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.emu.CellAt(x, y)
	if c == nil {
		return nil, nil
	}
	return c.Style.Fg, c.Style.Bg
}

// Find returns where sub first starts on the screen's rows, top to bottom: its column and row.
// Columns are counted in characters, so it is meant for text of single-width characters.
func (s *Screen) Find(sub string) (x, y int, ok bool) {
	for y, row := range s.Rows() {
		if i := strings.Index(row, sub); i >= 0 {
			return len([]rune(row[:i])), y, true
		}
	}
	return 0, 0, false
}

// Write feeds the emulator what the program wrote.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	return s.emu.Write(p)
}

// Replies is what the terminal sends back to the program (answers to its queries): copy it to
// the program's input.
func (s *Screen) Replies() io.Reader { return s.emu }

// Close ends Replies. (The emulator's own Close is not safe beside a read of Replies.)
func (s *Screen) Close() error {
	if c, ok := s.emu.InputPipe().(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Rows returns the rows on the screen, top to bottom, trailing spaces cut.
func (s *Screen) Rows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.rows)
	for y := range s.rows {
		out[y] = s.row(func(x int) (string, int, bool) {
			c := s.emu.CellAt(x, y)
			if c == nil {
				return "", 0, false
			}
			return c.Content, c.Width, true
		})
	}
	return out
}

// Scrolled returns the lines that scrolled off the top of the screen, oldest first.
func (s *Screen) Scrolled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.emu.Scrollback()
	if sb == nil {
		return nil
	}
	var out []string
	for _, line := range sb.Lines() {
		out = append(out, s.row(func(x int) (string, int, bool) {
			if x >= len(line) {
				return "", 0, false
			}
			return line[x].Content, line[x].Width, true
		}))
	}
	return out
}

// row builds one line from its cells: a wide character's second cell adds nothing.
func (s *Screen) row(cell func(x int) (content string, width int, ok bool)) string {
	var b strings.Builder
	for x := range s.cols {
		content, width, ok := cell(x)
		if !ok {
			break
		}
		switch {
		case content != "":
			b.WriteString(content)
		case width != 0:
			b.WriteByte(' ')
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Lines returns every line the person can see or scroll back to: the scrolled-off lines,
// then the screen's rows, trailing empty rows left out.
func (s *Screen) Lines() []string {
	lines := append(s.Scrolled(), s.Rows()...)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Text is Lines joined by line breaks.
func (s *Screen) Text() string { return strings.Join(s.Lines(), "\n") }

// Visible is the screen's rows joined by line breaks, trailing empty rows left out.
func (s *Screen) Visible() string {
	rows := s.Rows()
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return strings.Join(rows, "\n")
}

// CursorHidden reports whether the program has hidden the cursor.
func (s *Screen) CursorHidden() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.CursorHidden()
}

// Cursor returns the cursor's column and row on the screen.
func (s *Screen) Cursor() (x, y int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.emu.CursorPosition()
	return p.X, p.Y
}

// Raw is every byte the program wrote, escape sequences included.
func (s *Screen) Raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.raw.String()
}

// Count returns how many lines of Lines contain sub.
func (s *Screen) Count(sub string) int {
	n := 0
	for _, l := range s.Lines() {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// WaitFor waits until ok holds for the screen, failing the test (with the screen) after
// timeout. what says what is waited for.
func (s *Screen) WaitFor(t testing.TB, timeout time.Duration, what string, ok func(*Screen) bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok(s) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; the screen:\n%s", timeout, what, s.Dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitText waits until some line shows want.
func (s *Screen) WaitText(t testing.TB, want string) {
	t.Helper()
	s.WaitFor(t, 30*time.Second, fmt.Sprintf("%q on the screen", want), func(s *Screen) bool { return s.Count(want) > 0 })
}

// Dump is the screen for a failure message: every line, numbered, the screen's rows marked.
func (s *Screen) Dump() string {
	scrolled, rows := s.Scrolled(), s.Rows()
	var b strings.Builder
	for i, l := range scrolled {
		fmt.Fprintf(&b, "   %4d |%s\n", i-len(scrolled), l)
	}
	for i, l := range rows {
		fmt.Fprintf(&b, "   %4d |%s\n", i, l)
	}
	x, y := s.Cursor()
	fmt.Fprintf(&b, "   cursor at column %d row %d, hidden %v", x, y, s.CursorHidden())
	return b.String()
}

// Term is a pseudo-terminal whose output is shown on a Screen.
type Term struct {
	*Screen
	// TTY is the terminal's side a program is given (stdin, stdout, stderr).
	TTY    *os.File
	master *os.File
	copied chan struct{}
}

// Open opens a pseudo-terminal of cols columns and rows rows, for the test's own code to write
// on (TTY). It is closed when the test ends.
func Open(t testing.TB, cols, rows int) *Term {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatalf("size the pseudo-terminal: %v", err)
	}
	term := attach(master, cols, rows)
	term.TTY = tty
	t.Cleanup(func() {
		_ = tty.Close()
		_ = master.Close()
		<-term.copied
		_ = term.Close()
	})
	return term
}

func attach(master *os.File, cols, rows int) *Term {
	term := &Term{Screen: NewScreen(cols, rows), master: master, copied: make(chan struct{})}
	go func() {
		defer close(term.copied)
		_, _ = io.Copy(term.Screen, master)
	}()
	go func() { _, _ = io.Copy(master, term.Replies()) }()
	return term
}

// Flush waits until what was written on TTY so far is on the screen.
func (t *Term) Flush(tb testing.TB) {
	tb.Helper()
	marker := fmt.Sprintf("\x1b]termtest;%d\x07", time.Now().UnixNano())
	if _, err := t.TTY.WriteString(marker); err != nil {
		tb.Fatal(err)
	}
	t.WaitFor(tb, 10*time.Second, "the terminal to catch up", func(s *Screen) bool { return strings.Contains(s.Raw(), marker) })
}

// Type sends keys to the program, as typed on the keyboard ("\r" is Enter, "\x03" Ctrl-C).
func (t *Term) Type(tb testing.TB, keys string) {
	tb.Helper()
	if _, err := t.master.WriteString(keys); err != nil {
		tb.Fatalf("type %q: %v", keys, err)
	}
}

// Proc is a program running in a pseudo-terminal.
type Proc struct {
	*Term
	Cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start runs cmd in a pseudo-terminal of cols columns and rows rows (stdin, stdout and stderr
// all on it). The program is killed, if still running, when the test ends.
func Start(t testing.TB, cmd *exec.Cmd, cols, rows int) *Proc {
	t.Helper()
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatalf("start %s in a pseudo-terminal: %v", cmd.Path, err)
	}
	p := &Proc{Term: attach(master, cols, rows), Cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		_ = master.Close()
		<-p.copied
		_ = p.Close()
	})
	return p
}

// Wait waits for the program to exit and for its last output to reach the screen, and returns
// its exit code. It fails the test when the program does not exit within timeout.
func (p *Proc) Wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.Cmd.Process.Kill()
		<-p.done
		t.Fatalf("the program did not exit within %s; the screen:\n%s", timeout, p.Dump())
	}
	// The program's side is closed: the copy ends once the last bytes are read.
	select {
	case <-p.copied:
	case <-time.After(5 * time.Second):
	}
	if ee, ok := p.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("waiting for the program: %v", p.err)
	}
	return 0
}
