// Package resilient wraps a store.Store so that a flaky backend is retried and a dead one
// fails fast.
//
// It implements every method of store.Store (methods.go), so nothing reaches the backend
// around it. Every call is retried on transient errors (IsTransient: network errors, timeouts, HTTP 408,
// 429 and 5xx, gRPC Unavailable and the like) with exponential backoff and jitter, each attempt
// bounded by Options.AttemptTimeout and the whole call by Options.Budget (10 s by default).
// Errors that retrying cannot fix (store.ErrConflict, ErrNotFound, ErrInvalid, ErrNoSpace,
// a corrupt transcript, a refused permission, ...) are returned at once.
//
// Circuit breakers keep a dead backend from costing a full budget on every call: after
// Options.Threshold consecutive failed attempts, or a call that spent its whole budget
// failing, a breaker opens and every call it guards fails at once with ErrUnavailable (itself
// transient) for Options.Cooldown. Then it half-opens: one call goes through, with a single
// attempt; its success closes the breaker, its failure opens it again. A call already
// retrying when its breaker opens finishes its own retries.
//
// How each method runs is its row of the contract table (store.Contract): reads and writes are
// retried, the two repairs of history fsck (MoveAside, DropMetadata) are tried once (a retry
// could not tell its own lost success from a missing object), WorkspaceKey, which creates the
// key on a workspace's first use, runs as a read (the table says why), and methods that make
// no request pass through.
//
// Writes (saves, deletes, alerts added, embeddings, batch records, repairs) and reads have a
// breaker each: a backend is often two
// services (Firestore and Cloud Storage), and an outage of the one that takes transcripts
// must not stop listings, which only need the other.
//
// A breaker's open state can outlive the process (Options.ReadMemory, Options.WriteMemory, see
// FileMemory): one-shot commands run one after another, and without it each would pay the dead
// backend's full budget again before keeping its turn locally.
package resilient

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/retry"
	"github.com/alertchat/alertchat/pkg/store"
)

// ErrUnavailable is returned without calling the backend while the breaker is open.
var ErrUnavailable = errors.New("storage backend unavailable")

// Defaults of Options.
const (
	DefaultBudget         = 10 * time.Second
	DefaultAttemptTimeout = 5 * time.Second
	DefaultBaseDelay      = 200 * time.Millisecond
	DefaultMaxDelay       = 2 * time.Second
	DefaultThreshold      = 3
	DefaultCooldown       = 30 * time.Second
)

// Options tune the retries and the breaker; zero values take the defaults.
type Options struct {
	// Budget bounds one call, retries included.
	Budget time.Duration
	// AttemptTimeout bounds one attempt (never beyond the call's budget); by default the
	// smaller of DefaultAttemptTimeout and half the budget.
	AttemptTimeout time.Duration
	// BaseDelay is the first backoff ceiling; it doubles up to MaxDelay. Each wait is drawn at
	// random below the ceiling (full jitter, pkg/retry).
	BaseDelay, MaxDelay time.Duration
	// Threshold is how many consecutive failed attempts open the breaker.
	Threshold int
	// Cooldown is how long the breaker stays open before letting one call through.
	Cooldown time.Duration
	// OnStateChange, when set, is told when the breaker opens, half-opens or closes.
	OnStateChange func(from, to State)
	// ReadMemory and WriteMemory, when set, keep each breaker's open state across processes:
	// a breaker starts open when its memory says it is, until Cooldown after it opened.
	ReadMemory, WriteMemory Memory
	// Now is the breakers' clock (when they opened, when the cool-down ends); default time.Now.
	// Retries wait in real time whatever it says.
	Now func() time.Time
}

// Memory keeps a breaker's open state beyond the process.
type Memory interface {
	// Load returns when the breaker last opened, if it is open.
	Load() (openedAt time.Time, open bool)
	// Opened records that the breaker opened at openedAt.
	Opened(openedAt time.Time)
	// Closed records that the breaker closed.
	Closed()
}

// AttemptTimeout is the time one attempt gets by default within a call's budget (DefaultBudget
// when budget is zero): at least two attempts fit, so one slow answer is not the end.
func AttemptTimeout(budget time.Duration) time.Duration {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return min(DefaultAttemptTimeout, budget/2)
}

func (o *Options) defaults() {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = AttemptTimeout(o.Budget)
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Cooldown <= 0 {
		o.Cooldown = DefaultCooldown
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is a store.Store with retries and a circuit breaker. It is safe for concurrent use.
type Store struct {
	inner  store.Store
	o      Options
	reads  *Breaker
	writes *Breaker
}

var _ store.Store = (*Store)(nil)

// New wraps inner.
func New(inner store.Store, o Options) *Store {
	o.defaults()
	return &Store{inner: inner, o: o,
		reads:  newBreaker(o.Threshold, o.Cooldown, o.OnStateChange, o.ReadMemory, o.Now),
		writes: newBreaker(o.Threshold, o.Cooldown, o.OnStateChange, o.WriteMemory, o.Now)}
}

// ReadBreaker and WriteBreaker return the store's circuit breakers.
func (s *Store) ReadBreaker() *Breaker { return s.reads }

// WriteBreaker returns the breaker of saves, deletes and added alerts.
func (s *Store) WriteBreaker() *Breaker { return s.writes }

// rows are the contract table's rows by name: how each method of store.Store is run.
var rows = func() map[string]store.Method {
	out := map[string]store.Method{}
	for _, m := range store.Contract() {
		out[m.Name] = m
	}
	return out
}()

// do runs fn as the row of the method called name says: under its kind's breaker, with retries
// unless it is store.KindOnce, named by its op in errors. A name without a row is a mistake in
// this package (the conformance test calls every method), not a condition to handle.
func (s *Store) do(ctx context.Context, name string, fn func(ctx context.Context, attempt int) error) error {
	m, ok := rows[name]
	if !ok || m.Kind == store.KindLocal {
		panic("resilient: " + name + " is not a method of store.Store that makes requests")
	}
	k, op := m.Kind, m.Op
	br := s.reads
	if k != store.KindRead {
		br = s.writes
	}
	probe, err := br.allow()
	if err != nil {
		return goerr.Wrap(err, "storage "+op+" not attempted", goerr.V("op", op))
	}
	deadline := time.Now().Add(s.o.Budget)
	for attempt := 1; ; attempt++ {
		remaining := time.Until(deadline)
		// The attempt's deadline costs a timer. It also makes database/sql and the SQLite driver
		// watch the context with a goroutine per query, as they do for any context that can be
		// cancelled: commands' contexts can (main.go), so they pay that with or without this
		// layer (BenchmarkStack).
		actx, cancel := context.WithTimeout(ctx, min(s.o.AttemptTimeout, remaining))
		err := fn(actx, attempt)
		timedOut := actx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			br.success()
			return nil
		case ctx.Err() != nil:
			br.release(probe)
			return err // the caller gave up: says nothing about the backend
		case !timedOut && !IsTransient(err):
			br.success() // the backend answered
			return err
		}
		br.failure()
		if k == store.KindOnce {
			if probe {
				br.trip()
			}
			return goerr.Wrap(err, "storage "+op+" failed", goerr.V("op", op), goerr.V("attempts", attempt), goerr.V("transient", true))
		}
		delay := retry.Backoff(s.o.BaseDelay, s.o.MaxDelay, attempt, rand.Float64())
		if probe || time.Until(deadline) < delay+s.o.BaseDelay {
			br.trip()
			return goerr.Wrap(err, "storage "+op+" failed", goerr.V("op", op), goerr.V("attempts", attempt), goerr.V("transient", true))
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// Close implements store.Store.
func (s *Store) Close() error { return s.inner.Close() }

// State is a breaker's state.
type State int

// Breaker states.
const (
	Closed State = iota
	Open
	HalfOpen
)

func (s State) String() string {
	switch s {
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return "closed"
}

// Breaker is a circuit breaker counting consecutive failed attempts.
type Breaker struct {
	threshold int
	cooldown  time.Duration
	onChange  func(from, to State)
	memory    Memory
	now       func() time.Time

	mu       sync.Mutex
	state    State
	failures int
	openedAt time.Time
	probing  bool
}

// newBreaker returns a breaker that starts where memory left it (open, or half-open once the
// cool-down has passed: its first call is the probe), and tells memory when it opens and
// closes.
func newBreaker(threshold int, cooldown time.Duration, onChange func(from, to State), memory Memory, now func() time.Time) *Breaker {
	b := &Breaker{threshold: max(threshold, 1), cooldown: cooldown, onChange: onChange, memory: memory, now: now}
	if memory != nil {
		if at, open := memory.Load(); open {
			b.state, b.openedAt = Open, at
		}
	}
	return b
}

// State returns the breaker's state now.
func (b *Breaker) State() State {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && b.now().Sub(b.openedAt) >= b.cooldown {
		return HalfOpen
	}
	return b.state
}

func (b *Breaker) set(to State) {
	from := b.state
	b.state = to
	if b.memory != nil {
		switch {
		case to == Open:
			b.memory.Opened(b.openedAt)
		case to == Closed && from != Closed:
			b.memory.Closed()
		}
	}
	if from != to && b.onChange != nil {
		b.onChange(from, to)
	}
}

// allow lets a call through, reporting whether it is the half-open probe, or refuses it.
func (b *Breaker) allow() (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Closed:
		return false, nil
	case Open:
		wait := b.cooldown - b.now().Sub(b.openedAt)
		if wait > 0 {
			return false, goerr.Wrap(ErrUnavailable, "storage backend unavailable: recent attempts failed, next try in "+wait.Round(time.Second).String(),
				goerr.V("retry_in", wait.Round(time.Millisecond).String()))
		}
		b.set(HalfOpen)
	}
	if b.probing {
		return false, goerr.Wrap(ErrUnavailable, "storage backend unavailable: checking whether it is back")
	}
	b.probing = true
	return true, nil
}

func (b *Breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures, b.probing = 0, false
	b.set(Closed)
}

func (b *Breaker) failure() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	if b.failures >= b.threshold && b.state == Closed {
		b.openedAt = b.now()
		b.set(Open)
	}
}

// trip opens the breaker now (a call spent its budget failing, or the probe failed).
func (b *Breaker) trip() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	b.openedAt = b.now()
	b.set(Open)
}

// release ends a probe that was abandoned by its caller.
func (b *Breaker) release(probe bool) {
	if !probe {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
}
