// Package outage remembers, across commands, that a store backend was found down.
//
// A one-shot command that finds the backend down (its call ran out of --store-timeout, or the
// circuit breaker opened) calls MarkDown; the next commands see Down for a short while and
// spool at once instead of each waiting the full timeout again. The mark is a small file in
// the data directory, written atomically; it expires on its own, and any command that reaches
// the backend clears it. A missing, expired, unreadable or implausible mark means "not down":
// the mark can only ever save time, never keep a working backend from being used for long.
//
// Guard applies a Marker to a store: wrap the resilient store of a command with it.
package outage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/m-mizutani/goerr/v2"
)

// MaxDown bounds how far ahead a mark may reach: a mark further in the future (a clock that
// jumped back, a hand-edited file) is ignored.
const MaxDown = 10 * time.Minute

// Marker is the down mark of one backend in one data directory. It is safe for concurrent
// use by several processes: each write replaces the file whole.
type Marker struct {
	path string
	now  func() time.Time
}

// Option configures a Marker.
type Option func(*Marker)

// WithClock replaces time.Now (tests).
func WithClock(now func() time.Time) Option { return func(m *Marker) { m.now = now } }

// NewMarker returns the marker of the backend named by key (for instance
// "cloud/{project}/{database}/{bucket}/{prefix}/{workspace}") in dir. Different keys are
// different files, so a mark about one backend never stops another.
func NewMarker(dir, key string, opts ...Option) *Marker {
	sum := sha256.Sum256([]byte(key))
	m := &Marker{path: filepath.Join(dir, "store-down-"+hex.EncodeToString(sum[:8])+".json"), now: time.Now}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Path is the mark's file.
func (m *Marker) Path() string { return m.path }

type mark struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// MarkDown records that the backend is down for the next d (at most MaxDown).
func (m *Marker) MarkDown(d time.Duration) error {
	now := m.now().UTC()
	d = min(d, MaxDown)
	if d <= 0 {
		return m.Clear()
	}
	data, err := json.Marshal(mark{Since: now, Until: now.Add(d)})
	if err != nil {
		return goerr.Wrap(err, "failed to encode the store outage mark")
	}
	dir := filepath.Dir(m.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return goerr.Wrap(err, "failed to create the data directory", goerr.V("dir", dir))
	}
	f, err := os.CreateTemp(dir, ".store-down-*")
	if err != nil {
		return goerr.Wrap(err, "failed to write the store outage mark", goerr.V("dir", dir))
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp)
		return goerr.Wrap(err, "failed to write the store outage mark", goerr.V("path", tmp))
	}
	if err := os.Rename(tmp, m.path); err != nil {
		_ = os.Remove(tmp)
		return goerr.Wrap(err, "failed to write the store outage mark", goerr.V("path", m.path))
	}
	return nil
}

// Down reports whether a mark says the backend is down now, and until when.
func (m *Marker) Down() (until time.Time, down bool) {
	data, err := os.ReadFile(m.path)
	if err != nil {
		return time.Time{}, false
	}
	var mk mark
	if err := json.Unmarshal(data, &mk); err != nil {
		return time.Time{}, false
	}
	now := m.now()
	if !now.Before(mk.Until) || mk.Until.Sub(now) > MaxDown || mk.Since.After(now) {
		return time.Time{}, false
	}
	return mk.Until, true
}

// Clear removes the mark: the backend answered.
func (m *Marker) Clear() error {
	if err := os.Remove(m.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return goerr.Wrap(err, "failed to remove the store outage mark", goerr.V("path", m.path))
	}
	return nil
}
