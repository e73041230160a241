package local

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/m-mizutani/goerr/v2"
)

// WorkspaceKeyLen is the length of a generated workspace key.
const WorkspaceKeyLen = 32

// keySchema holds the secret key of each workspace, from which redaction tokens are derived.
// It lives in the same database as the workspace's records (0600, see Open): whoever can read
// the histories can read the key, and a copy of the data directory keeps its tokens.
const keySchema = `
CREATE TABLE IF NOT EXISTS workspace_keys (
	workspace  TEXT PRIMARY KEY,
	key        BLOB NOT NULL,
	created_at INTEGER NOT NULL
);
`

// WorkspaceKey returns the workspace's secret token key, creating a random one on first use.
// Processes racing on a new workspace all get the key of the first insert: the insert and the
// read run in one transaction under the database's write lock.
func (s *Store) WorkspaceKey(ctx context.Context) ([]byte, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to begin workspace key transaction", goerr.V("workspace", s.workspace))
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, keySchema); err != nil {
		return nil, goerr.Wrap(err, "failed to create the workspace key table")
	}
	fresh := make([]byte, WorkspaceKeyLen)
	if _, err := rand.Read(fresh); err != nil {
		return nil, goerr.Wrap(err, "failed to generate a workspace key")
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO workspace_keys (workspace, key, created_at) VALUES (?, ?, ?)`,
		s.workspace, fresh, micros(time.Now())); err != nil {
		return nil, goerr.Wrap(err, "failed to store a workspace key", goerr.V("workspace", s.workspace))
	}
	var key []byte
	if err := tx.QueryRowContext(ctx, `SELECT key FROM workspace_keys WHERE workspace = ?`, s.workspace).Scan(&key); err != nil {
		return nil, goerr.Wrap(err, "failed to read the workspace key", goerr.V("workspace", s.workspace))
	}
	if err := tx.Commit(); err != nil {
		return nil, goerr.Wrap(err, "failed to commit the workspace key", goerr.V("workspace", s.workspace))
	}
	if len(key) < WorkspaceKeyLen/2 {
		return nil, goerr.New("the stored workspace key is too short", goerr.V("workspace", s.workspace), goerr.V("length", len(key)))
	}
	return key, nil
}
