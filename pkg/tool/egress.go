package tool

import (
	"context"
	"sync"
)

// Egress is what became of a call held back before it was sent, because its arguments would
// send internal data to a server that may receive public indicators only (pkg/mcp's egress
// guard). Only the guard reports it, from the user's configuration and the terminal's answer:
// nothing in a call's arguments or a result does.
type Egress struct {
	// Kinds are the kinds of what would have left ("internal address", "e-mail address", ...),
	// each once, in the order found; never the values themselves.
	Kinds []string
	// Sent is set when the user let the call go at the guard's question.
	Sent bool
	// Asked is set when a person was asked; a call denied because nobody could be asked was not.
	Asked bool
}

type egressLog struct {
	mu   sync.Mutex
	held *Egress
}

type egressKey struct{}

// WithEgress returns ctx carrying a log of whether the call run with it was held back, and the
// function that reads it once the call is done (ok is false when the call was not held).
func WithEgress(ctx context.Context) (context.Context, func() (e Egress, ok bool)) {
	l := &egressLog{}
	return context.WithValue(ctx, egressKey{}, l), func() (Egress, bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held == nil {
			return Egress{}, false
		}
		e := *l.held
		e.Kinds = append([]string(nil), e.Kinds...)
		return e, true
	}
}

// RecordEgress reports to the log ctx carries, if any, that the call was held back and what
// became of it (a call is checked once, before it is sent).
func RecordEgress(ctx context.Context, e Egress) {
	if l, ok := ctx.Value(egressKey{}).(*egressLog); ok {
		e.Kinds = append([]string(nil), e.Kinds...)
		l.mu.Lock()
		l.held = &e
		l.mu.Unlock()
	}
}
