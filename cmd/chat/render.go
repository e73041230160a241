package chat

import (
	"io"
	"strings"

	"github.com/charmbracelet/glamour"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// answerWriter prints a streamed answer: raw text as it arrives, or, for a person at a
// terminal, Markdown rendered block by block (a block ends at a blank line outside a code
// fence), so the answer still appears progressively.
type answerWriter struct {
	w        io.Writer
	renderer *glamour.TermRenderer
	pending  strings.Builder
	wrote    bool
	endsNL   bool
	// beforeFirstWrite runs once before anything is printed (it stops the spinner, which keeps
	// going while Markdown waits for a whole block).
	beforeFirstWrite func()
}

func newAnswerWriter(ios *cmdutil.IOStreams, raw bool) *answerWriter {
	aw := &answerWriter{w: ios.Out}
	if raw || !ios.Pretty() {
		return aw
	}
	width := ios.TermWidth
	if width <= 0 || width > 120 {
		width = 100
	}
	if r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(width-2)); err == nil {
		aw.renderer = r
	}
	return aw
}

// Write takes the next piece of the answer.
func (a *answerWriter) Write(chunk string) {
	chunk = termsafe.String(chunk)
	if chunk == "" {
		return
	}
	if a.renderer == nil {
		a.emit(chunk)
		return
	}
	a.pending.WriteString(chunk)
	text := a.pending.String()
	if cut := lastBlockEnd(text); cut > 0 {
		a.emit(a.render(text[:cut]))
		a.pending.Reset()
		a.pending.WriteString(text[cut:])
	}
}

// Close prints what is left and ends the answer with a newline.
func (a *answerWriter) Close() {
	if rest := a.pending.String(); rest != "" {
		if a.renderer != nil {
			rest = a.render(rest)
		}
		a.emit(rest)
		a.pending.Reset()
	}
	if a.wrote && !a.endsNL {
		a.emit("\n")
	}
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

func (a *answerWriter) render(md string) string {
	out, err := a.renderer.Render(md)
	if err != nil {
		return md
	}
	return strings.Trim(out, "\n") + "\n\n"
}

// lastBlockEnd is the index after the last blank line that is outside a code fence, or 0.
func lastBlockEnd(text string) int {
	end, pos := 0, 0
	inFence, content := false, false
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
		}
		pos += len(line)
		switch {
		case trimmed != "":
			content = true
		case content && !inFence && strings.HasSuffix(line, "\n"):
			end = pos
		}
	}
	return end
}
