package llm

import (
	"context"
	"sync"
	"time"

	"github.com/alertchat/alertchat/pkg/retry"
)

// Limiter is a token bucket that spaces requests to at most a number per minute. It is safe for
// concurrent use; one Limiter shared by several clients caps their combined rate. A nil
// *Limiter never waits.
type Limiter struct {
	interval time.Duration
	burst    int

	mu  sync.Mutex
	tat time.Time // theoretical arrival time of the next request at the steady rate

	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// NewLimiter returns a Limiter allowing perMinute requests a minute, evenly spaced, with
// bursts of at most burst requests (at least 1) after an idle period. perMinute <= 0 means
// no limit: it returns nil.
func NewLimiter(perMinute, burst int) *Limiter {
	if perMinute <= 0 {
		return nil
	}
	return &Limiter{
		interval: time.Minute / time.Duration(perMinute),
		burst:    max(burst, 1),
		now:      time.Now,
		sleep:    retry.Sleep,
	}
}

// Wait blocks until a request may be sent, or ctx ends.
func (l *Limiter) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l == nil {
		return nil
	}
	d, slot := l.reserve()
	if d <= 0 {
		return nil
	}
	if err := l.sleep(ctx, d); err != nil {
		l.release(slot)
		return err
	}
	return nil
}

// reserve takes the next slot and returns how long to wait for it (GCRA: each request moves
// the theoretical arrival time one interval on; a request may go burst-1 intervals early).
func (l *Limiter) reserve() (time.Duration, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	tat := l.tat
	if tat.Before(now) {
		tat = now
	}
	l.tat = tat.Add(l.interval)
	return l.tat.Add(-time.Duration(l.burst) * l.interval).Sub(now), l.tat
}

// release gives back a slot that was reserved but not used, when no later one was taken
// (giving back an earlier slot would let two requests share one).
func (l *Limiter) release(slot time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tat.Equal(slot) {
		l.tat = l.tat.Add(-l.interval)
	}
}
