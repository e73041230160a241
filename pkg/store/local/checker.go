package local

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.Checker = (*Store)(nil)

// ListObjects implements store.Checker: the files of {dir}/{prefix}histories/.
func (s *Store) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	entries, err := os.ReadDir(s.historyDir())
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list transcript files", goerr.V("dir", s.historyDir()))
	}
	keyDir := path.Dir(store.ObjectKey(s.prefix, "x")) + "/"
	var out []store.ObjectInfo
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		o := store.ObjectInfo{Key: keyDir + e.Name(), Size: info.Size(), Updated: info.ModTime().UTC()}
		name := e.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-"):
			o.Temp = true
		case strings.HasSuffix(name, ".json") && store.ValidHistoryID(record.HistoryID(strings.TrimSuffix(name, ".json"))):
			o.ID = record.HistoryID(strings.TrimSuffix(name, ".json"))
		}
		out = append(out, o)
	}
	return out, nil
}

// ListHistoryIDs implements store.Checker.
func (s *Store) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	return queryIDs[record.HistoryID](ctx, s.db, "list history IDs",
		`SELECT id FROM histories WHERE workspace = ? ORDER BY id`, s.workspace)
}

// MetadataExists implements store.Checker.
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM histories WHERE id = ?`, string(id)).Scan(&n); err != nil {
		return false, goerr.Wrap(err, "failed to look up history", goerr.V("history_id", id))
	}
	return n > 0, nil
}

// keyPath maps an object key of this store to its file, refusing keys outside the data
// directory.
func (s *Store) keyPath(key string) (string, error) {
	clean := path.Clean(key)
	if key == "" || clean != key || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") || clean == ".." {
		return "", goerr.Wrap(store.ErrInvalid, "invalid object key", goerr.V("key", key))
	}
	return filepath.Join(s.dir, filepath.FromSlash(clean)), nil
}

// ReadObject implements store.Checker.
func (s *Store) ReadObject(ctx context.Context, key string) ([]byte, error) {
	p, err := s.keyPath(key)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, goerr.Wrap(store.ErrNotFound, "object not found", goerr.V("key", key))
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read object", goerr.V("key", key))
	}
	return data, nil
}

// MoveAside implements store.Checker: the file moves to {dir}/{prefix}lost+found/; a
// temporary file is removed.
func (s *Store) MoveAside(ctx context.Context, key string) (string, error) {
	p, err := s.keyPath(key)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(path.Base(key), ".tmp-") {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", goerr.Wrap(err, "failed to remove temporary file", goerr.V("key", key))
		}
		return "", nil
	}
	dest := store.UniqueLostAndFoundKey(s.prefix, path.Base(key))
	dp, err := s.keyPath(dest)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dp), 0o700); err != nil {
		return "", goerr.Wrap(err, "failed to create lost+found", goerr.V("dir", filepath.Dir(dp)))
	}
	if err := os.Rename(p, dp); err != nil {
		return "", goerr.Wrap(err, "failed to move object aside", goerr.V("key", key), goerr.V("dest", dest))
	}
	return dest, nil
}

// DropMetadata implements store.Checker: the row's metadata, with reason, is written to
// {dir}/{prefix}lost+found/{id}.{time}.meta.json, then the row is deleted.
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", goerr.Wrap(err, "failed to begin repair", goerr.V("history_id", id))
	}
	defer func() { _ = tx.Rollback() }()
	var meta string
	err = tx.QueryRowContext(ctx, `SELECT meta FROM histories WHERE id = ? AND workspace = ?`, string(id), s.workspace).Scan(&meta)
	if errors.Is(err, sql.ErrNoRows) {
		return "", notFound(id)
	}
	if err != nil {
		return "", goerr.Wrap(err, "failed to read history metadata", goerr.V("history_id", id))
	}
	lost := store.LostMetadata{Reason: reason, Workspace: s.workspace, Raw: rawIfInvalid(meta)}
	if json.Valid([]byte(meta)) {
		lost.Metadata = json.RawMessage(meta)
	}
	record, err := lost.Encode()
	if err != nil {
		return "", goerr.Wrap(err, "failed to keep the metadata", goerr.V("history_id", id))
	}
	dest := store.UniqueLostAndFoundKey(s.prefix, string(id)+".meta.json")
	dp, err := s.keyPath(dest)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dp), 0o700); err != nil {
		return "", goerr.Wrap(err, "failed to create lost+found", goerr.V("dir", filepath.Dir(dp)))
	}
	tmp, err := writeTemp(filepath.Dir(dp), func(w io.Writer) error { _, err := w.Write(record); return err })
	if err != nil {
		return "", goerr.Wrap(err, "failed to write metadata copy", goerr.V("history_id", id))
	}
	if err := os.Rename(tmp, dp); err != nil {
		_ = os.Remove(tmp)
		return "", goerr.Wrap(err, "failed to write metadata copy", goerr.V("history_id", id))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM histories WHERE id = ? AND workspace = ?`, string(id), s.workspace); err != nil {
		return "", goerr.Wrap(err, "failed to delete history metadata", goerr.V("history_id", id))
	}
	if err := tx.Commit(); err != nil {
		return "", goerr.Wrap(err, "failed to delete history metadata", goerr.V("history_id", id))
	}
	return dest, nil
}

func rawIfInvalid(s string) string {
	if json.Valid([]byte(s)) {
		return ""
	}
	return s
}

// queryIDs runs a query selecting one ID column; what names it in errors.
func queryIDs[ID ~string](ctx context.Context, db *sql.DB, what, query string, args ...any) ([]ID, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to "+what)
	}
	defer rows.Close()
	var ids []ID
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, goerr.Wrap(err, "failed to read a row", goerr.V("query", what))
		}
		ids = append(ids, ID(id))
	}
	return ids, rows.Err()
}
