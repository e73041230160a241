package chat

import (
	"io"
	"strings"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// answerWriter prints a streamed answer: raw text as it arrives, or, for a person at a
// terminal, Markdown through mdstream (text shown as it arrives, completed blocks rendered).
type answerWriter struct {
	w      io.Writer
	md     *mdstream.Stream
	wrote  bool
	endsNL bool
	// done: the answer was ended (Close and Interrupt may both be called).
	done bool
	// stop takes the status line away. It runs before every piece of the answer, not only the
	// first: after a round of tool calls the indicator is back, and the answer goes on below it.
	stop func()
}

func newAnswerWriter(ios *cmdutil.IOStreams, raw bool) *answerWriter {
	aw := &answerWriter{w: ios.Out, stop: ios.StopProgressIndicator}
	if raw || !ios.Pretty() {
		return aw
	}
	if r, err := cmdutil.NewMarkdownRenderer(ios); err == nil {
		aw.md = r.Stream(ios.Out)
	}
	return aw
}

// Write takes the next piece of the answer.
func (a *answerWriter) Write(chunk string) {
	if chunk == "" {
		return
	}
	a.stop()
	if a.md != nil {
		a.md.Write(chunk)
		return
	}
	a.emit(termsafe.String(chunk))
}

// settle ends the text shown so far at a line boundary, the answer going on later: the model
// wrote text before a round of tool calls, whose lines come next.
func (a *answerWriter) settle() {
	if a.done {
		return
	}
	if a.md != nil {
		_ = a.md.Close()
		return
	}
	if a.wrote && !a.endsNL {
		a.emit("\n")
	}
}

// Close prints what is left and ends the answer with a newline.
func (a *answerWriter) Close() {
	if a.done {
		return
	}
	a.done = true
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
	if a.done {
		return
	}
	if a.md != nil {
		a.done = true
		_ = a.md.Interrupt()
		return
	}
	a.Close()
}

func (a *answerWriter) emit(s string) {
	if s == "" {
		return
	}
	_, _ = io.WriteString(a.w, s)
	a.wrote = true
	a.endsNL = strings.HasSuffix(s, "\n")
}
