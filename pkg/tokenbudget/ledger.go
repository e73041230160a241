package tokenbudget

import (
	"sort"

	"google.golang.org/genai"
)

// IsTurnStart reports whether c opens a turn: a user content carrying a real user message
// (text, data, files), not function responses. A request's history may only start there, so it
// never opens with a dangling function response nor separates a call from its result.
func IsTurnStart(c *genai.Content) bool {
	if c == nil || (c.Role != genai.RoleUser && c.Role != "") || len(c.Parts) == 0 {
		return false
	}
	real := false
	for _, p := range c.Parts {
		if p == nil {
			continue
		}
		if p.FunctionResponse != nil || p.ToolResponse != nil {
			return false
		}
		real = true
	}
	return real
}

// Ledger caches the token estimate of every content of a transcript, as prefix sums, and where
// its turns start, so that shaping a request from a long transcript costs a few binary searches
// instead of a scan. The transcript is append-only in practice; Sync notices any other change
// by identity and re-estimates from there. The zero value is an empty ledger. It is not safe for
// concurrent use.
type Ledger struct {
	ptrs   []*genai.Content
	cum    []int // cum[i] is the estimate of contents [0, i); len(cum) == len(ptrs)+1
	starts []int // indices of turn starts, ascending
	// settled is how many leading entries were estimated on contents that no longer change
	// (already redacted); the rest are re-estimated at the next Sync.
	settled int
}

// Sync brings the ledger up to date with contents. The first settled contents are final (they
// went through redaction and are stored as they are); estimates of later ones are provisional.
func (l *Ledger) Sync(contents []*genai.Content, settled int) {
	if l.cum == nil {
		l.cum = []int{0}
	}
	keep := min(len(l.ptrs), len(contents), l.settled)
	for i := 0; i < keep; i++ {
		if l.ptrs[i] != contents[i] {
			keep = i
			break
		}
	}
	l.truncate(keep)
	for i := keep; i < len(contents); i++ {
		c := contents[i]
		l.ptrs = append(l.ptrs, c)
		l.cum = append(l.cum, l.cum[i]+EstimateContent(c))
		if IsTurnStart(c) {
			l.starts = append(l.starts, i)
		}
	}
	l.settled = min(max(settled, 0), len(contents))
}

func (l *Ledger) truncate(n int) {
	if n >= len(l.ptrs) {
		return
	}
	clear(l.ptrs[n:])
	l.ptrs = l.ptrs[:n]
	l.cum = l.cum[:n+1]
	l.starts = l.starts[:sort.SearchInts(l.starts, n)]
}

// Len is the number of contents in the ledger.
func (l *Ledger) Len() int { return len(l.ptrs) }

// Sum is the estimate of contents [from, to).
func (l *Ledger) Sum(from, to int) int {
	if l.cum == nil || from >= to {
		return 0
	}
	return l.cum[to] - l.cum[from]
}

// Estimate is the estimate of content i.
func (l *Ledger) Estimate(i int) int { return l.Sum(i, i+1) }

// TurnStartAtOrAfter is the first turn start at index i or later, or Len() if none.
func (l *Ledger) TurnStartAtOrAfter(i int) int {
	k := sort.SearchInts(l.starts, i)
	if k == len(l.starts) {
		return len(l.ptrs)
	}
	return l.starts[k]
}

// LastTurnStart is the start of the newest turn at index from or later, or Len() if none.
func (l *Ledger) LastTurnStart(from int) int {
	if n := len(l.starts); n > 0 && l.starts[n-1] >= from {
		return l.starts[n-1]
	}
	return len(l.ptrs)
}

// TurnStarts counts the turn starts in [from, to).
func (l *Ledger) TurnStarts(from, to int) int {
	return sort.SearchInts(l.starts, to) - sort.SearchInts(l.starts, from)
}

// ChunkEnd returns where a chunk that starts at from should end so that it holds whole turns
// with an estimate of at most avail: the last turn start (or to) in (from, to] that fits. When
// not even the first turn fits, the chunk is that one turn.
func (l *Ledger) ChunkEnd(from, to, avail int) int {
	if from >= to {
		return to
	}
	if l.Sum(from, to) <= avail {
		return to
	}
	// The largest e in [from, to] with cum[e]-cum[from] <= avail.
	e := from + sort.Search(to-from+1, func(k int) bool { return l.cum[from+k]-l.cum[from] > avail }) - 1
	// The last turn start in (from, e].
	k := sort.SearchInts(l.starts, e+1) - 1
	if k >= 0 && l.starts[k] > from {
		return l.starts[k]
	}
	next := l.TurnStartAtOrAfter(from + 1)
	return min(next, to)
}

// Window returns the start of the longest suffix of the transcript that begins at a turn start
// at from or later and whose estimate is at most avail: the newest whole turns that fit. It
// returns Len() when not even the newest turn fits.
func (l *Ledger) Window(from, avail int) int {
	n := len(l.ptrs)
	if from >= n || avail <= 0 {
		return n
	}
	total := l.cum[n]
	// The smallest s in [from, n] with cum[n]-cum[s] <= avail; cum is non-decreasing.
	s := from + sort.Search(n-from+1, func(k int) bool { return total-l.cum[from+k] <= avail })
	return l.TurnStartAtOrAfter(s)
}
