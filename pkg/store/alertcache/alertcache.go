// Package alertcache keeps a local copy of the alerts a store returned, so that a command
// continuing a conversation reads its alert from disk instead of making one more sequential
// request to a distant backend.
//
// A copy never goes stale: the stores keep an alert unchanged once stored (PutAlert leaves an
// existing one untouched, and nothing updates or deletes alerts), and alert IDs are derived
// from the alert's content. Copies live under {dir}/alerts/{workspace}/, one 0600 file per
// alert named by a hash of its ID, written atomically; a missing or unreadable copy is read
// from the store again. Only what GetAlert returned is kept, exactly as returned.
package alertcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Store is a store.Store whose GetAlert is answered from local copies when it can.
type Store struct {
	store.Store
	dir string
}

var _ store.Store = (*Store)(nil)

// New wraps inner, a store of workspace, keeping copies under dataDir.
func New(inner store.Store, dataDir, workspace string) *Store {
	return &Store{Store: inner, dir: filepath.Join(dataDir, "alerts", workspace)}
}

// Unwrap returns the wrapped store (for optional interfaces such as store.Checker).
func (s *Store) Unwrap() store.Store { return s.Store }

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
}

// GetAlert returns the local copy of the alert, or reads it from the store and keeps a copy.
// A failure to keep the copy is not the caller's problem: the alert is returned.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	if a, ok := s.load(id); ok {
		return a, nil
	}
	a, err := s.Store.GetAlert(ctx, id)
	if err != nil {
		return nil, err
	}
	_ = s.keep(a)
	return a, nil
}

func (s *Store) load(id record.AlertID) (*record.Alert, bool) {
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil, false
	}
	var c copyOf
	if err := json.Unmarshal(data, &c); err != nil || c.ID != id {
		return nil, false
	}
	a := &record.Alert{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt}
	if c.Data != nil {
		a.Data = json.RawMessage(c.Data)
	}
	return a, true
}

func (s *Store) keep(a *record.Alert) error {
	data, err := json.Marshal(copyOf{ID: a.ID, Title: a.Title, Data: a.Data, CreatedAt: a.CreatedAt})
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
	return nil
}
