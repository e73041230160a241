package cmdutil

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/alertchat/alertchat/pkg/statusline"
)

// IOStreams is what a command reads and writes, and whether each end is a terminal. Commands
// never touch os.Stdin/Stdout directly, so each one is testable without a terminal.
//
// IOStreams also owns the terminal's status line (see pkg/statusline): the one place where a
// command shows what it waits for or how far it has come. Commands never hold an indicator
// themselves; they ask the streams:
//
//   - StartProgressIndicatorWithLabel shows the spinning indicator with a label, or changes the
//     label of the one showing; RunWithProgress shows it while a function runs.
//   - StopProgressIndicator erases the status line. A command stops it before it prints an
//     answer's first byte (nothing else would: the answer goes to stdout).
//   - ShowProgressLine shows a progress line (a bar, a job's state) instead.
//   - Notice prints a line on stderr above the status line, which is drawn again below it.
//   - Prompt runs a question put to the person with the status line taken away: nothing is
//     drawn over the question, notices wait until it is answered, and one question is asked at
//     a time. Every prompt (approvals, confirmations, forms) goes through it.
//
// The indicator is drawn only when stdout and stderr are terminals and NO_COLOR is unset;
// progress lines when stderr is a terminal. The methods are safe from several goroutines.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
	// NoColor is set by NO_COLOR; colours, markdown styling and spinners are off.
	NoColor bool
	// TermWidth and TermHeight are the terminal's size in columns and rows, 0 when unknown.
	TermWidth  int
	TermHeight int

	// size, when set, measures the terminal now (it may have been resized since the start).
	size func() (cols, rows int)

	statusOnce sync.Once
	status     *statusline.Line
}

// SystemIO returns the process's streams.
func SystemIO() *IOStreams {
	ios := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		NoColor:   os.Getenv("NO_COLOR") != "",
	}
	if ios.StdoutTTY {
		if w, h, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			ios.TermWidth, ios.TermHeight = w, h
		}
	}
	if ios.StderrTTY {
		ios.size = func() (int, int) {
			w, h, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0, 0
			}
			return w, h
		}
	}
	return ios
}

// Pretty reports whether output is for a person: stdout is a terminal and colour is allowed.
func (s *IOStreams) Pretty() bool { return s.StdoutTTY && !s.NoColor }

// TestIO returns streams on buffers for tests: stdin reads in; tty sets every terminal flag.
func TestIO(in string, tty bool) (ios *IOStreams, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{In: strings.NewReader(in), Out: stdout, ErrOut: stderr,
		StdinTTY: tty, StdoutTTY: tty, StderrTTY: tty, NoColor: true}
	return ios, stdout, stderr
}

// CanPrompt reports whether a question can be asked and answered: stdin and stderr are
// terminals.
func (s *IOStreams) CanPrompt() bool { return s.StdinTTY && s.StderrTTY }

// TerminalSize returns the terminal's size in columns and rows as it is now, 0 when unknown.
func (s *IOStreams) TerminalSize() (cols, rows int) {
	if s.size != nil {
		if w, h := s.size(); w > 0 && h > 0 {
			return w, h
		}
	}
	return s.TermWidth, s.TermHeight
}

// statusLine is the streams' status line, made on first use.
func (s *IOStreams) statusLine() *statusline.Line {
	s.statusOnce.Do(func() {
		s.status = statusline.New(statusline.Options{
			Out:       s.ErrOut,
			Indicator: s.StdoutTTY && s.StderrTTY && !s.NoColor,
			Progress:  s.StderrTTY,
			Width:     func() int { w, _ := s.TerminalSize(); return w },
			Input:     s.ttyInput(),
		})
	})
	return s.status
}

// ttyInput is stdin when it is a terminal file, for the status line to keep what is typed
// ahead off the indicator's line.
func (s *IOStreams) ttyInput() *os.File {
	if f, ok := s.In.(*os.File); ok && s.StdinTTY {
		return f
	}
	return nil
}

// StartProgressIndicatorWithLabel shows the indicator with label (one of pkg/statusline's
// labels, or statusline.Running(tool)), or changes the label of the one showing.
func (s *IOStreams) StartProgressIndicatorWithLabel(label string) { s.statusLine().Start(label) }

// StopProgressIndicator erases the status line (indicator or progress line) and shows the
// cursor. Stopping what is not showing does nothing.
func (s *IOStreams) StopProgressIndicator() { s.statusLine().Stop() }

// RunWithProgress shows the indicator labelled label while run runs.
func (s *IOStreams) RunWithProgress(label string, run func() error) error {
	s.StartProgressIndicatorWithLabel(label)
	defer s.StopProgressIndicator()
	return run()
}

// ShowProgressLine shows text as the status line, redrawn in place: a progress bar, a job's
// state. It is drawn only when stderr is a terminal.
func (s *IOStreams) ShowProgressLine(text string) { s.statusLine().Progress(text) }

// Notice prints line on stderr, above the status line. While a prompt is up it waits until
// the prompt is answered.
func (s *IOStreams) Notice(line string) { s.statusLine().Println(line) }

// Prompt runs ask, which writes a question to the person (on ErrOut, or through the line
// editor) and reads the answer, with the status line taken away: nothing is drawn over the
// question, Notice waits until it is answered, and one prompt runs at a time. ask must not
// call Notice for its own question (it would wait for ask).
func (s *IOStreams) Prompt(ask func() error) error { return s.statusLine().Prompt(ask) }
