// Package pager shows long output through a pager, as git and gh do: only when stdout is a
// terminal and the text is taller than the screen; piped output is written as it is.
package pager

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/m-mizutani/goerr/v2"
	"github.com/rivo/uniseg"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// DefaultCommand is the pager when $PAGER is unset: -R lets colours through.
const DefaultCommand = "less -R"

// Options describe where the text goes.
type Options struct {
	Out    io.Writer // stdout (an *os.File for the pager to draw on the terminal directly)
	ErrOut io.Writer
	// TTY is whether Out is a terminal; Width and Height its size (0: unknown, no paging).
	TTY    bool
	Width  int
	Height int
	// Command is $PAGER: run with sh -c; "" means DefaultCommand, "cat" means no pager.
	Command string
	// Env is the pager's environment (nil: the program's own). LESS=FRX is added when LESS is
	// not set, so less keeps colours and leaves the text on the screen.
	Env []string
}

// Show writes text to opts.Out, through the pager when it is taller than the screen.
func Show(ctx context.Context, opts Options, text string) error {
	if !Needed(opts, text) {
		return write(opts.Out, text)
	}
	command := strings.TrimSpace(opts.Command)
	if command == "" {
		command = DefaultCommand
	}
	if fields := strings.Fields(command); fields[0] == "cat" && len(fields) == 1 {
		return write(opts.Out, text)
	}
	if first := strings.Fields(command)[0]; !strings.Contains(first, "=") && !lookable(first) {
		return write(opts.Out, text) // no pager installed: the text is still shown
	}
	if !lookable("sh") {
		// $PAGER is a shell command line; without a shell (Windows, unless Git's is on PATH)
		// the text is still shown, unpaged.
		return write(opts.Out, text)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = opts.Out, opts.ErrOut
	if opts.Env != nil {
		cmd.Env = opts.Env
		if !hasVar(opts.Env, "LESS") {
			cmd.Env = append(cmd.Env, "LESS=FRX")
		}
	}
	// Ctrl-C belongs to the pager while it runs (less uses it to stop a search): the program
	// must not die of it and leave the pager behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	if err := cmd.Run(); err != nil && !errors.Is(err, syscall.EPIPE) {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			// The pager's own exit status (q before the end, for instance) is not the program's failure.
			return nil
		}
		return goerr.Wrap(err, "failed to run the pager", goerr.V("pager", command))
	}
	return nil
}

// Needed reports whether text would go through the pager.
func Needed(opts Options, text string) bool {
	return opts.TTY && opts.Height > 0 && rows(text, opts.Width) >= opts.Height
}

// rows is how many screen rows text takes at width columns (0: lines are not wrapped). A
// wide character that does not fit at the end of a row goes to the next, as terminals do.
func rows(text string, width int) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		line = termsafe.StripCSI(line)
		if width <= 0 || format.Width(line) <= width {
			n++
			continue
		}
		n++
		col := 0
		g := uniseg.NewGraphemes(line)
		for g.Next() {
			w := g.Width()
			if col+w > width {
				n++
				col = 0
			}
			col += w
		}
	}
	return n
}

// lookable reports whether the pager's program exists.
func lookable(program string) bool {
	_, err := exec.LookPath(program)
	return err == nil
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

func write(w io.Writer, text string) error {
	if _, err := io.WriteString(w, text); err != nil {
		return goerr.Wrap(err, "failed to write output")
	}
	return nil
}
