package redact

import (
	"slices"
	"strings"
	"sync"
)

// Match priorities: when candidate matches overlap, the higher priority wins,
// then the longer match, then the leftmost one.
const (
	prioPhone  uint8 = 10
	prioIP     uint8 = 20
	prioSSN    uint8 = 22
	prioCC     uint8 = 24
	prioEmail  uint8 = 30
	prioShape  uint8 = 35 // key-shaped strings without context (AWS secret key shape)
	prioSigned uint8 = 38 // the signature of an Azure SAS query; an assigned value holding the query wins
	prioAssign uint8 = 40 // values of password=/api_key:/... assignments
	prioCred   uint8 = 50 // URL user:pass, curl -u, Authorization headers
	prioVendor uint8 = 60 // vendor token formats, JWT, webhook URLs
	prioPEM    uint8 = 70
	prioKeep   uint8 = 100 // existing placeholders
)

// match is a detected value: bytes [start,end) of the scanned text.
type match struct {
	start, end int
	typ        uint8
	prio       uint8
}

// Redactor replaces sensitive values with placeholders. The zero value and
// New() with no types change nothing. A Redactor is immutable and safe for
// concurrent use.
type Redactor struct {
	on      [numTypes]bool
	enabled bool
	tok     *Tokenizer          // keyed tokens instead of placeholders (token.go)
	keep    map[string]struct{} // evidence values written as they are (token.go)
	known   []knownValue        // the alert's secrets, redacted wherever they occur (token.go)
}

// New returns a Redactor for the given types. Unknown types are ignored; with
// no (known) types the Redactor changes nothing.
func New(types ...Type) *Redactor {
	r := &Redactor{}
	for _, t := range types {
		if n, ok := typeNum(t); ok {
			r.on[n] = true
			r.enabled = true
		}
	}
	return r
}

// Enabled reports whether r redacts at least one type.
func (r *Redactor) Enabled() bool { return r != nil && r.enabled }

// Types returns the types r redacts, in the order of AllTypes.
func (r *Redactor) Types() []Type {
	out := []Type{}
	if r == nil {
		return out
	}
	for i, on := range r.on {
		if on {
			out = append(out, allTypes[i])
		}
	}
	return out
}

// String returns s with every detected value of an enabled type replaced by
// its placeholder, and the number of replacements per type. The returned
// Counts is never nil.
func (r *Redactor) String(s string) (string, Counts) {
	counts := Counts{}
	out, _ := r.redact(s, counts)
	return out, counts
}

// redact adds the replacements to counts (which may be nil) and reports
// whether anything was replaced.
func (r *Redactor) redact(s string, counts Counts) (string, bool) {
	if !r.Enabled() || len(s) == 0 {
		return s, false
	}
	sc := getScanner()
	defer putScanner(sc)
	return r.redactWith(sc, nil, s, counts)
}

// redactWith is redact with a scanner (and for keyed tokens a token state, or nil) that the
// caller holds: a walk redacts many short strings, and takes them once for all.
func (r *Redactor) redactWith(sc *scanner, st *tokenState, s string, counts Counts) (string, bool) {
	ms := sc.find(s)
	if len(r.known) > 0 {
		ms = r.withKnown(s, ms)
	}
	any := false
	for _, m := range ms {
		if m.typ != tKeep && r.on[m.typ] {
			any = true
			break
		}
	}
	if !any {
		return s, false
	}
	if len(ms) == 1 && ms[0].start == 0 && ms[0].end == len(s) {
		// the whole text is one value (an address as a map key or a field): its replacement
		// is the result
		if rep, ok := r.repl(s, ms[0].typ, st); ok {
			if counts != nil {
				counts[allTypes[ms[0].typ]]++
			}
			return rep, true
		}
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	prev := 0
	for _, m := range ms {
		if m.typ == tKeep || !r.on[m.typ] {
			continue
		}
		rep, ok := r.repl(s[m.start:m.end], m.typ, st)
		if !ok {
			continue
		}
		b.WriteString(s[prev:m.start])
		b.WriteString(rep)
		prev = m.end
		if counts != nil {
			counts[allTypes[m.typ]]++
		}
	}
	b.WriteString(s[prev:])
	return b.String(), true
}

var scannerPool = sync.Pool{New: func() any { return &scanner{} }}

func getScanner() *scanner { return scannerPool.Get().(*scanner) }

func putScanner(sc *scanner) {
	if cap(sc.cands) > 1<<20 || cap(sc.spare) > 1<<20 || cap(sc.merge) > 1<<20 || cap(sc.norm) > 16<<20 {
		sc.cands = nil
		sc.spare = nil
		sc.merge = nil
		sc.out = nil
		sc.norm = nil
		sc.nmap = nil
	}
	scannerPool.Put(sc)
}

// find returns the accepted, non-overlapping matches of s sorted by start,
// including tKeep matches for placeholders already present in s. Offsets are
// into s. The result aliases scanner memory.
func (sc *scanner) find(s string) []match {
	if len(s) <= maxQuick {
		if ms, ok := quick(sc.out[:0], s); ok {
			sc.out = ms
			return ms
		}
	}
	return sc.scanAll(s)
}

// scanAll is find without the quick shapes: every detector over s.
func (sc *scanner) scanAll(s string) []match {
	if want := len(s) / 96; cap(sc.cands) < want && want > 1024 {
		sc.cands = make([]match, 0, want)
	}
	sc.cands = sc.cands[:0]
	sc.out = sc.out[:0]
	sc.fold = false
	sc.scan(s, triggers(s))
	split, foldFrom := sc.wordsFrom, len(sc.cands)
	if sc.fold {
		// lines holding fullwidth forms are scanned again, folded to ASCII;
		// their matches are mapped back to the original offsets
		var fl foldLines
		for a, b := fl.next(s, 0); a >= 0; a, b = fl.next(s, b+1) {
			first := len(sc.cands)
			ns := sc.normalize(s[a:b])
			sc.scan(ns, triggers(ns))
			sc.mapBack(first, a)
		}
	}
	sc.resolve(s, split, foldFrom)
	return sc.out
}

// candOrder sorts candidates by start, longer first.
func candOrder(a, b match) int {
	if a.start != b.start {
		return a.start - b.start
	}
	return b.end - a.end
}

// sortCands sorts sc.cands by candOrder. The word pass adds one long run
// [split,foldFrom) that is usually in order already; the rare-literal
// detectors before it and the folded lines after it add few candidates.
// Those few are sorted and merged in (into the spare buffer, which then
// becomes sc.cands): linear time instead of a full sort.
func (sc *scanner) sortCands(split, foldFrom int) {
	c := sc.cands
	if split < 0 || split > foldFrom || foldFrom > len(c) || !nearlySorted(c[split:foldFrom]) {
		slices.SortFunc(c, candOrder)
		return
	}
	if split == 0 && foldFrom == len(c) {
		return
	}
	small := append(slices.Grow(sc.merge[:0], split+len(c)-foldFrom), c[:split]...)
	small = append(small, c[foldFrom:]...)
	slices.SortFunc(small, candOrder)
	sc.merge = small
	words := c[split:foldFrom]
	out := slices.Grow(sc.spare[:0], len(c))
	i, j := 0, 0
	for i < len(small) && j < len(words) {
		if candOrder(words[j], small[i]) < 0 {
			out = append(out, words[j])
			j++
		} else {
			out = append(out, small[i])
			i++
		}
	}
	out = append(out, small[i:]...)
	out = append(out, words[j:]...)
	sc.spare = c[:0]
	sc.cands = out
}

// nearlySorted sorts w by insertion when that takes few moves (the word
// pass emits candidates in order but for a few at one start) and reports
// whether it did; w may be partly reordered when it reports false.
func nearlySorted(w []match) bool {
	budget := 4*len(w)/64 + 64
	for i := 1; i < len(w); i++ {
		if candOrder(w[i-1], w[i]) <= 0 {
			continue
		}
		x := w[i]
		k := i
		for k > 0 && candOrder(w[k-1], x) > 0 {
			w[k] = w[k-1]
			k--
			if budget--; budget < 0 {
				w[k] = x
				return false
			}
		}
		w[k] = x
	}
	return true
}

// resolve picks non-overlapping matches from sc.cands into sc.out: candidates
// are grouped into clusters of transitively overlapping spans; inside a
// cluster the highest priority wins, then the longest, then the leftmost.
func (sc *scanner) resolve(s string, split, foldFrom int) {
	c := sc.cands
	if len(c) == 0 {
		return
	}
	rescanned := false
	sc.sortCands(split, foldFrom)
	c = sc.cands
	for i := 0; i < len(c); {
		j := i + 1
		maxEnd := c[i].end
		for j < len(c) && c[j].start < maxEnd {
			if c[j].end > maxEnd {
				maxEnd = c[j].end
			}
			j++
		}
		cs := c[i].start // before resolveCluster reorders the cluster
		if j == i+1 {
			sc.out = append(sc.out, c[i])
		} else if base := len(sc.out); sc.resolveCluster(c[i:j]) && sc.depth < 2 {
			// a candidate lost part of its text to a winner and the rest may
			// be a value of its own once the winner is replaced: look again
			// at the neighbourhood as the replaced text reads
			if sc.rescan(s, cs, maxEnd, sc.out[base:len(sc.out):len(sc.out)]) {
				rescanned = true
			}
		}
		i = j
	}
	if rescanned {
		slices.SortFunc(sc.out, func(a, b match) int { return a.start - b.start })
	}
	// probes only served to trigger rescans
	k := 0
	for _, m := range sc.out {
		if m.typ != tProbe {
			sc.out[k] = m
			k++
		}
	}
	sc.out = sc.out[:k]
}

// resolveCluster accepts the winners of one cluster into sc.out (sorted by
// start). It reports whether a losing candidate had text outside every
// winner.
func (sc *scanner) resolveCluster(c []match) bool {
	slices.SortFunc(c, func(a, b match) int {
		if a.prio != b.prio {
			return int(b.prio) - int(a.prio)
		}
		if la, lb := a.end-a.start, b.end-b.start; la != lb {
			return lb - la
		}
		return a.start - b.start
	})
	base := len(sc.out)
	remainder := false
	for _, m := range c {
		acc := sc.out[base:]
		// acc is sorted by start and disjoint: find the first span ending after m.start
		k, _ := slices.BinarySearchFunc(acc, m.start, func(a match, pos int) int {
			if a.end <= pos {
				return -1
			}
			return 1
		})
		if k == len(acc) || acc[k].start >= m.end {
			sc.out = slices.Insert(sc.out, base+k, m)
		} else if !remainder && m.typ != tKeep && !covered(m, acc) {
			remainder = true
		}
	}
	return remainder
}

// covered reports whether every byte of m lies in one of the (sorted,
// disjoint) spans acc.
func covered(m match, acc []match) bool {
	pos := m.start
	for _, a := range acc {
		if a.end <= pos || a.start >= m.end {
			continue
		}
		if a.start > pos {
			return false
		}
		pos = a.end
		if pos >= m.end {
			return true
		}
	}
	return pos >= m.end
}

// rescan looks at the text around the cluster winners acc as it reads after
// they are replaced by placeholders, and adds the matches found there that
// lie inside the cluster [cs,ce) and outside the winners. It reports whether
// it added any.
func (sc *scanner) rescan(s string, cs, ce int, acc []match) bool {
	if len(acc) == 0 {
		return false
	}
	wa, wb := acc[0].start, acc[len(acc)-1].end
	for k := 0; wa > 0 && (k < 48 || !isSpace(s[wa-1])) && k < 128; k++ {
		wa--
	}
	for k := 0; wb < len(s) && (k < 48 || !isSpace(s[wb])) && k < 128; k++ {
		wb++
	}
	if wb-wa > 8192 {
		return false // a pathological cluster; not worth a second look
	}
	// the window text with the winners replaced, and where its pieces start
	type piece struct{ mini, orig, n int }
	var pieces [16]piece
	np := 0
	var b strings.Builder
	b.Grow(wb - wa + 64) // the window, and room for placeholders longer than their values
	prev := wa
	for _, a := range acc {
		if np+2 > len(pieces) {
			return false
		}
		pieces[np] = piece{b.Len(), prev, a.start - prev}
		np++
		b.WriteString(s[prev:a.start])
		if a.typ == tKeep || a.typ == tProbe {
			b.WriteString(s[a.start:a.end])
		} else {
			b.WriteString(placeholders[a.typ])
		}
		prev = a.end
	}
	pieces[np] = piece{b.Len(), prev, wb - prev}
	np++
	b.WriteString(s[prev:wb])
	mini := b.String()

	sub := getScanner()
	sub.depth = sc.depth + 1
	ms := sub.find(mini)
	added := false
	for _, m := range ms {
		if m.typ == tKeep || (m.start == 0 && wa > 0) || (m.end == len(mini) && wb < len(s)) {
			continue
		}
		for _, p := range pieces[:np] {
			if m.start >= p.mini && m.end <= p.mini+p.n {
				st, en := p.orig+m.start-p.mini, p.orig+m.end-p.mini
				if st >= cs && en <= ce {
					sc.out = append(sc.out, match{start: st, end: en, typ: m.typ, prio: m.prio})
					added = true
				}
				break
			}
		}
	}
	sub.depth = 0
	putScanner(sub)
	return added
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
