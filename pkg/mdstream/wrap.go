package mdstream

import (
	"strings"

	"github.com/rivo/uniseg"
)

// One wrap. glamour, which drew Markdown here before, wrapped twice, at two widths: a
// paragraph with reflow's wordwrap (which breaks after every hyphen) and then the whole
// document again with x/ansi's Wordwrap (which breaks at " ,.;-+|"); where the two disagreed a
// word was left alone on a line between two long ones, and a UUID fell apart at its hyphens.
// The renderer draws each block unwrapped and wraps each drawn line here, once, at the same
// limit the streamed plain text uses (wrapLimit): at spaces, and beside East Asian wide
// characters (never before closing punctuation or after opening brackets); a token wider than
// a whole line is the only thing cut between characters, and it fills the lines it takes.

// wrapLimit is how many columns a line of an answer may take on a terminal of width columns.
// One column is left free: some terminals wrap early when the last one is written.
func wrapLimit(width int) int { return max(min(width, 120)-1, margin+8) }

// cell is one grapheme cluster of a rendered line with the escape sequences before it.
type cell struct {
	esc   string // escape sequences written before the character
	vis   string // the character
	w     int
	space bool
}

// wrapRendered wraps every line of rendered (ANSI-styled) text at limit columns.
func wrapRendered(text string, limit int) string {
	if !needsWrap(text, limit) {
		return text
	}
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(wrapLine(l, limit))
	}
	return b.String()
}

func needsWrap(text string, limit int) bool {
	for _, l := range strings.Split(text, "\n") {
		if len(l) > limit && visibleWidth(l) > limit {
			return true
		}
	}
	return false
}

func visibleWidth(l string) int {
	cells, _ := splitCells(l)
	w := 0
	for _, c := range cells {
		w += c.w
	}
	return w
}

// splitCells cuts a rendered line into cells; tail is the escape sequences after the last one.
func splitCells(l string) (cells []cell, tail string) {
	var esc strings.Builder
	state := -1
	for len(l) > 0 {
		if l[0] == 0x1b {
			n := escLen(l)
			esc.WriteString(l[:n])
			l = l[n:]
			continue
		}
		var cluster string
		cluster, l, _, state = uniseg.FirstGraphemeClusterInString(l, state)
		// The width as format.Width counts it (the width FirstGraphemeClusterInString returns
		// depends on the state carried over the escape sequences).
		cells = append(cells, cell{esc: esc.String(), vis: cluster, w: uniseg.StringWidth(cluster), space: cluster == " " || cluster == "\t"})
		esc.Reset()
	}
	return cells, esc.String()
}

// escLen is the length of the escape sequence at the start of s (a CSI sequence, or ESC and
// one byte).
func escLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	if s[1] != '[' {
		return 2
	}
	i := 2
	for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) {
		i++
	}
	return min(i+1, len(s))
}

// wrapLine wraps one rendered line. Lines after the first start with the line's hanging
// indent: its leading spaces, a list's bullet or number as spaces, a quote's bar repeated.
func wrapLine(l string, limit int) string {
	cells, tail := splitCells(l)
	total := 0
	for _, c := range cells {
		total += c.w
	}
	if total <= limit {
		return l
	}
	lead, indent := hangingIndent(cells)
	if indent > limit/2 {
		indent = 0
		lead = 0
	}
	cont := continuation(cells[:lead])

	var b strings.Builder
	active := "" // the colour in effect, carried onto the next line
	col := 0
	lineHasText := false
	pendingSpaces := []cell{} // spaces written only if a word follows on the same line
	newline := func() {
		if active != "" {
			b.WriteString("\x1b[0m")
		}
		b.WriteString("\n")
		b.WriteString(active)
		b.WriteString(cont)
		col = indent
		lineHasText = false
		pendingSpaces = pendingSpaces[:0]
	}
	put := func(c cell) {
		b.WriteString(c.esc)
		active = sgrState(active, c.esc)
		for _, s := range pendingSpaces {
			b.WriteString(s.esc)
			active = sgrState(active, s.esc)
			b.WriteString(s.vis)
		}
		col += widthOf(pendingSpaces)
		pendingSpaces = pendingSpaces[:0]
		b.WriteString(c.vis)
		col += c.w
		lineHasText = true
	}
	// The prefix is written as it is.
	for _, c := range cells[:lead] {
		b.WriteString(c.esc)
		active = sgrState(active, c.esc)
		b.WriteString(c.vis)
		col += c.w
	}
	i := lead
	for i < len(cells) {
		c := cells[i]
		if c.space {
			if !lineHasText && col == indent && i > lead {
				// Spaces at the start of a continuation line are dropped.
				b.WriteString(c.esc)
				active = sgrState(active, c.esc)
			} else {
				pendingSpaces = append(pendingSpaces, c)
			}
			i++
			continue
		}
		end := wordEnd(cells, i)
		w := widthOf(cells[i:end])
		spaces := widthOf(pendingSpaces)
		switch {
		case col+spaces+w <= limit:
		case lineHasText && indent+w <= limit:
			// Flush the escapes of the dropped spaces so colours stay right.
			for _, s := range pendingSpaces {
				b.WriteString(s.esc)
				active = sgrState(active, s.esc)
			}
			newline()
		default:
			// Wider than a whole line: cut between characters, filling each line.
			for _, k := range cells[i:end] {
				if col+widthOf(pendingSpaces)+k.w > limit && (lineHasText || col > indent) {
					for _, s := range pendingSpaces {
						b.WriteString(s.esc)
						active = sgrState(active, s.esc)
					}
					newline()
				}
				put(k)
			}
			i = end
			continue
		}
		for _, k := range cells[i:end] {
			put(k)
		}
		i = end
	}
	for _, s := range pendingSpaces {
		b.WriteString(s.esc)
	}
	b.WriteString(tail)
	return b.String()
}

func widthOf(cells []cell) int {
	w := 0
	for _, c := range cells {
		w += c.w
	}
	return w
}

// wordEnd is where the word starting at cells[i] ends: at a space, or where a line may break
// beside a wide (East Asian) character.
func wordEnd(cells []cell, i int) int {
	j := i + 1
	for j < len(cells) && !cells[j].space && !breakBefore(cells[j-1], cells[j]) {
		j++
	}
	return j
}

// breakBefore reports whether a line may break between a and b, two characters with no space
// between them: only beside a wide character, and not before closing punctuation or after an
// opening bracket.
func breakBefore(a, b cell) bool {
	if a.w < 2 && b.w < 2 {
		return false
	}
	return !strings.Contains(noLineStart, b.vis) && !strings.Contains(noLineEnd, a.vis)
}

const (
	noLineStart = ",.;:!?)]}%、。，．・：；？！）」』】〕〉》〙〗ーゝゞ々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ〜…‥"
	noLineEnd   = "([{（「『【〔〈《〘〖"
)

// hangingIndent finds a line's prefix that continuation lines repeat: leading spaces, quote
// bars, and a list marker ("• ", "1. "). It returns the prefix's length in cells and its width.
func hangingIndent(cells []cell) (lead, width int) {
	i := 0
	for i < len(cells) && (cells[i].space || cells[i].vis == "│") {
		i++
	}
	if i < len(cells) && cells[i].vis == "•" && i+1 < len(cells) && cells[i+1].space {
		i += 2
	} else {
		j := i
		for j < len(cells) && len(cells[j].vis) == 1 && cells[j].vis[0] >= '0' && cells[j].vis[0] <= '9' {
			j++
		}
		if j > i && j+1 < len(cells) && cells[j].vis == "." && cells[j+1].space {
			i = j + 2
		}
	}
	return i, widthOf(cells[:i])
}

// continuation is the prefix of a continuation line: the prefix's quote bars kept, everything
// else as spaces.
func continuation(prefix []cell) string {
	var b strings.Builder
	for _, c := range prefix {
		if c.vis == "│" {
			b.WriteString(c.vis)
			continue
		}
		b.WriteString(strings.Repeat(" ", c.w))
	}
	return b.String()
}

// sgrState is the colour in effect after esc, given the colour before it: a reset clears it,
// any other colour sequence adds to it.
func sgrState(active, esc string) string {
	for esc != "" {
		n := escLen(esc)
		seq := esc[:n]
		esc = esc[n:]
		if !strings.HasPrefix(seq, "\x1b[") || !strings.HasSuffix(seq, "m") {
			continue
		}
		if seq == "\x1b[0m" || seq == "\x1b[m" {
			active = ""
			continue
		}
		active += seq
	}
	return active
}

// joinable reports whether a soft line break between the source lines prev and l is a space
// (Markdown makes every soft break one). A model that wraps its own text at some width would
// leave short lines on a wider terminal; but a hard break (two spaces or a backslash at the
// end), indented code, and a line that reads as the start of a block (a list item, a quote, a
// heading, a rule, a table row) that Markdown does not let interrupt the paragraph, are kept
// as line breaks, as the author saw them.
func joinable(prev, l string) bool {
	t := strings.TrimLeft(l, " \t")
	p := strings.TrimLeft(prev, " \t")
	switch {
	case t == "" || p == "":
		return false
	case strings.HasSuffix(prev, "  ") || strings.HasSuffix(prev, "\\"):
		return false
	case len(prev)-len(p) >= 4 && !startsItem(p): // indented code
		return false
	case strings.Trim(t, "-=*_ ") == "": // a setext underline or a rule
		return false
	case startsBlock(t) || strings.HasPrefix(p, "|") || openingFence(p) != "":
		return false
	}
	return true
}

// startsBlock reports whether a line (without its indentation) starts a block of its own.
func startsBlock(t string) bool {
	if startsItem(t) || isHeading(t) || openingFence(t) != "" {
		return true
	}
	return strings.HasPrefix(t, ">") || strings.HasPrefix(t, "|")
}

// startsItem reports whether a line (without its indentation) starts a list item.
func startsItem(t string) bool {
	if len(t) >= 2 && strings.ContainsRune("-*+", rune(t[0])) && (t[1] == ' ' || t[1] == '\t') {
		return true
	}
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t')
}
