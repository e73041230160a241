package lineedit_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/lineedit"
)

// TestEditorHelperProcess is the program the pty test runs: an editor on the process's own
// terminal that reads one line and prints it quoted.
func TestEditorHelperProcess(t *testing.T) {
	if os.Getenv("LINEEDIT_PTY_CHILD") != "1" {
		t.Skip("run by TestWideTextInAPty")
	}
	e, err := lineedit.New(lineedit.Config{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Terminal: true})
	if err != nil {
		fmt.Printf("NEW: %v\r\n", err)
		os.Exit(1)
	}
	line, err := e.ReadLine("> ")
	_ = e.Close()
	fmt.Printf("\r\nGOT:%s ERR:%v\r\n", strconv.Quote(line), err)
	os.Exit(0)
}

// TestWideTextInAPty types, moves over, deletes and wraps Japanese text in a real pseudo-
// terminal 20 columns wide, and checks after each key that the text is where it should be
// on a terminal screen and the cursor next to the character being edited.
func TestWideTextInAPty(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process in a pseudo-terminal")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEditorHelperProcess$")
	cmd.Env = append(os.Environ(), "LINEEDIT_PTY_CHILD=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 12, Cols: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = tty.Close(); _ = cmd.Wait() }()
	v := newScreen(20, tty)
	go func() { _, _ = io.Copy(v, tty) }()

	type state struct {
		rows     []string
		row, col int
	}
	expect := func(step string, want state) {
		t.Helper()
		var got state
		eventually.True(t, 15*time.Second, step, func() bool {
			got.rows, got.row, got.col = v.snapshot()
			return strings.Join(got.rows, "|") == strings.Join(want.rows, "|") && got.row == want.row && got.col == want.col
		}, func() string {
			return fmt.Sprintf("screen %q, cursor row %d col %d; want %q, row %d col %d", got.rows, got.row, got.col, want.rows, want.row, want.col)
		})
	}
	keys := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	const left, right, bs = "\x1b[D", "\x1b[C", "\x7f"
	expect("prompt", state{[]string{">"}, 0, 2})
	// "> " and nine wide characters fill the first row exactly; the rest wraps.
	keys("不審なログインが発生しました")
	expect("typed", state{[]string{"> 不審なログインが発", "生しました"}, 1, 10})
	keys(strings.Repeat(left, 3))
	expect("left ×3", state{[]string{"> 不審なログインが発", "生しました"}, 1, 4})
	keys(bs)
	expect("backspace", state{[]string{"> 不審なログインが発", "生ました"}, 1, 2})
	keys("し")
	expect("insert", state{[]string{"> 不審なログインが発", "生しました"}, 1, 4})
	// Back over the wrap to the first row, and insert there: the text reflows.
	keys(strings.Repeat(left, 4))
	expect("left over the wrap", state{[]string{"> 不審なログインが発", "生しました"}, 0, 16})
	keys("不正")
	expect("insert on the first row", state{[]string{"> 不審なログイン不正", "が発生しました"}, 1, 0})
	keys(right)
	expect("right", state{[]string{"> 不審なログイン不正", "が発生しました"}, 1, 2})
	keys("\r")
	eventually.True(t, 15*time.Second, "the line read", func() bool { return strings.Contains(v.raw(), "ERR:") }, v.raw)
	if want := `GOT:"不審なログイン不正が発生しました" ERR:<nil>`; !strings.Contains(v.raw(), want) {
		t.Fatalf("line read: %q, want %s", v.raw(), want)
	}
}

// screen is a small terminal for the test: it keeps the rows and the cursor, draws characters
// at their display width with automatic wrap (xterm's delayed wrap at the last column), follows
// CR, LF, BS and the sequences the editor uses (cursor up/down/left/right/column, erase), and
// answers cursor position reports.
type screen struct {
	mu      sync.Mutex
	width   int
	lines   [][]rune
	row     int
	col     int
	pending bool // a character filled the last column: the next one wraps
	reply   io.Writer
	all     bytes.Buffer
	partial []byte
}

func newScreen(width int, reply io.Writer) *screen {
	return &screen{width: width, lines: [][]rune{nil}, reply: reply}
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all.Write(p)
	data := append(s.partial, p...)
	s.partial = nil
	for len(data) > 0 {
		if data[0] == 0x1b {
			if len(data) < 2 {
				s.partial = append([]byte(nil), data...)
				break
			}
			if data[1] != '[' {
				data = data[2:]
				continue
			}
			end := 2
			for end < len(data) && (data[end] < 0x40 || data[end] > 0x7e) {
				end++
			}
			if end == len(data) {
				s.partial = append([]byte(nil), data...)
				break
			}
			s.csi(string(data[2:end]), data[end])
			data = data[end+1:]
			continue
		}
		if !utf8.FullRune(data) {
			s.partial = append([]byte(nil), data...)
			break
		}
		r, size := utf8.DecodeRune(data)
		data = data[size:]
		switch r {
		case '\r':
			s.col, s.pending = 0, false
		case '\n':
			s.down()
			s.col, s.pending = 0, false
		case '\b':
			if s.pending {
				s.pending = false
			} else if s.col > 0 {
				s.col--
			}
		case 0x07:
		default:
			s.put(r)
		}
	}
	return len(p), nil
}

func (s *screen) put(r rune) {
	w := format.Width(string(r))
	if w == 0 {
		return
	}
	if s.pending || s.col+w > s.width {
		s.down()
		s.col, s.pending = 0, false
	}
	line := s.lines[s.row]
	for len(line) < s.col+w {
		line = append(line, ' ')
	}
	line[s.col] = r
	if w == 2 {
		line[s.col+1] = 0
	}
	s.lines[s.row] = line
	s.col += w
	if s.col == s.width {
		s.col, s.pending = s.width-1, true
	}
}

func (s *screen) down() {
	s.row++
	if s.row == len(s.lines) {
		s.lines = append(s.lines, nil)
	}
}

func (s *screen) csi(params string, final byte) {
	n, err := strconv.Atoi(params)
	if err != nil || n == 0 {
		n = 1
	}
	s.pending = false
	switch final {
	case 'A':
		s.row = max(0, s.row-n)
	case 'B':
		s.row += n
		for s.row >= len(s.lines) {
			s.lines = append(s.lines, nil)
		}
	case 'C':
		s.col = min(s.width-1, s.col+n)
	case 'D':
		s.col = max(0, s.col-n)
	case 'G':
		s.col = min(s.width-1, n-1)
	case 'K':
		if s.col < len(s.lines[s.row]) {
			s.lines[s.row] = s.lines[s.row][:s.col]
		}
	case 'J':
		if s.col < len(s.lines[s.row]) {
			s.lines[s.row] = s.lines[s.row][:s.col]
		}
		s.lines = s.lines[:s.row+1]
	case 'n':
		if params == "6" {
			fmt.Fprintf(s.reply, "\x1b[%d;%dR", s.row+1, s.col+1)
		}
	}
}

// snapshot is the screen's rows (trailing spaces removed, trailing empty rows dropped) and
// the cursor; a cursor waiting to wrap is reported just past the last column.
func (s *screen) snapshot() ([]string, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := make([]string, len(s.lines))
	for i, l := range s.lines {
		rows[i] = strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")
	}
	for len(rows) > 1 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	col := s.col
	if s.pending {
		col = s.width
	}
	return rows, s.row, col
}

func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all.String()
}
