package cmd

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/spinner"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// answerWriter prints a streamed answer: raw text as it arrives, or, for a person at a
// terminal, Markdown through mdstream (text shown as it arrives, completed blocks rendered).
type answerWriter struct {
	w      io.Writer
	md     *mdstream.Stream
	wrote  bool
	endsNL bool
	// beforeFirstWrite runs once before anything is printed (it stops the spinner).
	beforeFirstWrite func()
}

func newAnswerWriter(ios *IOStreams, raw bool) *answerWriter {
	aw := &answerWriter{w: ios.Out}
	if raw || !ios.Pretty() {
		return aw
	}
	if r, err := newMarkdownRenderer(ios); err == nil {
		aw.md = r.Stream(ios.Out)
		aw.md.OnFirstWrite = func() {
			if aw.beforeFirstWrite != nil {
				aw.beforeFirstWrite()
			}
		}
	}
	return aw
}

// newMarkdownRenderer is a renderer for the terminal on ios.Out.
func newMarkdownRenderer(ios *IOStreams) (*mdstream.Renderer, error) {
	_, height := termSize(ios.Out)
	return mdstream.NewRenderer(mdstream.Options{Width: ios.TermWidth, Height: height})
}

// termSize is the size of the terminal w is, or zeros.
func termSize(w io.Writer) (width, height int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	width, height, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0, 0
	}
	return width, height
}

// Write takes the next piece of the answer.
func (a *answerWriter) Write(chunk string) {
	if a.md != nil {
		a.md.Write(chunk)
		return
	}
	a.emit(termsafe.String(chunk))
}

// Close prints what is left and ends the answer with a newline.
func (a *answerWriter) Close() {
	if a.md != nil {
		_ = a.md.Close()
		return
	}
	if a.wrote && !a.endsNL {
		a.emit("\n")
	}
}

// Interrupt ends an answer cut short by Ctrl-C: what was shown stays, and the cut line is
// ended so the notice that follows starts on its own line.
func (a *answerWriter) Interrupt() {
	if a.md != nil {
		_ = a.md.Interrupt()
		return
	}
	a.Close()
}

func (a *answerWriter) emit(s string) {
	if s == "" {
		return
	}
	if !a.wrote && a.beforeFirstWrite != nil {
		a.beforeFirstWrite()
	}
	_, _ = io.WriteString(a.w, s)
	a.wrote = true
	a.endsNL = strings.HasSuffix(s, "\n")
}

// startLabelledSpinner shows on stderr, for a person, what the command waits for.
func startLabelledSpinner(ios *IOStreams, label string) *spinner.Spinner {
	return spinner.Start(ios.ErrOut, ios.StderrTTY && !ios.NoColor, label)
}
