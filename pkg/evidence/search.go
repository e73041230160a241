package evidence

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// searcher finds grep's next match in a chunk of whole lines. The regexp machine runs at tens
// of MB/s, and with (?i) at a few: where the pattern allows, a byte search finds the candidates
// first, at memchr speed, and the regexp only confirms the lines they are on.
type searcher struct {
	re *regexp.Regexp
	// lit is a case-sensitive pattern that is one plain string.
	lit []byte
	// fold is an ASCII string every match holds, case ignored; whole says it is the whole
	// pattern, so a candidate needs no confirming.
	fold  *foldSearch
	whole bool
	// exotic: fold holds a k or an s, whose Unicode case folds include the Kelvin sign and the
	// long s, which an ASCII search cannot see; a chunk holding either is left to re.
	exotic bool
	useRE  bool
}

func newSearcher(pattern string, re *regexp.Regexp, ignoreCase bool) *searcher {
	s := &searcher{re: re}
	if !ignoreCase {
		if lit, complete := re.LiteralPrefix(); complete && lit != "" {
			s.lit = []byte(lit)
		}
		return s
	}
	lit, whole := foldLiteral(pattern)
	if lit == "" {
		return s
	}
	s.fold, s.whole = newFoldSearch(lit), whole
	s.exotic = strings.ContainsAny(lit, "kKsS")
	return s
}

// foldLiteral is the longest ASCII literal that every match of pattern (case ignored) holds,
// and whether it is all of the pattern; "" when there is none to use.
func foldLiteral(pattern string) (string, bool) {
	rx, err := syntax.Parse("(?i)"+pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	for rx.Op == syntax.OpCapture && len(rx.Sub) == 1 {
		rx = rx.Sub[0]
	}
	subs := []*syntax.Regexp{rx}
	if rx.Op == syntax.OpConcat {
		subs = rx.Sub
	}
	// The literal with the rarest byte makes the fewest candidates; of two, the longer.
	best, whole, rank := "", false, 0
	for _, sub := range subs {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase == 0 {
			continue
		}
		lit := strings.ToLower(string(sub.Rune))
		if !isASCII(lit) {
			continue
		}
		r := byteRank(lit[rarest(lit)])
		if best == "" || r < rank || r == rank && len(lit) > len(best) {
			best, whole, rank = lit, sub == rx, r
		}
	}
	return best, whole
}

// rarest is the index of lit's rarest byte.
func rarest(lit string) int {
	at := 0
	for i := 1; i < len(lit); i++ {
		if byteRank(lit[i]) < byteRank(lit[at]) {
			at = i
		}
	}
	return at
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// chunk is called once for each chunk before its searches.
func (s *searcher) chunk(c []byte) {
	if s.fold != nil {
		s.fold.reset()
	}
	s.useRE = s.exotic && (bytes.Contains(c, []byte("\u212a")) || bytes.Contains(c, []byte("\u017f")))
}

// find is the first match in text, which starts at a line's beginning, as regexp.FindIndex
// gives it, or nil. A match found through the literal is the first on its line.
func (s *searcher) find(text []byte) []int {
	switch {
	case s.lit != nil:
		if i := bytes.Index(text, s.lit); i >= 0 {
			return []int{i, i + len(s.lit)}
		}
		return nil
	case s.fold == nil || s.useRE:
		return s.re.FindIndex(text)
	}
	for p := 0; p < len(text); {
		i := s.fold.index(text[p:])
		if i < 0 {
			return nil
		}
		i += p
		if s.whole {
			return []int{i, i + len(s.fold.lit)}
		}
		ls := bytes.LastIndexByte(text[:i], '\n') + 1
		le := len(text)
		if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
			le = i + j
		}
		if loc := s.re.FindIndex(text[ls:le]); loc != nil {
			return []int{ls + loc[0], ls + loc[1]}
		}
		p = le + 1
	}
	return nil
}

// foldSearch finds an ASCII string regardless of case: it looks for its rarest byte, in both
// cases, with bytes.IndexByte (vectorised), and compares the text around each hit.
type foldSearch struct {
	lit    []byte // lower case
	off    int    // the rare byte's index in lit
	lo, up byte   // the rare byte in both cases (equal for a non-letter)
	// loEnd and upEnd are where the next lo and up were found, counted back from the end of
	// the text (-1 unknown): the searches of one chunk share its end, so a case that does not
	// occur is looked for once a chunk, not once a match.
	loEnd, upEnd int
}

func newFoldSearch(lit string) *foldSearch {
	f := &foldSearch{lit: []byte(strings.ToLower(lit)), loEnd: -1, upEnd: -1}
	f.off = rarest(string(f.lit))
	f.lo, f.up = f.lit[f.off], f.lit[f.off]
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// byteRank orders bytes by how often they occur in logs, rarest first; a letter costs two
// scans (both cases), so it ranks behind punctuation.
func byteRank(c byte) int {
	switch {
	case c >= 'a' && c <= 'z':
		return 20 + strings.IndexByte("zqjxkvbywgpfmucldhrsnioate", c)
	case c >= '0' && c <= '9':
		return 50
	case c == ' ':
		return 60
	case c < utf8.RuneSelf:
		return 10
	}
	return 0
}

// reset forgets the positions found: a new chunk begins.
func (f *foldSearch) reset() { f.loEnd, f.upEnd = -1, -1 }

// index is the first position of the string in text, case ignored, or -1. The texts given
// between two resets must share their end, each starting at or after the one before.
func (f *foldSearch) index(text []byte) int {
	n := len(f.lit)
	last := len(text) - (n - f.off) // the last place the rare byte can be
	nl, nu := -1, -1
	if f.loEnd >= 0 && f.loEnd <= len(text) {
		nl = len(text) - f.loEnd
	}
	if f.upEnd >= 0 && f.upEnd <= len(text) {
		nu = len(text) - f.upEnd
	}
	if f.up == f.lo {
		nu = len(text)
	}
	defer func() { f.loEnd, f.upEnd = len(text)-nl, len(text)-nu }()
	for pos := f.off; pos <= last; {
		if nl < pos {
			if k := bytes.IndexByte(text[pos:], f.lo); k >= 0 {
				nl = pos + k
			} else {
				nl = len(text)
			}
		}
		if nu < pos {
			if k := bytes.IndexByte(text[pos:], f.up); k >= 0 {
				nu = pos + k
			} else {
				nu = len(text)
			}
		}
		c := min(nl, nu)
		if c > last {
			return -1
		}
		if s := c - f.off; equalFoldASCII(text[s:s+n], f.lit) {
			return s
		}
		pos = c + 1
	}
	return -1
}

// equalFoldASCII reports whether a equals lower (lower-case ASCII) with ASCII letters of
// either case.
func equalFoldASCII(a, lower []byte) bool {
	for i, c := range lower {
		b := a[i]
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != c {
			return false
		}
	}
	return true
}
