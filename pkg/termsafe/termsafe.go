// Package termsafe makes text from outside the program (model answers, stored transcripts,
// titles) safe to show on a terminal: it cannot move the cursor, clear the screen, set the
// window title or reorder what is shown.
package termsafe

import (
	"regexp"
	"strings"
	"unicode"
)

// escapeSequence matches terminal escape sequences: CSI, OSC (ended by BEL or ST), and
// two-byte escapes.
var escapeSequence = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])`)

// String removes escape sequences, control characters (but newline and tab) and
// bidirectional overrides from s.
func String(s string) string {
	if !strings.ContainsFunc(s, unsafe) {
		return s
	}
	s = escapeSequence.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if unsafe(r) {
			return -1
		}
		return r
	}, s)
}

// Line is String on one line: runs of white space, newlines included, become one space.
func Line(s string) string {
	return strings.Join(strings.Fields(String(s)), " ")
}

func unsafe(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || isBidiControl(r) || r == '\u2028' || r == '\u2029')
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
