package alert

import (
	"io"
	"iter"
)

// ReadSlow is ReadWith with every value decoded in full (no quick skipping of events).
func ReadSlow(in io.Reader, opts Options, st *Stats) iter.Seq2[Finding, error] {
	return read(in, opts, st, false)
}
