package redact

import (
	"slices"
	"strings"
	"sync"
)

// # One text in pieces
//
// A text often arrives in pieces: a streamed answer's chunks, a signed part that must stay
// a part of its own, text on either side of a function call. Redacting each piece alone
// misses a value a boundary cuts (postgres://admin:S3cr | 3t@db.internal) and gives a piece
// of a value its own token. Pieces judges the pieces as the one text they make and writes
// each replacement back into the pieces: the token goes where its value begins, and the
// rest of the value is removed from the pieces it runs into. Pieces keep their number and
// order; a piece that held nothing but the rest of a value becomes empty (the caller decides
// whether its part stays). The pieces joined are then exactly the whole text redacted,
// tokens included.

// replacement is an applied match: bytes [start,end) of the joined text become text.
type replacement struct {
	start, end int
	text       string
}

// Pieces redacts, in place, the pieces of one text (see above). With cut, the text was cut
// short (a cancelled turn, a broken stream): its end is read as a value that may continue,
// and what could still become a value of an enabled type is replaced (see tailMatch).
// Counts of replacements are added to counts (which may be nil). It reports whether any
// piece changed, and whether one that held text was left empty. Nil pointers are skipped.
func (r *Redactor) Pieces(ps []*string, cut bool, counts Counts) (changed, emptied bool) {
	if !r.Enabled() {
		return false, false
	}
	sc := getScanner()
	defer putScanner(sc)
	var st *tokenState
	if r.tok != nil {
		st = r.tok.getMemo()
		defer r.tok.put(st)
	}
	return r.pieces(sc, st, ps, cut, counts)
}

var lensPool = sync.Pool{New: func() any { return new([]int) }}

func (r *Redactor) pieces(sc *scanner, st *tokenState, ps []*string, cut bool, counts Counts) (changed, emptied bool) {
	lp := lensPool.Get().(*[]int)
	defer func() {
		if cap(*lp) <= 1<<16 {
			lensPool.Put(lp)
		}
	}()
	lens := slices.Grow((*lp)[:0], len(ps))[:len(ps)]
	*lp = lens
	// one pass over the pieces: their lengths, and their text joined from the second
	// non-empty one on (a text of one piece is not copied)
	total, nonEmpty, only := 0, 0, -1
	var b strings.Builder
	for i, p := range ps {
		lens[i] = 0
		if p == nil || len(*p) == 0 {
			continue
		}
		lens[i] = len(*p)
		total += len(*p)
		nonEmpty++
		if nonEmpty == 2 {
			// pieces of a stream are much alike: the first two tell the size of the rest (up
			// to 64 MB; past that the builder grows as it goes)
			avg := (len(*ps[only]) + len(*p)) / 2
			b.Grow(min(len(ps)-only, (64<<20)/max(avg, 1)) * max(avg, 1))
			b.WriteString(*ps[only])
		}
		if nonEmpty >= 2 {
			b.WriteString(*p)
		}
		only = i
	}
	if total == 0 {
		return false, false
	}
	if nonEmpty == 1 && !cut {
		var out string
		if total > bigText {
			changed = r.bigPiece(ps[only], counts)
			out = *ps[only]
		} else {
			out, changed = r.redactWith(sc, st, *ps[only], counts)
			if changed {
				*ps[only] = out
			}
		}
		return changed, changed && out == ""
	}
	s := *ps[only]
	if nonEmpty > 1 {
		s = b.String()
	}
	ms := sc.find(s)
	if len(r.known) > 0 {
		ms = r.withKnown(s, ms)
	}
	if cut {
		// the probes scan again: ms aliases the scanner's memory, so they take another
		ms = r.withTail(s, append([]match(nil), ms...))
	}
	reps := r.replacements(st, s, ms, counts)
	if len(reps) == 0 {
		return false, false
	}
	if nonEmpty == 1 {
		*ps[only] = applyReplacements(s, 0, len(s), reps)
		return true, *ps[only] == ""
	}
	// write each replacement back into the pieces: a piece that no replacement touches
	// keeps its string
	pos, ri := 0, 0
	for i, n := range lens {
		if n == 0 {
			continue
		}
		a, b := pos, pos+n
		pos = b
		for ri < len(reps) && reps[ri].end <= a {
			ri++
		}
		if ri == len(reps) {
			break
		}
		if reps[ri].start >= b {
			continue
		}
		p := ps[i]
		*p = applyPiece(*p, s, a, b, reps[ri:])
		if *p == "" {
			emptied = true
		}
	}
	return true, emptied
}

// bigText is the size from which a text of one piece is redacted in windows (Copy): what it
// holds in memory is then the text, its redacted copy and a window, whatever its size.
const bigText = 4 << 20

// bigPiece redacts one large piece in windows, as String would redact it. The redacted text
// is gathered in chunks and made one string at the end: no buffer is grown by copying.
func (r *Redactor) bigPiece(p *string, counts Counts) bool {
	var out chunks
	c, err := r.Copy(&out, strings.NewReader(*p))
	if err != nil {
		// neither side of the copy fails; should it, the text is redacted whole
		o, changed := r.redact(*p, counts)
		*p = o
		return changed
	}
	changed := false
	for t, n := range c {
		if n > 0 {
			changed = true
			if counts != nil {
				counts[t] += n
			}
		}
	}
	if changed {
		*p = out.String()
	}
	return changed
}

// chunks is a writer that keeps what it is given in chunks of up to 1 MB.
type chunks struct {
	cs [][]byte
	n  int
}

func (w *chunks) Write(b []byte) (int, error) {
	const size = 1 << 20
	n := len(b)
	for len(b) > 0 {
		if len(w.cs) == 0 || len(w.cs[len(w.cs)-1]) == cap(w.cs[len(w.cs)-1]) {
			w.cs = append(w.cs, make([]byte, 0, size))
		}
		last := &w.cs[len(w.cs)-1]
		k := min(len(b), cap(*last)-len(*last))
		*last = append(*last, b[:k]...)
		b = b[k:]
	}
	w.n += n
	return n, nil
}

func (w *chunks) String() string {
	var b strings.Builder
	b.Grow(w.n)
	for i, c := range w.cs {
		b.Write(c)
		w.cs[i] = nil // each chunk goes as soon as it is copied
	}
	return b.String()
}

// applyPiece is applyReplacements for piece p, s[a:b]: a piece that keeps one run of its own
// bytes, or becomes one replacement or nothing, takes no new memory.
func applyPiece(p, s string, a, b int, reps []replacement) string {
	// the common cases of small pieces: inside one value, or cut by one
	first := reps[0]
	switch {
	case first.start < a && first.end >= b:
		return "" // the rest of a value that began before
	case first.start < a && (len(reps) == 1 || reps[1].start >= b):
		return p[first.end-a:] // a value's end, then the piece's own bytes
	case first.start == a && first.end >= b:
		return first.text // a value's beginning, and nothing else of the piece
	}
	return applyReplacements(s, a, b, reps)
}

// replacements turns the matches of s into what replaces them (placeholders or tokens),
// counting them; matches of types not enabled, existing placeholders and kept values are
// left out.
func (r *Redactor) replacements(st *tokenState, s string, ms []match, counts Counts) []replacement {
	reps := make([]replacement, 0, len(ms))
	for _, m := range ms {
		if m.typ == tKeep || m.typ == tProbe || !r.on[m.typ] {
			continue
		}
		rep, ok := r.repl(s[m.start:m.end], m.typ, st)
		if !ok {
			continue
		}
		reps = append(reps, replacement{m.start, m.end, rep})
		if counts != nil {
			counts[allTypes[m.typ]]++
		}
	}
	return reps
}

// applyReplacements returns the piece s[a:b] with reps (sorted, not overlapping, the first
// one ending after a) applied: a replacement that begins in the piece is written there; of
// one that began before it, the piece loses the part it holds.
func applyReplacements(s string, a, b int, reps []replacement) string {
	var out strings.Builder
	out.Grow(b - a + 16)
	c := a
	for _, rp := range reps {
		if rp.start >= b {
			break
		}
		if rp.start >= c {
			out.WriteString(s[c:rp.start])
			out.WriteString(rp.text)
		}
		c = max(c, min(rp.end, b))
	}
	out.WriteString(s[c:b])
	return out.String()
}
