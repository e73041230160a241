package redact

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/m-mizutani/goerr/v2"
)

// # Streaming
//
// Copy redacts a stream in windows, so that memory does not grow with the input, and writes
// what String would write for the whole text: every detector looks at a bounded neighbourhood
// of a value (a few kilobytes at most: quoted values end within 2 KB, webhook URLs within
// 4 KB, a rescan looks at most 8 KB around a cluster), except the private-key block, which
// runs from its BEGIN line to its END line however far that is.
//
// A window is the text from a left context (up to sz.left bytes already written, from a line
// start where there is one) to as much new text as sz.window holds (see defaultStreamSizes).
// It is scanned whole; what is written is its part up to a cut, chosen at least sz.right
// bytes before the window's end (at a line break, else a space, else a character boundary)
// and never inside a match: a match across the cut moves the cut to the match's start. The
// next window begins with the left context before the cut. So every value decided in a
// window has at least sz.left bytes before it and sz.right bytes after it in view, as in the
// whole text.
//
// A match that begins at the start of what is to be written and runs past the cut (a long
// private key whose END line is not in view yet) makes the window grow, up to sz.max; past
// that, its placeholder is written for it, and the next window's left context is the match's
// own beginning (the BEGIN line and what follows), so the same match is found again from its
// start and its rest is dropped, not written: one placeholder for the whole key, as String
// writes it. Should a match found at the start of a window reach back into what was written
// already (it cannot when the neighbourhood is bounded, as above), its remaining part is
// replaced all the same: the stream never writes a value it found.

// streamSizes bound Copy's windows (variables only so that tests can make them small).
type streamSizes struct {
	window int // new text a window takes in
	left   int // written text kept before the new text
	right  int // text kept in view after the cut
	max    int // the most a window grows to hold one long match
}

var defaultStreamSizes = streamSizes{window: 512 << 10, left: 16 << 10, right: 16 << 10, max: 16 << 20}

// Copy reads src to its end and writes it to dst redacted, as String would write the whole
// text, holding a bounded window of it in memory (about 512 KB; a single value, a private key,
// can make it grow to 16 MB). It returns the replacements per type, and the first read or
// write error.
func (r *Redactor) Copy(dst io.Writer, src io.Reader) (Counts, error) {
	return r.copyWith(dst, src, defaultStreamSizes)
}

// errWrite marks an error of dst, told apart from one of src.
type errWrite struct{ error }

func (e errWrite) Unwrap() error { return e.error }

func (r *Redactor) copyWith(dst io.Writer, src io.Reader, sz streamSizes) (Counts, error) {
	counts := Counts{}
	if !r.Enabled() {
		_, err := io.Copy(dst, src)
		return counts, err
	}
	st := &stream{r: r, dst: dst, sz: sz, counts: counts, buf: make([]byte, 0, sz.left+sz.window+sz.right)}
	err := st.run(src)
	var we errWrite
	if errors.As(err, &we) {
		return counts, goerr.Wrap(we.error, "failed to write the redacted text")
	}
	if err != nil {
		return counts, goerr.Wrap(err, "failed to read the text to redact")
	}
	return counts, nil
}

type stream struct {
	r      *Redactor
	dst    io.Writer
	sz     streamSizes
	counts Counts
	buf    []byte // buf[:done] was written (left context), buf[done:] was not
	done   int
	// carry: the window starts with the beginning of a match whose placeholder was written
	// already; its rest, when the match is found again, is dropped
	carry bool
}

func (st *stream) run(src io.Reader) error {
	eof := false
	limit := st.sz.window
	for {
		// fill: new text up to the window (or more, while a long match grows it)
		for !eof && len(st.buf)-st.done < limit {
			if len(st.buf) == cap(st.buf) {
				st.buf = append(st.buf, 0)[:len(st.buf)] // grow
			}
			n, err := src.Read(st.buf[len(st.buf):cap(st.buf)])
			st.buf = st.buf[:len(st.buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return err
			}
		}
		if len(st.buf) == st.done && eof {
			return nil
		}
		grow, err := st.window(eof, limit >= st.sz.max)
		if err != nil {
			return err
		}
		if grow {
			limit = min(2*limit, st.sz.max)
			continue
		}
		limit = st.sz.window
		if eof && len(st.buf) == st.done {
			return nil
		}
	}
}

// window scans the buffer and writes what it can; it asks to grow (and writes nothing) when a
// match runs from the start of the unwritten text past any cut and the window may still grow.
func (st *stream) window(eof, atMax bool) (grow bool, err error) {
	s := unsafe.String(unsafe.SliceData(st.buf), len(st.buf)) // valid until buf changes below
	sc := getScanner()
	defer putScanner(sc)
	ms := sc.find(s)
	if len(st.r.known) > 0 {
		ms = st.r.withKnown(s, ms)
	}
	done := st.done
	cut := len(s)
	forced := -1 // index of a match the cut goes through
	if !eof {
		cut = st.cutAt(s, done, len(s)-st.sz.right)
		for {
			k := crossing(ms, cut)
			if k < 0 {
				break
			}
			if ms[k].start > done {
				cut = ms[k].start
				continue
			}
			if !atMax {
				return true, nil
			}
			forced = k
			break
		}
	}
	if err := st.emit(s, ms, done, cut, forced); err != nil {
		return false, err
	}
	// shift: keep the left context before the cut, or the forced match's beginning
	var from, to int // the left context, buf[from:to]
	if forced >= 0 {
		from = ms[forced].start
		to = min(from+st.sz.left, cut)
	} else {
		from, to = max(0, cut-st.sz.left), cut
		// from a line start, unless that leaves little of it
		if k := bytes.IndexByte(st.buf[from:cut], '\n'); from > 0 && k >= 0 && k < (cut-from)/2 {
			from += k + 1
		}
	}
	st.carry = forced >= 0
	nb := st.buf
	if n := st.sz.left + st.sz.window + st.sz.right; cap(nb) > 2*n && to-from+len(st.buf)-cut < st.sz.window {
		nb = make([]byte, 0, n) // done with a long match: back to the usual size
	}
	// left context, then the unwritten rest; copy handles the overlap within one array (the
	// destination is never after the source)
	k := copy(nb[:cap(nb)], st.buf[from:to])
	k += copy(nb[k:cap(nb)], st.buf[cut:])
	st.buf, st.done = nb[:k], to-from
	return false, nil
}

// cutAt is where to end what a window writes: at most at target, after done, at a line break,
// else after a space, else at a character boundary.
func (st *stream) cutAt(s string, done, target int) int {
	if target <= done {
		return done + 1 // a window always makes progress (the caller guarantees text beyond)
	}
	if k := lastNewline(st.buf[done:target]); k >= 0 {
		return done + k + 1
	}
	if k := bytes.LastIndexAny(st.buf[done:target], " \t"); k >= 0 {
		return done + k + 1
	}
	c := target
	for c > done+1 && !utf8.RuneStart(s[c]) {
		c--
	}
	return c
}

// lastNewline is bytes.LastIndexByte(b, '\n'). That one reads byte by
// byte from the end, through the whole window when the text has no line
// break (minified JSON, a long line of prose); this one asks the vectorized
// IndexByte whether a 4 KB block holds one before reading it backwards.
func lastNewline(b []byte) int {
	const block = 4 << 10
	for end := len(b); end > 0; end -= block {
		start := max(end-block, 0)
		if bytes.IndexByte(b[start:end], '\n') >= 0 {
			return start + bytes.LastIndexByte(b[start:end], '\n')
		}
	}
	return -1
}

// crossing returns the index of the match of ms (sorted, disjoint) that holds position cut
// strictly inside, or -1.
func crossing(ms []match, cut int) int {
	if k := endingAfter(ms, cut); k < len(ms) && ms[k].start < cut {
		return k
	}
	return -1
}

// endingAfter is the index of the first match of ms (sorted, disjoint) that ends after pos.
func endingAfter(ms []match, pos int) int {
	k, _ := slices.BinarySearchFunc(ms, pos, func(m match, pos int) int {
		if m.end <= pos {
			return -1
		}
		return 1
	})
	return k
}

// emit writes s[done:cut] with the matches in it replaced; the forced match (index, or -1)
// runs past cut and is written as its placeholder.
func (st *stream) emit(s string, ms []match, done, cut, forced int) error {
	w := st.dst
	prev := done
	write := func(x string) error {
		if x == "" {
			return nil
		}
		_, err := io.WriteString(w, x)
		if err != nil {
			return errWrite{err}
		}
		return nil
	}
	carry := st.carry
	for k := endingAfter(ms, done); k < len(ms) && ms[k].start < cut; k++ {
		m := ms[k]
		if m.typ == tKeep || !st.r.on[m.typ] {
			continue
		}
		if m.start < done {
			// found again from the beginning the previous window wrote its placeholder for
			// (carry), or (never with bounded neighbourhoods) reaching back into written text:
			// its rest is dropped, or replaced
			end := min(m.end, cut)
			if carry && m.start == 0 {
				prev = end
				continue
			}
			rep, ok := st.r.repl(s[m.start:m.end], m.typ, nil)
			if !ok {
				continue
			}
			if err := write(rep); err != nil {
				return err
			}
			st.counts[allTypes[m.typ]]++
			prev = end
			continue
		}
		rep, ok := st.r.repl(s[m.start:m.end], m.typ, nil)
		if !ok {
			continue
		}
		if err := write(s[prev:m.start]); err != nil {
			return err
		}
		if err := write(rep); err != nil {
			return err
		}
		st.counts[allTypes[m.typ]]++
		prev = min(m.end, cut)
		if k == forced {
			break
		}
	}
	return write(s[prev:cut])
}
