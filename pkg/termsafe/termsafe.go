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
