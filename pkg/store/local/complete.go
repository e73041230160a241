package local

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"

	"github.com/m-mizutani/goerr/v2"
)

// Completion candidates. A shell runs alertchat on every TAB, so this reads the database
// read-only and writes nothing: no schema, no migration, no file created where there is none
// (Open does all three).

// IDTitle is an ID and its title.
type IDTitle struct {
	ID    string
	Title string
}

// Kinds of RecentIDs.
const (
	KindHistories = "histories"
	KindAlerts    = "alerts"
)

// RecentIDs returns the workspace's most recent histories (by update) or alerts (by creation),
// at most limit, from the database in dir, opened read-only. No database is no IDs.
func RecentIDs(ctx context.Context, dir, workspace, kind string, limit int) ([]IDTitle, error) {
	path := filepath.Join(dir, DBFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout(200)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, goerr.Wrap(err, "failed to open local database", goerr.V("path", path))
	}
	defer db.Close()
	var query string
	switch kind {
	case KindHistories:
		query = `SELECT id, COALESCE(json_extract(meta, '$.title'), '') FROM histories
			WHERE workspace = ? ORDER BY updated_at DESC, id DESC LIMIT ?`
	case KindAlerts:
		query = `SELECT id, title FROM alerts WHERE workspace = ? ORDER BY created_at DESC, id DESC LIMIT ?`
	default:
		return nil, goerr.New("unknown kind", goerr.V("kind", kind))
	}
	rows, err := db.QueryContext(ctx, query, workspace, limit)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list IDs", goerr.V("kind", kind))
	}
	defer rows.Close()
	var out []IDTitle
	for rows.Next() {
		var it IDTitle
		if err := rows.Scan(&it.ID, &it.Title); err != nil {
			return nil, goerr.Wrap(err, "failed to read IDs", goerr.V("kind", kind))
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to read IDs", goerr.V("kind", kind))
	}
	return out, nil
}
