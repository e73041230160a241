package lineedit

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// PasteNewline stands in the line being edited where a pasted line ended (the line editor
// edits one line; a newline would end it). Decode turns it back into "\n".
const PasteNewline = '␤'

// Bracketed paste: the terminal sends a paste between these markers once the program has
// asked for it with EnablePaste.
const (
	EnablePaste  = "\x1b[?2004h"
	DisablePaste = "\x1b[?2004l"
	pasteStart   = "\x1b[200~"
	pasteEnd     = "\x1b[201~"
)

// Pastes up to these sizes are put in the line to edit; bigger ones are held aside and stand
// in the line as a placeholder ("[pasted text #1: 500 lines, 40 KB]"): the line editor redraws
// the whole line for every character it takes, which makes a big paste take minutes.
const (
	DefaultInlineBytes = 1024
	DefaultInlineLines = 12
)

// PasteReader is terminal input with each bracketed paste made one piece of one line: it
// removes the paste markers, drops control characters and escape sequences inside a paste
// (which the line editor would take for keys: a pasted Enter or Ctrl-C), and delivers the
// paste whole once it has ended, either in the line (pasted line breaks as PasteNewline, a
// trailing one dropped) or, when big, as a placeholder. Input outside a paste, cursor position
// reports included, passes unchanged. Decode gives a line's text back.
type PasteReader struct {
	r       io.Reader
	in      []byte // read, not yet processed (a marker or sequence cut by a read)
	out     []byte // processed, not yet returned
	chunk   []byte
	err     error
	inPaste bool
	paste   []byte // the paste so far, line breaks as "\n"
	afterCR bool   // the last paste byte was CR (so an LF after it is the same break)

	// InlineBytes and InlineLines bound a paste put in the line (zero: the defaults).
	InlineBytes, InlineLines int

	mu     sync.Mutex
	nonce  string
	held   []heldPaste
	counts int
}

type heldPaste struct{ placeholder, text string }

// NewPasteReader wraps the terminal's input. nonce makes its placeholders unlike those of
// other runs (input history keeps them), e.g. a few characters of the process's start time.
func NewPasteReader(r io.Reader, nonce string) *PasteReader {
	return &PasteReader{r: r, chunk: make([]byte, 4096), nonce: nonce}
}

// Decode is an edited line as the text it stands for: pasted line breaks become newlines and
// placeholders their pastes. A placeholder edited by hand is left as typed.
func (p *PasteReader) Decode(line string) string {
	p.mu.Lock()
	for _, h := range p.held {
		line = strings.ReplaceAll(line, h.placeholder, h.text)
	}
	p.mu.Unlock()
	return strings.ReplaceAll(line, string(PasteNewline), "\n")
}

// Read returns processed input; it blocks while it holds only the start of a marker, or a
// paste that has not ended.
func (p *PasteReader) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		if p.err != nil {
			if len(p.in) > 0 && !p.inPaste {
				p.out, p.in = append(p.out, p.in...), p.in[:0]
				continue
			}
			return 0, p.err
		}
		n, err := p.r.Read(p.chunk)
		p.in = append(p.in, p.chunk[:n]...)
		p.err = err
		p.process()
	}
	n := copy(b, p.out)
	p.out = p.out[:copy(p.out, p.out[n:])]
	return n, nil
}

// process moves what it can from in to out.
func (p *PasteReader) process() {
	i := 0
	for i < len(p.in) {
		rest := p.in[i:]
		if !p.inPaste {
			esc := bytes.IndexByte(rest, 0x1b)
			if esc < 0 {
				p.out = append(p.out, rest...)
				i = len(p.in)
				break
			}
			p.out = append(p.out, rest[:esc]...)
			i += esc
			rest = p.in[i:]
			switch {
			case bytes.HasPrefix(rest, []byte(pasteStart)):
				p.inPaste, p.paste, p.afterCR = true, p.paste[:0], false
				i += len(pasteStart)
			case len(rest) < len(pasteStart) && bytes.HasPrefix([]byte(pasteStart), rest):
				p.in = p.in[:copy(p.in, rest)]
				return // wait for the rest of what may be a marker
			default:
				p.out = append(p.out, 0x1b)
				i++
			}
			continue
		}
		c := rest[0]
		switch {
		case c == 0x1b:
			n, complete := escapeLen(rest)
			if !complete {
				p.in = p.in[:copy(p.in, rest)]
				return
			}
			if bytes.HasPrefix(rest, []byte(pasteEnd)) {
				p.inPaste = false
				p.deliver()
			}
			i += n
		case c == '\r':
			p.paste = append(p.paste, '\n')
			p.afterCR = true
			i++
		case c == '\n':
			if !p.afterCR {
				p.paste = append(p.paste, '\n')
			}
			p.afterCR = false
			i++
		case c < 0x20 && c != '\t', c == 0x7f:
			p.afterCR = false
			i++
		default:
			p.afterCR = false
			p.paste = append(p.paste, c)
			i++
		}
	}
	p.in = p.in[:0]
}

// deliver puts a finished paste in out: in the line, or held aside behind a placeholder.
func (p *PasteReader) deliver() {
	text := strings.ToValidUTF8(strings.TrimRight(string(p.paste), "\n"), "")
	p.paste = p.paste[:0]
	if text == "" {
		return
	}
	p.out = append(p.out, p.Line(text)...)
}

// Line is text as it stands in the line to edit, as a paste of it would: its line breaks as
// PasteNewline, or, when big, a placeholder that Decode gives back as text.
func (p *PasteReader) Line(text string) string {
	maxBytes, maxLines := p.InlineBytes, p.InlineLines
	if maxBytes <= 0 {
		maxBytes = DefaultInlineBytes
	}
	if maxLines <= 0 {
		maxLines = DefaultInlineLines
	}
	lines := strings.Count(text, "\n") + 1
	if len(text) <= maxBytes && lines <= maxLines {
		return strings.ReplaceAll(text, "\n", string(PasteNewline))
	}
	p.mu.Lock()
	p.counts++
	placeholder := fmt.Sprintf("[pasted text #%s%d: %d lines, %s]", p.nonce, p.counts, lines, size(len(text)))
	p.held = append(p.held, heldPaste{placeholder: placeholder, text: text})
	p.mu.Unlock()
	return placeholder
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}

// escapeLen is the length of the escape sequence at the start of b, and whether b holds all of
// it (a CSI sequence, or ESC and one byte).
func escapeLen(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '[' {
		return 2, true
	}
	for j := 2; j < len(b); j++ {
		if b[j] >= 0x40 && b[j] <= 0x7e {
			return j + 1, true
		}
		if b[j] < 0x20 || b[j] > 0x3f {
			return j, true // malformed: drop what came before
		}
	}
	return 0, false
}
