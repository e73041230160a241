package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Japanese, Chinese and Korean text does not separate its words with spaces ("不審なログインが
// 発生"), so a run of such characters is indexed as its overlapping character bigrams
// (不審 審な なロ ログ グイ イン …) and a word of the query as the phrase of its bigrams: a word
// of two or more characters is found wherever it stands, spaces or not. A one-character word is
// its own term. Bigrams were chosen over a morphological analyser by measurement (see docs/histories-and-search.md,
// "Text in every script"): better precision on our test set, no dictionary in the binary, and
// no dependence on how a dictionary splits a word it does not know (product names, katakana
// loanwords).

// IsCJK reports whether r belongs to a script written without spaces between words (Han,
// Hiragana, Katakana, Hangul, and their marks: the prolonged sound mark ー, 々, halfwidth
// katakana).
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r == 'ー' || r == '々' || r == '〆' || r == '〇' || (r >= 0xFF66 && r <= 0xFF9F):
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// cjkWords appends the terms of one run of CJK characters: its bigrams, or the run itself when
// it is one character.
func cjkWords(out []string, run string) []string {
	if utf8.RuneCountInString(run) == 1 {
		return append(out, run)
	}
	prev := -1
	for i := range run {
		if prev >= 0 {
			_, n := utf8.DecodeRuneInString(run[i:])
			out = append(out, run[prev:i+n])
		}
		prev = i
	}
	return out
}

// isKanaStop reports whether a CJK term is made of hiragana only ("した", "ます", "が"): the
// grammar between Japanese words, too common to index or rank, like English stop words.
func isKanaStop(term string) bool {
	for _, r := range term {
		if !unicode.Is(unicode.Hiragana, r) {
			return false
		}
	}
	return term != ""
}

// HasCJK reports whether s holds a CJK character.
func HasCJK(s string) bool { return strings.ContainsFunc(s, IsCJK) }

// Separators of Segmented: control characters, which FTS5's unicode61 tokenizer treats as
// separators and which Segmented removes from the text it is given.
const (
	segRun  = "\x1e" // opens and closes an encoded CJK run
	segTerm = "\x1f" // between the terms of a run
)

var segStrip = strings.NewReplacer(segRun, " ", segTerm, " ")

// Segmented returns s ready for a tokenizer that splits on spaces and punctuation (SQLite FTS5
// unicode61): every CJK run is replaced by its bigrams and then its last character, each a
// token of its own, so the tokenizer sees the terms Words gives, plus a final one-character
// token that lets a one-character query find a character ending a run (as a prefix query).
// Everything else is left as it is, so English text tokenizes exactly as before.
// Unsegment(Segmented(s)) is s with ASCII control characters 0x1e and 0x1f made spaces.
func Segmented(s string) string {
	if !HasCJK(s) {
		return segStrip.Replace(s)
	}
	var b strings.Builder
	b.Grow(len(s) * 3)
	var terms []string
	for len(s) > 0 {
		i := strings.IndexFunc(s, IsCJK)
		if i < 0 {
			i = len(s)
		}
		b.WriteString(segStrip.Replace(s[:i]))
		s = s[i:]
		if s == "" {
			break
		}
		j := strings.IndexFunc(s, func(r rune) bool { return !IsCJK(r) })
		if j < 0 {
			j = len(s)
		}
		run := s[:j]
		s = s[j:]
		b.WriteString(segRun)
		if utf8.RuneCountInString(run) == 1 {
			b.WriteString(run) // its own, and last, term
		} else {
			terms = cjkWords(terms[:0], run)
			for _, t := range terms {
				b.WriteString(t)
				b.WriteString(segTerm)
			}
			_, n := utf8.DecodeLastRuneInString(run)
			b.WriteString(run[len(run)-n:])
		}
		b.WriteString(segRun)
	}
	return b.String()
}

// Unsegment is the text Segmented was given (with 0x1e and 0x1f as spaces).
func Unsegment(s string) string {
	if !strings.Contains(s, segRun) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, segRun)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(segRun):]
		j := strings.Index(s, segRun)
		if j < 0 { // not ours (cut text): keep what is left, without the markers
			b.WriteString(strings.ReplaceAll(s, segTerm, ""))
			break
		}
		terms := strings.Split(s[:j], segTerm)
		s = s[j+len(segRun):]
		if len(terms) == 1 {
			b.WriteString(terms[0])
			continue
		}
		// bigrams then the last character: the first bigram, then each later bigram's second
		// character.
		b.WriteString(terms[0])
		for _, t := range terms[1 : len(terms)-1] {
			_, n := utf8.DecodeLastRuneInString(t)
			b.WriteString(t[len(t)-n:])
		}
	}
	return b.String()
}
