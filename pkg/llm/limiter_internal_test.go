package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// fakeClock moves only when told to; sleeps record their length and return at once.
type fakeClock struct {
	now    time.Time
	waits  []time.Duration
	cancel bool
}

func (f *fakeClock) limiter(perMinute, burst int) *Limiter {
	l := NewLimiter(perMinute, burst)
	l.now = func() time.Time { return f.now }
	l.sleep = func(ctx context.Context, d time.Duration) error {
		f.waits = append(f.waits, d)
		if f.cancel {
			return context.Canceled
		}
		return nil
	}
	return l
}

func (f *fakeClock) take() []time.Duration {
	w := f.waits
	f.waits = nil
	return w
}

func TestLimiterTokenBucket(t *testing.T) {
	ctx := context.Background()
	f := &fakeClock{now: time.Unix(1000, 0)}
	ms := time.Millisecond

	// 60 a minute, burst 1: one request a second, evenly spaced.
	l := f.limiter(60, 1)
	for range 4 {
		if err := l.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{1000 * ms, 2000 * ms, 3000 * ms}) {
		t.Fatalf("burst 1: waits %v", got)
	}
	// After a long idle period the bucket is full again, but holds one token only.
	f.now = f.now.Add(time.Minute)
	_ = l.Wait(ctx)
	_ = l.Wait(ctx)
	if got := f.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{1000 * ms}) {
		t.Fatalf("after idle: waits %v", got)
	}

	// 120 a minute, burst 3: three at once, then every 500ms.
	l = f.limiter(120, 3)
	for range 6 {
		_ = l.Wait(ctx)
	}
	if got := f.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{500 * ms, 1000 * ms, 1500 * ms}) {
		t.Fatalf("burst 3: waits %v", got)
	}
	// 2.5s later two slots have refilled: two requests go at once, the third waits.
	f.now = f.now.Add(2500 * ms)
	_ = l.Wait(ctx)
	_ = l.Wait(ctx)
	_ = l.Wait(ctx)
	if got := f.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{500 * ms}) {
		t.Fatalf("refill: waits %v", got)
	}
}

func TestLimiterReleasesCancelledSlot(t *testing.T) {
	f := &fakeClock{now: time.Unix(1000, 0)}
	l := f.limiter(60, 1)
	_ = l.Wait(context.Background()) // immediate
	f.cancel = true
	if err := l.Wait(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	f.cancel = false
	_ = l.Wait(context.Background())
	// The cancelled request's slot (1s) was given back and reused.
	if got := f.take(); fmt.Sprint(got) != fmt.Sprint([]time.Duration{time.Second, time.Second}) {
		t.Fatalf("waits %v", got)
	}
}

func TestNilLimiter(t *testing.T) {
	var l *Limiter
	if NewLimiter(0, 5) != nil {
		t.Fatal("0 a minute is no limit")
	}
	if err := l.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context waits: %v", err)
	}
}
