package redact

import (
	"strings"
	"unicode/utf8"
)

// # A text cut short
//
// An answer cut short (Ctrl-C, a broken stream) may end inside a value: postgres://admin:S3cr,
// 203.0.11, alice@exa, password: Tr0m. The detectors no longer see a value there, and the piece
// of it that arrived would be written as it is. The end of such a text is read as a value that
// may continue: the text is scanned again with a few continuations put after it (random
// letters and digits, as a password or a token goes on; digits and dotted or coloned digits,
// as a number or an address goes on; the rest of a domain after an '@'; a host after a URL's
// user:password), and when a detector then finds a value that begins in the text and runs
// into the continuation, the text is replaced from that value's beginning to its end. The
// continuations that make anything an address (an '@', "://") are tried only where the text
// already holds one, so an ordinary last word is left alone.

// tailWindow is how much of the end of a text the probes look at: more than any detector's
// context before a value.
const tailWindow = 512

var (
	// a password or a token goes on with letters and digits (and some tokens are upper-case)
	tailWords = []string{"Zq7xK9pL2wR5tY8u", "Zq7xK9pL2wR5tY8uA3bC6dE9fG2hJ5kM8nP4rS7v", "QZ7X2K9P4L3W5R6T", "-Zq7x_K9pL2"}
	// a number, a phone number, a card number or an address goes on with digits, dots, colons
	tailDigits = []string{"1", "12", "123", "1234", "123456", "12345678", ".1", "1.1", ".1.1", "1.1.1", ".1.1.1", ":1", "1::1", "::1"}
	// after an '@': the rest of a domain
	tailDomain = []string{"m", ".com", "a.com", "xample.com"}
	// after scheme://user: or scheme://user:pass: the rest of the password and a host
	tailURL = []string{"@h.example.com", "Zq7xK9@h.example.com"}
)

// withTail adds to ms (the matches of s, sorted, not overlapping) the value the end of s may
// be the beginning of, replacing the matches it overlaps.
func (r *Redactor) withTail(s string, ms []match) []match {
	t, ok := r.tailMatch(s)
	if !ok {
		return ms
	}
	out := ms[:0]
	for _, m := range ms {
		switch {
		case m.end <= t.start:
			out = append(out, m)
		case m.start < t.start:
			// a value found whole that the tail's value overlaps: it stays, and the tail begins
			// after it
			out = append(out, m)
			t.start = m.end
		}
	}
	if t.start < len(s) {
		out = r.settleTail(s, append(out, t))
	}
	return out
}

// settleTailRounds bounds how often settleTail takes a value in: each round moves the tail's
// start back over one value, and a text cut short is redacted once.
const settleTailRounds = 4

// settleTail makes the tail's replacement stable. The bytes after a value are its context:
// "00000000 0000 0000" is too long for a phone number, but with its last group replaced,
// "00000000 0000" before the placeholder is one, and redacting the text again would replace
// it. So the text before the tail is scanned again as it will be written, with the tail's
// placeholder after it, and a value found there that no match of the first scan overlaps is
// taken into the tail: the tail then begins where that value begins, typed as it. ms ends
// with the tail.
func (r *Redactor) settleTail(s string, ms []match) []match {
	sc := getScanner()
	defer putScanner(sc)
	for range settleTailRounds {
		t := ms[len(ms)-1]
		from := max(0, t.start-tailWindow)
		for from > 0 && from < t.start && !utf8.RuneStart(s[from]) {
			from++
		}
		prefix := s[from:t.start]
		if prefix == "" {
			return ms
		}
		start, typ := t.start, t.typ
		for _, m := range sc.scanAll(prefix + placeholders[t.typ]) {
			if m.typ == tKeep || m.typ == tProbe || !r.on[m.typ] || m.end > len(prefix) || from+m.start >= start {
				continue
			}
			if !overlapsAny(ms[:len(ms)-1], from+m.start, from+m.end) {
				start, typ = from+m.start, m.typ
			}
		}
		if start == t.start {
			return ms
		}
		for len(ms) > 1 && ms[len(ms)-2].end > start {
			ms = append(ms[:len(ms)-2], ms[len(ms)-1]) // a match inside the tail's new extent
		}
		ms[len(ms)-1] = match{start: start, end: len(s), typ: typ, prio: t.prio}
	}
	return ms
}

// tailMatch returns the value the end of s may be the beginning of: from the earliest start
// any continuation gives to the end of s, typed as that continuation's value.
func (r *Redactor) tailMatch(s string) (match, bool) {
	from := max(0, len(s)-tailWindow)
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	ctx := s[from:]
	word := ctx[strings.LastIndexAny(ctx, " \t\r\n")+1:]
	if k := strings.LastIndexByte(word, ']'); k >= 0 && phBefore(word, k+1) {
		// a placeholder is opaque: the digits of its token say nothing of the value cut
		// after it, and a text redacted again must be read as it was the first time
		word = word[k+1:]
	}
	if word == "" {
		return match{}, false // the text ends between words: nothing is cut
	}
	sc := getScanner()
	defer putScanner(sc)
	best := match{start: len(s)}
	buf := make([]byte, 0, len(ctx)+64)
	probe := func(conts []string) {
		for _, c := range conts {
			buf = append(append(buf[:0], ctx...), c...)
			for _, m := range sc.scanAll(string(buf)) {
				if m.typ == tKeep || m.typ == tProbe || !r.on[m.typ] || m.start >= len(ctx) || m.end <= len(ctx) {
					continue
				}
				if st := from + m.start; st < best.start {
					best = match{start: st, end: len(s), typ: m.typ, prio: m.prio}
				}
			}
		}
	}
	probe(tailWords)
	if strings.ContainsAny(word, "0123456789") || strings.HasSuffix(word, ":") {
		probe(tailDigits)
	}
	if i := strings.LastIndexByte(word, '@'); i >= 0 && !strings.Contains(word[i:], "/") {
		probe(tailDomain)
	}
	if i := strings.Index(word, "://"); i >= 0 && strings.IndexByte(word[i+3:], ':') >= 0 && strings.IndexByte(word[i+3:], '@') < 0 {
		probe(tailURL)
	}
	return best, best.start < len(s)
}
