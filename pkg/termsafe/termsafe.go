// Package termsafe makes text from outside the program (model answers, stored transcripts,
// titles) safe to show on a terminal: it cannot move the cursor, clear the screen, set the
// window title or reorder what is shown.
package termsafe

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapeSequence matches terminal escape sequences: CSI, OSC (ended by BEL or ST), and
// two-byte escapes.
var escapeSequence = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])`)

// String removes escape sequences, control characters (but newline and tab), bidirectional
// overrides and invisible format characters (zero-width, tags) from s.
func String(s string) string {
	if !strings.ContainsFunc(s, unsafe) {
		return s
	}
	s = escapeSequence.ReplaceAllString(s, "")
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(-1)
	for i, r := range s {
		if unsafe(r) && !joining(r, prev, s[i+utf8.RuneLen(r):]) {
			continue
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// joining keeps a zero-width joiner where it joins two pictographs into one (👨‍👩‍👧), and a
// zero-width non-joiner between two letters of a script that needs it (Persian, Indic
// scripts): there they change how text is drawn, not what it says. Between Latin letters
// ("ad\u200dmin") they only hide.
func joining(r, prev rune, rest string) bool {
	if r != '\u200d' && r != '\u200c' || prev < 0 || rest == "" {
		return false
	}
	next, _ := utf8.DecodeRuneInString(rest)
	if r == '\u200d' {
		return pictograph(prev) && pictograph(next)
	}
	return joinedLetter(prev) && joinedLetter(next)
}

func pictograph(r rune) bool {
	return r > 0xff && (unicode.Is(unicode.So, r) || unicode.Is(unicode.Sk, r) || r == '\ufe0f')
}

func joinedLetter(r rune) bool {
	return r > 0x24f && (unicode.IsLetter(r) || unicode.IsMark(r))
}

// Line is String on one line: runs of white space, newlines included, become one space.
func Line(s string) string {
	return strings.Join(strings.Fields(String(s)), " ")
}

func unsafe(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || isBidiControl(r) || r == '\u2028' || r == '\u2029' || invisible(r))
}

// invisible: format characters a terminal draws as nothing (zero-width spaces and joiners, the
// word joiner, the byte-order mark, tag characters): they hide text inside what is shown
// ("ad\u200bmin" is not "admin"), or carry text nobody sees (tags).
func invisible(r rune) bool { return r >= 0x80 && unicode.Is(unicode.Cf, r) }

// Hidden reports whether r is a character that is not plainly visible on a terminal: a
// control character past ASCII (C1), DEL, a bidirectional control, a line or paragraph
// separator, or an invisible format character. JSON printed for a person escapes these.
func Hidden(r rune) bool {
	return r >= 0x7f && (unicode.IsControl(r) || isBidiControl(r) || r == '\u2028' || r == '\u2029' || invisible(r) || !unicode.IsGraphic(r) && !unicode.IsSpace(r))
}

func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// StripCSI removes the control sequences (ESC [ ... final byte) from s, leaving the text a
// terminal would show: for measuring the visible width or blankness of styled output.
func StripCSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		j := strings.IndexFunc(s[i+2:], func(r rune) bool { return r >= '@' && r <= '~' })
		if j < 0 {
			return b.String()
		}
		s = s[i+2+j+1:]
	}
}

// Writer passes what is written through String on its way to w, a line at a time, so that an
// escape sequence split between two writes is still removed whole. Flush writes what is left.
type Writer struct {
	w       io.Writer
	pending []byte
}

// maxPending is how much of a line without a newline Writer holds before it writes it out.
const maxPending = 64 << 10

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (t *Writer) Write(p []byte) (int, error) {
	// what is held has no newline, so the last one is in p
	end := 0
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		end = len(t.pending) + i + 1
	}
	t.pending = append(t.pending, p...)
	if end == 0 {
		if len(t.pending) < maxPending {
			return len(p), nil
		}
		end = cut(t.pending)
	}
	if err := t.emit(end); err != nil {
		return 0, err
	}
	return len(p), nil
}

// cut is where a long line without a newline is cut: before its last escape sequence if that
// may still be incomplete, else before its last character, so neither is cut in two.
func cut(p []byte) int {
	if esc := bytes.LastIndexByte(p, 0x1b); esc > 0 && len(p)-esc <= maxSequence {
		return esc
	}
	end := len(p)
	for end > 0 && !utf8.RuneStart(p[end-1]) {
		end--
	}
	if end > 1 {
		return end - 1
	}
	return len(p)
}

// maxSequence is the longest escape sequence a cut keeps whole.
const maxSequence = 256

// Flush writes what is held.
func (t *Writer) Flush() error { return t.emit(len(t.pending)) }

func (t *Writer) emit(end int) error {
	if end == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, String(string(t.pending[:end])))
	t.pending = t.pending[:copy(t.pending, t.pending[end:])]
	return err
}
