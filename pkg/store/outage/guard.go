package outage

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// DefaultTTL is how long a store found down is taken for down by the next commands.
const DefaultTTL = 30 * time.Second

// Guard is a store.Store that consults and keeps two Markers, one for reads and one for
// writes (a backend is often two services, and an outage of the one that takes transcripts
// must not stop listings): while a mark says its side of the backend is down, every call of
// that side fails at once with resilient.ErrUnavailable, so a session spools its turn without
// waiting; a call that fails because the backend is unreachable marks its side down for the
// TTL; a call the backend answers clears its side's mark.
//
// Wrap the resilient store of one-shot commands with it, so that "down" means its retries and
// budget were spent. Do not wrap the store of an explicit upload of the spool (history sync):
// the user asks for a try.
type Guard struct {
	inner         store.Store
	reads, writes *side
	ttl           time.Duration
	isDown        func(error) bool
}

var _ store.Store = (*Guard)(nil)

// GuardOptions configure NewGuard; zero values take the defaults.
type GuardOptions struct {
	TTL time.Duration // DefaultTTL when 0 (at most MaxDown)
	// IsDown tells a failure of an unreachable backend from the backend's own answers;
	// resilient.IsTransient by default.
	IsDown func(error) bool
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// NewGuard wraps inner, keeping its marks in dir under key (see NewMarker).
func NewGuard(inner store.Store, dir, key string, o GuardOptions) *Guard {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.IsDown == nil {
		o.IsDown = resilient.IsTransient
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	mk := func(kind string) *side {
		return &side{m: NewMarker(dir, key+" "+kind, WithClock(o.Now))}
	}
	return &Guard{inner: inner, reads: mk("reads"), writes: mk("writes"), ttl: min(o.TTL, MaxDown), isDown: o.IsDown}
}

// Unwrap returns the wrapped store (for optional interfaces such as store.Checker).
func (g *Guard) Unwrap() store.Store { return g.inner }

// ReadsDownUntil reports whether reads fail at once now, and until when.
func (g *Guard) ReadsDownUntil() (time.Time, bool) { return g.reads.downUntil() }

// WritesDownUntil reports whether writes (saves, deletes, alerts added) fail at once now, and
// until when. A one-shot can check it to skip the automatic upload of the spool.
func (g *Guard) WritesDownUntil() (time.Time, bool) { return g.writes.downUntil() }

// side is the state of reads or of writes.
type side struct {
	m *Marker

	mu     sync.Mutex
	until  time.Time // down until then, as far as this process knows
	marked bool      // a mark may be on disk: clear it on the next answer
	read   bool      // the mark on disk was read
}

func (s *side) downUntil() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.read {
		s.read = true
		if until, down := s.m.Down(); down {
			s.until, s.marked = until, true
		} else if _, err := os.Stat(s.m.path); err == nil {
			s.marked = true // an expired or bad mark: clear it on the next answer
		}
	}
	if s.m.now().Before(s.until) {
		return s.until, true
	}
	return time.Time{}, false
}

// before fails at once while the side is taken for down.
func (s *side) before(op string) error {
	if until, down := s.downUntil(); down {
		return goerr.Wrap(resilient.ErrUnavailable, "storage "+op+" not attempted: the store was found down by a recent command",
			goerr.V("op", op), goerr.V("down_until", until.UTC().Format(time.RFC3339)))
	}
	return nil
}

// after keeps the mark from a call's outcome. A failure of the mark's file is not the call's:
// the mark only ever saves time.
func (s *side) after(ctx context.Context, g *Guard, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case ctx.Err() != nil && err != nil:
		// The caller gave up: says nothing about the backend.
	case err != nil && g.isDown(err):
		if s.m.MarkDown(g.ttl) == nil {
			s.until, s.marked = s.m.now().Add(g.ttl), true
		}
	default: // the backend answered
		if s.marked && s.m.Clear() == nil {
			s.marked = false
		}
		s.until = time.Time{}
	}
}

func guarded[T any](g *Guard, ctx context.Context, op string, fn func() (T, error)) (T, error) {
	s := g.reads
	if op != "read" {
		s = g.writes
	}
	var zero T
	if err := s.before(op); err != nil {
		return zero, err
	}
	v, err := fn()
	s.after(ctx, g, err)
	return v, err
}

// GetHistory implements store.Histories.
func (g *Guard) GetHistory(ctx context.Context, id model.HistoryID) (*model.History, error) {
	return guarded(g, ctx, "read", func() (*model.History, error) { return g.inner.GetHistory(ctx, id) })
}

// GetHistoryMeta implements store.Histories.
func (g *Guard) GetHistoryMeta(ctx context.Context, id model.HistoryID) (*model.History, error) {
	return guarded(g, ctx, "read", func() (*model.History, error) { return g.inner.GetHistoryMeta(ctx, id) })
}

// SaveHistory implements store.Histories.
func (g *Guard) SaveHistory(ctx context.Context, h *model.History) error {
	_, err := guarded(g, ctx, "save", func() (struct{}, error) { return struct{}{}, g.inner.SaveHistory(ctx, h) })
	return err
}

// DeleteHistory implements store.Histories.
func (g *Guard) DeleteHistory(ctx context.Context, id model.HistoryID) error {
	_, err := guarded(g, ctx, "delete", func() (struct{}, error) { return struct{}{}, g.inner.DeleteHistory(ctx, id) })
	return err
}

// ListHistories implements store.Histories.
func (g *Guard) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	return guarded(g, ctx, "read", func() (*store.HistoryPage, error) { return g.inner.ListHistories(ctx, q) })
}

// FindHistories implements store.Histories.
func (g *Guard) FindHistories(ctx context.Context, prefix string, limit int) ([]model.HistoryID, error) {
	return guarded(g, ctx, "read", func() ([]model.HistoryID, error) { return g.inner.FindHistories(ctx, prefix, limit) })
}

// PutAlert implements store.Alerts.
func (g *Guard) PutAlert(ctx context.Context, a *model.Alert) (bool, error) {
	return guarded(g, ctx, "write", func() (bool, error) { return g.inner.PutAlert(ctx, a) })
}

// GetAlert implements store.Alerts.
func (g *Guard) GetAlert(ctx context.Context, id model.AlertID) (*model.Alert, error) {
	return guarded(g, ctx, "read", func() (*model.Alert, error) { return g.inner.GetAlert(ctx, id) })
}

// ListAlerts implements store.Alerts.
func (g *Guard) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	return guarded(g, ctx, "read", func() (*store.AlertPage, error) { return g.inner.ListAlerts(ctx, q) })
}

// Close closes the wrapped store.
func (g *Guard) Close() error { return g.inner.Close() }
