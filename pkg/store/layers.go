package store

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
)

// The command line stacks wrappers over a backend (see pkg/store/spool, pkg/store/redacting
// and pkg/store/resilient). A wrapper exposes what it wraps through Unwrap, and code that needs
// an optional capability of some layer asks for it with Find, never with a type switch over
// the wrapper types.

// Unwrapper is a store that wraps another.
type Unwrapper interface {
	Unwrap() Store
}

// Find returns the first layer of s, starting with s itself and following Unwrap, that
// implements T.
func Find[T any](s any) (T, bool) {
	for s != nil {
		if t, ok := s.(T); ok {
			return t, true
		}
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	var zero T
	return zero, false
}

// PendingReporter is implemented by a layer that keeps turns the backend could not take yet
// (pkg/store/spool): listings show them as pending.
type PendingReporter interface {
	// PendingHistories returns the newest locally kept state of each history with turns not
	// yet uploaded.
	PendingHistories(ctx context.Context) map[record.HistoryID]*record.History
}

// Counter is implemented by stores that count histories without listing them.
type Counter interface {
	// CountHistories returns how many histories q selects, its cursor and limit aside.
	CountHistories(ctx context.Context, q HistoryQuery) (int, error)
}

// AlertCounter is implemented by stores that count alerts without listing them.
type AlertCounter interface {
	// CountAlerts returns how many alerts q selects, its cursor and limit aside.
	CountAlerts(ctx context.Context, q AlertQuery) (int, error)
}
