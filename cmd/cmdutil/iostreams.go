package cmdutil

import (
	"bytes"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// IOStreams is what a command reads and writes, and whether each end is a terminal. Commands
// never touch os.Stdin/Stdout directly, so each one is testable without a terminal.
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
