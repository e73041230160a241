package tool

import (
	"context"
	"sync"
)

// Elicitation is a server's request to the user during a call (MCP elicitation/create), and
// what became of it. What the user typed is not kept: only which fields were asked for.
type Elicitation struct {
	Server string
	// Action is accept, decline or cancel.
	Action string
	// Fields are the names of the fields the server asked for.
	Fields []string
	// Asked is set when a person was asked; a request declined because nobody could be asked,
	// or answered with its defaults on the user's standing order, was not.
	Asked bool
}

type elicitationLog struct {
	mu  sync.Mutex
	out []Elicitation
}

type elicitationKey struct{}

// WithElicitations returns ctx carrying a log of the elicitations of the call run with it, and
// the function that reads the log once the call is done.
func WithElicitations(ctx context.Context) (context.Context, func() []Elicitation) {
	l := &elicitationLog{}
	return context.WithValue(ctx, elicitationKey{}, l), func() []Elicitation {
		l.mu.Lock()
		defer l.mu.Unlock()
		return append([]Elicitation(nil), l.out...)
	}
}

// RecordElicitation adds e to the log ctx carries, if any.
func RecordElicitation(ctx context.Context, e Elicitation) {
	if l, ok := ctx.Value(elicitationKey{}).(*elicitationLog); ok {
		l.mu.Lock()
		l.out = append(l.out, e)
		l.mu.Unlock()
	}
}
