// Package alertcache keeps a local copy of the alerts a store returned, so that a command
// continuing a conversation reads its alert from disk instead of making one more sequential
// request to a distant backend.
//
// A copy never goes stale: the stores keep an alert unchanged once stored (PutAlert leaves an
// existing one untouched, and nothing updates or deletes alerts), and alert IDs are derived
// from the alert's content. Copies live under {dir}/alerts/{workspace}/, one 0600 file per
// alert named by a hash of its ID, written atomically; a missing or unreadable copy is read
// from the store again. Only what GetAlert returned is kept, exactly as returned.
//
// The copies are bounded (Limits): a read touches its copy, and a new copy past the bounds
// removes the least recently used ones, so the data dir does not grow with every alert ever
// continued.
//
// Where it sits: above the retries and circuit breaker (store/resilient), not below them. A
// copy answers without a request, so a continuation finds its alert during an outage as well
// (its turn is then kept in the spool), and a copy never counts for or against a breaker: below
// the retries, a hit would pass through the breaker, be refused while it is open and, as the
// half-open probe, close it without the backend having answered. A missing copy is read
// through the retries like any call. The workspace key's copy (tokenkey.CopyFirst) sits
// above them for the same reason.
package alertcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// next is the store below, embedded: every method but GetAlert goes to it as it is.
type next = store.Store

// Store is a store.Store whose GetAlert is answered from local copies when it can.
type Store struct {
	next
	dir    string
	limits Limits
}

var _ store.Store = (*Store)(nil)

// Limits bound the copies of one workspace; zero fields take the defaults.
type Limits struct {
	// Copies is how many alerts are kept (default 256).
	Copies int
	// Bytes is how much they may take together (default 64 MiB).
	Bytes int64
}

// Default limits: a few hundred alerts an analyst keeps coming back to.
const (
	DefaultCopies = 256
	DefaultBytes  = 64 << 20
)

// New wraps inner, a store of workspace, keeping copies under dataDir within the default
// limits.
func New(inner store.Store, dataDir, workspace string) *Store {
	return NewWithLimits(inner, dataDir, workspace, Limits{})
}

// NewWithLimits is New with limits of its own.
func NewWithLimits(inner store.Store, dataDir, workspace string, l Limits) *Store {
	if l.Copies <= 0 {
		l.Copies = DefaultCopies
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	return &Store{next: inner, dir: filepath.Join(dataDir, "alerts", workspace), limits: l}
}

func (s *Store) path(id record.AlertID) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:])+".json")
}

// copyOf is an alert as kept on disk. Data is kept as bytes, not as JSON, so it comes back
// exactly as the store returned it (encoding/json would compact it); the ID tells a foreign
// file apart.
type copyOf struct {
	ID        record.AlertID `json:"id"`
	Title     string         `json:"title"`
	Data      []byte         `json:"data"`
	CreatedAt time.Time      `json:"created_at"`
	Severity  string         `json:"severity,omitempty"`
	Source    string         `json:"source,omitempty"`
	Time      time.Time      `json:"time,omitzero"`
	// Facts is set on copies that carry the severity, source and time: a copy made before
	// alerts had them is read again from the store.
	Facts bool `json:"facts"`
}

// GetAlert returns the local copy of the alert, or reads it from the store and keeps a copy.
// A failure to keep the copy is not the caller's problem: the alert is returned.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	if a, ok := s.load(id); ok {
		return a, nil
	}
	a, err := s.next.GetAlert(ctx, id)
	if err != nil {
		return nil, err
	}
	_ = s.keep(a)
	return a, nil
}

func (s *Store) load(id record.AlertID) (*record.Alert, bool) {
	p := s.path(id)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	// Used now: the last to be evicted.
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	var c copyOf
	if err := json.Unmarshal(data, &c); err != nil || c.ID != id || !c.Facts {
		return nil, false
	}
	a := &record.Alert{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt, Severity: c.Severity, Source: c.Source, Time: c.Time}
	if c.Data != nil {
		a.Data = json.RawMessage(c.Data)
	}
	return a, true
}

func (s *Store) keep(a *record.Alert) error {
	data, err := json.Marshal(copyOf{ID: a.ID, Title: a.Title, Data: a.Data, CreatedAt: a.CreatedAt,
		Severity: a.Severity, Source: a.Source, Time: a.Time, Facts: true})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, s.path(a.ID)); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return s.evict()
}

// evict removes the least recently used copies until the rest fit the limits.
func (s *Store) evict() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	type kept struct {
		name string
		size int64
		used time.Time
	}
	var copies []kept
	var total int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		copies = append(copies, kept{e.Name(), info.Size(), info.ModTime()})
		total += info.Size()
	}
	if len(copies) <= s.limits.Copies && total <= s.limits.Bytes {
		return nil
	}
	sort.Slice(copies, func(i, j int) bool { return copies[i].used.Before(copies[j].used) })
	var errs []error
	for n := len(copies); n > 0 && (n > s.limits.Copies || total > s.limits.Bytes); n-- {
		c := copies[len(copies)-n]
		if err := os.Remove(filepath.Join(s.dir, c.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
		total -= c.size
	}
	return errors.Join(errs...)
}
