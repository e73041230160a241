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

// Guard is a store.Store that consults and keeps a Marker: while the mark says the backend is
// down, every call fails at once with resilient.ErrUnavailable (so a session spools its turn
// without waiting); a call that fails because the backend is unreachable marks it down for
// the TTL; a call the backend answers clears the mark. Wrap the resilient store with it, so
// that "down" means its retries and budget were spent.
type Guard struct {
	inner  store.Store
	m      *Marker
	ttl    time.Duration
	isDown func(error) bool

	mu     sync.Mutex
	until  time.Time // down until then, as far as this process knows
	marked bool      // a mark may be on disk: clear it on the next answer
	read   bool      // the mark on disk was read
}

var _ store.Store = (*Guard)(nil)

// GuardOptions configure NewGuard; zero values take the defaults.
type GuardOptions struct {
	TTL time.Duration // DefaultTTL when 0 (at most MaxDown)
	// IsDown tells a failure of an unreachable backend from the backend's own answers;
	// resilient.IsTransient by default.
	IsDown func(error) bool
}

// NewGuard wraps inner with the marker m.
func NewGuard(inner store.Store, m *Marker, o GuardOptions) *Guard {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.IsDown == nil {
		o.IsDown = resilient.IsTransient
	}
	return &Guard{inner: inner, m: m, ttl: min(o.TTL, MaxDown), isDown: o.IsDown}
}

// Unwrap returns the wrapped store (for optional interfaces such as store.Checker).
func (g *Guard) Unwrap() store.Store { return g.inner }

// DownUntil reports whether calls fail at once now, and until when.
func (g *Guard) DownUntil() (time.Time, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.downLocked()
}

func (g *Guard) downLocked() (time.Time, bool) {
	if !g.read {
		g.read = true
		if until, down := g.m.Down(); down {
			g.until, g.marked = until, true
		} else if _, err := os.Stat(g.m.path); err == nil {
			g.marked = true // an expired or bad mark: clear it on the next answer
		}
	}
	now := g.m.now()
	if now.Before(g.until) {
		return g.until, true
	}
	return time.Time{}, false
}

// before fails at once while the backend is taken for down.
func (g *Guard) before(op string) error {
	if until, down := g.DownUntil(); down {
		return goerr.Wrap(resilient.ErrUnavailable, "storage "+op+" not attempted: the store was found down by a recent command",
			goerr.V("op", op), goerr.V("down_until", until.UTC().Format(time.RFC3339)))
	}
	return nil
}

// after keeps the mark from a call's outcome. A failure of the mark's file is not the call's:
// the mark only ever saves time.
func (g *Guard) after(ctx context.Context, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err != nil && ctx.Err() == nil && g.isDown(err):
		if g.m.MarkDown(g.ttl) == nil {
			g.until, g.marked = g.m.now().Add(g.ttl), true
		}
	case err == nil || !g.isDown(err) && ctx.Err() == nil:
		if g.marked && g.m.Clear() == nil {
			g.marked = false
		}
		g.until = time.Time{}
	}
}

func guarded[T any](g *Guard, ctx context.Context, op string, fn func() (T, error)) (T, error) {
	var zero T
	if err := g.before(op); err != nil {
		return zero, err
	}
	v, err := fn()
	g.after(ctx, err)
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
