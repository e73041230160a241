package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/briandowns/spinner"
	"github.com/m-mizutani/goerr/v2"
)

// ConfirmDelete asks before a destructive step. With yes it goes ahead; where it cannot ask
// (stdin or stderr is not a terminal) it refuses with a usage error naming -y, since nothing
// destructive happens unasked. question names what is deleted. A "no" prints "Aborted." and
// returns false.
func ConfirmDelete(ios *IOStreams, yes bool, question string) (bool, error) {
	if yes {
		return true, nil
	}
	if !ios.CanPrompt() {
		return false, UsageErrorf("refusing to delete without confirmation: not a terminal, so nothing can be asked; add -y to delete")
	}
	fmt.Fprintf(ios.ErrOut, "%s [y/N] ", question)
	line, err := bufio.NewReader(ios.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, goerr.Wrap(err, "failed to read the answer")
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	if err != nil { // EOF without an answer: end the prompt's line
		fmt.Fprintln(ios.ErrOut)
	}
	fmt.Fprintln(ios.ErrOut, "Aborted.")
	return false, nil
}

// Spinner shows what the program waits for, on stderr, for a person only. The zero value (and
// a nil one) does nothing.
type Spinner struct{ s *spinner.Spinner }

// StartSpinner starts a spinner labelled label ("asking Gemini") when stderr is a terminal and
// colour is allowed.
func StartSpinner(ios *IOStreams, label string) *Spinner {
	if !ios.StderrTTY || ios.NoColor {
		return &Spinner{}
	}
	s := spinner.New(spinner.CharSets[14], 100*time.Millisecond, spinner.WithWriter(ios.ErrOut))
	s.Suffix = " " + label + "..."
	s.Start()
	return &Spinner{s: s}
}

// Stop removes the spinner; it may be called more than once.
func (c *Spinner) Stop() {
	if c != nil && c.s != nil {
		c.s.Stop()
		c.s = nil
	}
}
