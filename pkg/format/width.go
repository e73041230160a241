package format

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Display width. Everything alertchat lays out on a terminal (tables, titles, the spinner,
// the pager's row count) measures text in display columns, as the terminal draws it: an East
// Asian wide character or an emoji takes two columns, a combining mark or a zero-width joiner
// none, and a grapheme cluster (a flag, a family emoji, a letter with its accents) is never
// split. The widths come from uniseg, which follows Unicode's East Asian Width and emoji
// properties; ambiguous-width characters count one, whatever the locale, so output does not
// depend on the environment.

// Ellipsis ends text that was cut.
const Ellipsis = "…"

// Width is how many columns s takes on a terminal.
func Width(s string) int { return uniseg.StringWidth(s) }

// Truncate cuts s to at most width columns, ending with tail ("…", "...") when it cuts; the cut
// falls between grapheme clusters. s that fits is returned as it is. With width too small for
// tail, the result is as much of tail as fits.
func Truncate(s string, width int, tail string) string { return truncate(s, width, tail, false) }

// TruncateWords is Truncate, but in spaced scripts the cut falls at a word boundary (the last
// space that keeps at least half the width); where the cut falls in CJK text, or a single word
// fills the width, it falls between characters.
func TruncateWords(s string, width int, tail string) string { return truncate(s, width, tail, true) }

func truncate(s string, width int, tail string, words bool) string {
	if width <= 0 {
		return ""
	}
	if Width(s) <= width {
		return s
	}
	tw := Width(tail)
	if tw > width {
		return truncate(tail, width, "", false)
	}
	room := width - tw
	cut, used := 0, 0 // byte offset of the cut and the columns before it
	lastSpace := -1   // byte offset of the last space before the cut
	next := rune(0)   // first rune after the cut
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cw := g.Width()
		from, to := g.Positions()
		if used+cw > room {
			next = g.Runes()[0]
			break
		}
		if strings.TrimSpace(g.Str()) == "" {
			lastSpace = from
		}
		used += cw
		cut = to
	}
	if words && cut > 0 {
		prev := lastRune(s[:cut])
		// Inside a word of a spaced script: back to the last space, if that keeps enough.
		if spaced(prev) && spaced(next) && lastSpace >= 0 && Width(s[:lastSpace]) >= room/2 {
			cut = lastSpace
		}
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + tail
}

// spaced reports whether r belongs to a word of a script that separates words with spaces.
func spaced(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '\'') && !isCJK(r)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー' || r == '々'
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// PadRight pads s with spaces to width columns (s wider than width is left as it is).
func PadRight(s string, width int) string {
	if w := Width(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}
