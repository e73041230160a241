package lineedit

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
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

// Decode is an edited line as the text it stands for: pasted line breaks become newlines.
func Decode(line string) string {
	return strings.ReplaceAll(line, string(PasteNewline), "\n")
}

// PasteReader is terminal input with bracketed pastes made into one line: it removes the
// paste markers, turns line breaks inside a paste into PasteNewline (a trailing one is
// dropped), and drops control characters and escape sequences inside a paste, which the line
// editor would otherwise take for keys (a pasted Ctrl-C or Enter). Input outside a paste,
// cursor position reports included, passes unchanged.
type PasteReader struct {
	r       io.Reader
	in      []byte // read, not yet processed (a marker or sequence cut by a read)
	out     []byte // processed, not yet returned
	chunk   []byte
	err     error
	inPaste bool
	newline int  // line breaks in the paste not written yet (dropped if the paste ends)
	afterCR bool // the last paste byte was CR (so an LF after it is the same break)
}

// NewPasteReader wraps the terminal's input.
func NewPasteReader(r io.Reader) *PasteReader {
	return &PasteReader{r: r, chunk: make([]byte, 4096)}
}

// Read returns processed input; it blocks while it holds only the start of a marker.
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
				p.inPaste, p.newline, p.afterCR = true, 0, false
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
			}
			i += n
		case c == '\r':
			p.newline++
			p.afterCR = true
			i++
		case c == '\n':
			if !p.afterCR {
				p.newline++
			}
			p.afterCR = false
			i++
		case c < 0x20 && c != '\t', c == 0x7f:
			p.afterCR = false
			i++
		default:
			for ; p.newline > 0; p.newline-- {
				p.out = utf8.AppendRune(p.out, PasteNewline)
			}
			p.afterCR = false
			p.out = append(p.out, c)
			i++
		}
	}
	p.in = p.in[:0]
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
