package tool

import (
	"context"
	"sync"
)

// Report is what the server's side of one call reported while it ran, for the call's record:
// the elicitations it asked and, for a call the egress guard held back, what became of it.
type Report struct {
	Elicitations []Elicitation
	// Egress is nil for a call that was not held.
	Egress *Egress
}

type callLog struct {
	mu  sync.Mutex
	out Report
}

type callLogKey struct{}

// WithCallLog returns ctx carrying the log of the call run with it, and the function that reads
// it once the call is done (a copy: later reports do not change it).
func WithCallLog(ctx context.Context) (context.Context, func() Report) {
	l := &callLog{}
	return context.WithValue(ctx, callLogKey{}, l), func() Report {
		l.mu.Lock()
		defer l.mu.Unlock()
		r := Report{Elicitations: append([]Elicitation(nil), l.out.Elicitations...)}
		if l.out.Egress != nil {
			e := *l.out.Egress
			e.Kinds = append([]string(nil), e.Kinds...)
			r.Egress = &e
		}
		return r
	}
}

// updateLog changes the log ctx carries, if any.
func updateLog(ctx context.Context, change func(*Report)) {
	if l, ok := ctx.Value(callLogKey{}).(*callLog); ok {
		l.mu.Lock()
		change(&l.out)
		l.mu.Unlock()
	}
}

// RecordElicitation adds e to the log ctx carries, if any.
func RecordElicitation(ctx context.Context, e Elicitation) {
	updateLog(ctx, func(r *Report) { r.Elicitations = append(r.Elicitations, e) })
}

// RecordEgress reports to the log ctx carries, if any, that the call was held back and what
// became of it (a call is checked once, before it is sent).
func RecordEgress(ctx context.Context, e Egress) {
	e.Kinds = append([]string(nil), e.Kinds...)
	updateLog(ctx, func(r *Report) { r.Egress = &e })
}
