package resilient_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// fakeStore answers SaveHistory and DeleteHistory with what fn says.
type fakeStore struct {
	store.Store
	calls atomic.Int32
	fn    func(ctx context.Context, call int) error
}

func (f *fakeStore) SaveHistory(ctx context.Context, _ *record.History) error {
	return f.fn(ctx, int(f.calls.Add(1)))
}

func (f *fakeStore) ListHistories(context.Context, store.HistoryQuery) (*store.HistoryPage, error) {
	return &store.HistoryPage{}, nil
}

func (f *fakeStore) DeleteHistory(ctx context.Context, _ record.HistoryID) error {
	return f.fn(ctx, int(f.calls.Add(1)))
}

var refused = goerr.Wrap(syscall.ECONNREFUSED, "dial tcp 127.0.0.1:1")

// clock is a breaker clock that moves only when told to.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func fast(o resilient.Options) resilient.Options {
	if o.Budget == 0 {
		o.Budget = 2 * time.Second
	}
	o.BaseDelay, o.MaxDelay = 5*time.Millisecond, 20*time.Millisecond
	return o
}

func TestIsTransient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{context.DeadlineExceeded, true},
		{&googleapi.Error{Code: http.StatusServiceUnavailable}, true},
		{goerr.Wrap(&googleapi.Error{Code: http.StatusTooManyRequests}, "x"), true},
		{&googleapi.Error{Code: http.StatusForbidden}, false},
		{status.Error(codes.Unavailable, "connection refused"), true},
		{goerr.Wrap(status.Error(codes.DeadlineExceeded, "slow"), "x"), true},
		{status.Error(codes.PermissionDenied, "no"), false},
		{goerr.Wrap(store.ErrConflict, "x"), false},
		{goerr.Wrap(store.ErrNotFound, "x"), false},
		{goerr.Wrap(store.ErrInvalid, "x"), false},
		{goerr.Wrap(store.ErrNoSpace, "x"), false},
		{context.Canceled, false},
		{errors.New("corrupt transcript of history x"), false},
		{errors.New("database is locked (5) (SQLITE_BUSY)"), true},
	} {
		if got := resilient.IsTransient(tc.err); got != tc.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRetriesTransientErrorsOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Two failures, then success: one call, three attempts.
	f := &fakeStore{fn: func(_ context.Context, call int) error {
		if call < 3 {
			return refused
		}
		return nil
	}}
	s := resilient.New(f, fast(resilient.Options{Threshold: 10}))
	if err := s.SaveHistory(ctx, &record.History{}); err != nil || f.calls.Load() != 3 {
		t.Fatalf("save: %v after %d attempts", err, f.calls.Load())
	}
	// A conflict is never retried.
	f = &fakeStore{fn: func(context.Context, int) error { return goerr.Wrap(store.ErrConflict, "stale") }}
	s = resilient.New(f, fast(resilient.Options{}))
	if err := s.SaveHistory(ctx, &record.History{}); !errors.Is(err, store.ErrConflict) || f.calls.Load() != 1 {
		t.Fatalf("conflict: %v after %d attempts", err, f.calls.Load())
	}
	// A delete whose first answer was lost reports success when the retry finds it gone.
	f = &fakeStore{fn: func(_ context.Context, call int) error {
		if call == 1 {
			return refused
		}
		return goerr.Wrap(store.ErrNotFound, "gone")
	}}
	s = resilient.New(f, fast(resilient.Options{}))
	if err := s.DeleteHistory(ctx, "x"); err != nil {
		t.Fatalf("retried delete: %v", err)
	}
}

func TestBudgetBoundsACallAndBreakerFailsFast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := &fakeStore{fn: func(context.Context, int) error { return refused }}
	s := resilient.New(f, fast(resilient.Options{Budget: 300 * time.Millisecond, Cooldown: time.Hour}))
	err := s.SaveHistory(ctx, &record.History{})
	if !errors.Is(err, syscall.ECONNREFUSED) || !resilient.IsTransient(err) {
		t.Fatalf("dead backend: %v", err)
	}
	if f.calls.Load() < 3 {
		t.Fatalf("dead backend tried %d times within the budget", f.calls.Load())
	}
	if s.WriteBreaker().State() != resilient.Open {
		t.Fatalf("breaker %v after a call spent its budget", s.WriteBreaker().State())
	}
	calls := f.calls.Load()
	err = s.SaveHistory(ctx, &record.History{})
	if !errors.Is(err, resilient.ErrUnavailable) || !resilient.IsTransient(err) || f.calls.Load() != calls {
		t.Fatalf("open breaker: %v, backend called %d times", err, f.calls.Load()-calls)
	}
	// Reads have their own breaker: a transcript service down does not stop listings.
	if _, err := s.ListHistories(ctx, store.HistoryQuery{}); err != nil || s.ReadBreaker().State() != resilient.Closed {
		t.Fatalf("read with the write breaker open: %v", err)
	}
}

func TestHangingBackendIsBoundedByAttemptTimeout(t *testing.T) {
	t.Parallel()
	f := &fakeStore{fn: func(ctx context.Context, _ int) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	s := resilient.New(f, fast(resilient.Options{Budget: 600 * time.Millisecond, AttemptTimeout: 150 * time.Millisecond}))
	start := time.Now()
	err := s.SaveHistory(context.Background(), &record.History{})
	if d := time.Since(start); !resilient.IsTransient(err) || d > 5*time.Second || f.calls.Load() < 2 {
		t.Fatalf("hanging backend: %v after %v, %d attempts", err, d, f.calls.Load())
	}
}

func TestBreakerHalfOpens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var up atomic.Bool
	f := &fakeStore{fn: func(context.Context, int) error {
		if up.Load() {
			return nil
		}
		return refused
	}}
	clk := newClock()
	s := resilient.New(f, fast(resilient.Options{Threshold: 2, Cooldown: time.Second, Budget: 100 * time.Millisecond, Now: clk.Now}))
	_ = s.SaveHistory(ctx, &record.History{})
	if s.WriteBreaker().State() != resilient.Open {
		t.Fatal("breaker not open")
	}
	clk.Advance(999 * time.Millisecond)
	if s.WriteBreaker().State() != resilient.Open {
		t.Fatalf("breaker %v before the cool-down ends", s.WriteBreaker().State())
	}
	clk.Advance(2 * time.Millisecond)
	if s.WriteBreaker().State() != resilient.HalfOpen {
		t.Fatalf("breaker %v after the cool-down", s.WriteBreaker().State())
	}
	// The probe gets one attempt; failing, it opens the breaker again at once.
	calls := f.calls.Load()
	if err := s.SaveHistory(ctx, &record.History{}); err == nil || f.calls.Load() != calls+1 || s.WriteBreaker().State() != resilient.Open {
		t.Fatalf("failed probe: %v, %d attempts, %v", err, f.calls.Load()-calls, s.WriteBreaker().State())
	}
	clk.Advance(1001 * time.Millisecond)
	up.Store(true)
	if err := s.SaveHistory(ctx, &record.History{}); err != nil || s.WriteBreaker().State() != resilient.Closed {
		t.Fatalf("successful probe: %v, %v", err, s.WriteBreaker().State())
	}
}

func TestCallerCancellationStopsRetries(t *testing.T) {
	t.Parallel()
	f := &fakeStore{fn: func(context.Context, int) error { return refused }}
	s := resilient.New(f, resilient.Options{Budget: time.Minute, BaseDelay: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.SaveHistory(ctx, &record.History{}); err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled call: %v after %v", err, time.Since(start))
	}
}

// TestBreakerMemoryOutlivesTheProcess: a store that found the backend dead records it; the
// next store (the next one-shot command) on the same memory fails at once without calling the
// backend, until the cool-down ends and one probe finds the backend back, which clears it.
// Another backend's record, or a stale one, is ignored.
func TestBreakerMemoryOutlivesTheProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "breakers", "writes.json")
	var up atomic.Bool
	f := &fakeStore{fn: func(context.Context, int) error {
		if up.Load() {
			return nil
		}
		return refused
	}}
	opts := func(cooldown time.Duration, backend string) resilient.Options {
		return fast(resilient.Options{Budget: 200 * time.Millisecond, Cooldown: cooldown, WriteMemory: resilient.NewFileMemory(path, backend)})
	}
	first := resilient.New(f, opts(time.Hour, "cloud:a"))
	if err := first.SaveHistory(ctx, &record.History{}); err == nil {
		t.Fatal("dead backend saved")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the open breaker was not recorded: %v", err)
	}

	calls := f.calls.Load()
	next := resilient.New(f, opts(time.Hour, "cloud:a"))
	err := next.SaveHistory(ctx, &record.History{})
	if !errors.Is(err, resilient.ErrUnavailable) || f.calls.Load() != calls {
		t.Fatalf("next process: %v, backend called %d times", err, f.calls.Load()-calls)
	}
	if s := resilient.New(f, opts(time.Hour, "cloud:b")); s.WriteBreaker().State() != resilient.Closed {
		t.Fatal("another backend's record opened the breaker")
	}
	if s := resilient.New(f, opts(time.Nanosecond, "cloud:a")); s.WriteBreaker().State() != resilient.HalfOpen {
		t.Fatal("a record older than the cool-down does not leave the breaker half-open (one probe)")
	}

	up.Store(true)
	probe := resilient.New(f, opts(time.Nanosecond, "cloud:a"))
	if err := probe.SaveHistory(ctx, &record.History{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a closed breaker left its record: %v", err)
	}
}

// countingMemory counts what a breaker asks of its memory.
type countingMemory struct{ loads, opened, closed atomic.Int32 }

func (m *countingMemory) Load() (time.Time, bool) { m.loads.Add(1); return time.Time{}, false }
func (m *countingMemory) Opened(time.Time)        { m.opened.Add(1) }
func (m *countingMemory) Closed()                 { m.closed.Add(1) }

// TestClosedBreakerLeavesMemoryAlone: with the breaker closed, calls that the backend answers
// (with a result or with an error retrying cannot fix) never touch the breaker's memory (a
// file in the data directory): it is read once, when the store is made, and written only when
// the breaker opens or closes.
func TestClosedBreakerLeavesMemoryAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reads, writes := &countingMemory{}, &countingMemory{}
	f := &fakeStore{fn: func(_ context.Context, call int) error {
		if call%2 == 0 {
			return store.ErrConflict
		}
		return nil
	}}
	s := resilient.New(f, fast(resilient.Options{ReadMemory: reads, WriteMemory: writes}))
	for range 10 {
		_ = s.SaveHistory(ctx, &record.History{})
		if _, err := s.ListHistories(ctx, store.HistoryQuery{}); err != nil {
			t.Fatal(err)
		}
	}
	for name, m := range map[string]*countingMemory{"read": reads, "write": writes} {
		if m.loads.Load() != 1 || m.opened.Load() != 0 || m.closed.Load() != 0 {
			t.Errorf("%s breaker's memory: %d loads, %d opened, %d closed; want 1 load only",
				name, m.loads.Load(), m.opened.Load(), m.closed.Load())
		}
	}
}

// BenchmarkDeadBackend is what a call costs against a backend that refuses every attempt: the
// budget (300 ms) with the breaker closed, next to nothing once it is open.
func BenchmarkDeadBackend(b *testing.B) {
	ctx := context.Background()
	refusing := &fakeStore{fn: func(context.Context, int) error { return refused }}
	b.Run("closed", func(b *testing.B) {
		for b.Loop() {
			s := resilient.New(refusing, fast(resilient.Options{Budget: 300 * time.Millisecond, Cooldown: time.Hour}))
			_ = s.SaveHistory(ctx, &record.History{})
		}
	})
	b.Run("open", func(b *testing.B) {
		s := resilient.New(refusing, fast(resilient.Options{Budget: 300 * time.Millisecond, Cooldown: time.Hour}))
		_ = s.SaveHistory(ctx, &record.History{})
		for b.Loop() {
			_ = s.SaveHistory(ctx, &record.History{})
		}
	})
}
