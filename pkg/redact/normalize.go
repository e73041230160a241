package redact

import (
	"strings"
	"unicode/utf8"
)

// Fullwidth forms (U+FF01..U+FF5E), the ideographic space (U+3000) and the
// Unicode dashes U+2010..U+2015 and U+2212 are folded to ASCII before
// detection, so "０９０－１２３４－５６７８" is found like "090-1234-5678".
// The folded text is scanned and every match is mapped back to the byte
// offsets of the original text, whose characters are left unchanged except
// for the replaced values.

// needsNormalize is a cheap check for any byte sequence that starts a folded
// character: EF BC xx / EF BD xx (fullwidth forms), E3 80 80, E2 80 9x, E2 88 92.
func needsNormalize(s string) bool {
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], 0xEF)
		if k < 0 {
			break
		}
		i += k
		if i+2 < len(s) && (s[i+1] == 0xBC || s[i+1] == 0xBD) {
			return true
		}
		i++
	}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], 0xE3)
		if k < 0 {
			break
		}
		i += k
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x80 {
			return true
		}
		i++
	}
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], 0xE2)
		if k < 0 {
			break
		}
		i += k
		if i+2 < len(s) && ((s[i+1] == 0x80 && s[i+2] >= 0x90 && s[i+2] <= 0x95) || (s[i+1] == 0x88 && s[i+2] == 0x92)) {
			return true
		}
		i++
	}
	return false
}

// foldLines finds, in order, the lines of a text for which needsNormalize holds, without
// reading every line on its own: it keeps, for each of the three lead bytes, where that
// byte next starts a folded character, and searches the text for it again only once the
// caller is past that place. Each search runs ahead over bytes no other search of its
// byte reads again.
type foldLines struct {
	at [3]int // the next start found per lead byte (index into foldLeads), 0 before the first search
	ok [3]bool
}

var foldLeads = [3]byte{0xEF, 0xE3, 0xE2}

// next returns the first line [a,b) starting at or after from (a line start) that holds a
// folded character, or -1.
func (fl *foldLines) next(s string, from int) (a, b int) {
	if from >= len(s) {
		return -1, -1
	}
	p := len(s)
	for k := range foldLeads {
		if !fl.ok[k] || fl.at[k] < from {
			fl.at[k], fl.ok[k] = foldStart(s, from, foldLeads[k]), true
		}
		p = min(p, fl.at[k])
	}
	if p >= len(s) {
		return -1, -1
	}
	a = from + strings.LastIndexByte(s[from:p], '\n') + 1
	if b = strings.IndexByte(s[p:], '\n'); b < 0 {
		b = len(s)
	} else {
		b += p
	}
	return a, b
}

// foldStart is the first i >= from where lead starts a character needsNormalize looks for,
// within its line as needsNormalize reads a line (the byte after the character's two
// leading ones is in the line), or len(s).
func foldStart(s string, i int, lead byte) int {
	for i < len(s) {
		k := strings.IndexByte(s[i:], lead)
		if k < 0 {
			break
		}
		i += k
		if i+2 < len(s) {
			switch lead {
			case 0xEF:
				if (s[i+1] == 0xBC || s[i+1] == 0xBD) && s[i+2] != '\n' {
					return i
				}
			case 0xE3:
				if s[i+1] == 0x80 && s[i+2] == 0x80 {
					return i
				}
			default:
				if (s[i+1] == 0x80 && s[i+2] >= 0x90 && s[i+2] <= 0x95) || (s[i+1] == 0x88 && s[i+2] == 0x92) {
					return i
				}
			}
		}
		i++
	}
	return len(s)
}

func foldRune(r rune) (byte, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return byte(r - 0xFF01 + 0x21), true
	case r == 0x3000:
		return ' ', true
	case r >= 0x2010 && r <= 0x2015, r == 0x2212:
		return '-', true
	}
	return 0, false
}

// normalize builds the folded text of s in sc.norm and the map from folded
// byte offsets to byte offsets in s in sc.nmap (len(norm)+1 entries).
func (sc *scanner) normalize(s string) string {
	norm := sc.norm[:0]
	nmap := sc.nmap[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			norm = append(norm, c)
			nmap = append(nmap, int32(i))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if b, ok := foldRune(r); ok {
			norm = append(norm, b)
			nmap = append(nmap, int32(i))
			i += size
			continue
		}
		for k := 0; k < size; k++ {
			norm = append(norm, s[i+k])
			nmap = append(nmap, int32(i+k))
		}
		i += size
	}
	nmap = append(nmap, int32(len(s)))
	sc.norm = norm
	sc.nmap = nmap
	return string(norm)
}

// mapBack converts the candidates from index first on from folded-line
// offsets to offsets in the original text (the line starts at base).
func (sc *scanner) mapBack(first, base int) {
	for i := first; i < len(sc.cands); i++ {
		c := &sc.cands[i]
		c.start = base + int(sc.nmap[c.start])
		c.end = base + int(sc.nmap[c.end])
	}
}
