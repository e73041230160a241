package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

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
	var line string
	err := ios.Prompt(func() (err error) {
		fmt.Fprintf(ios.ErrOut, "%s [y/N] ", question)
		line, err = bufio.NewReader(ios.In).ReadString('\n')
		return err
	})
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
