// Package local is the embedded store: records in a SQLite database (pure Go) and transcripts
// as JSON files under the data directory, with the same key layout as Cloud Storage. It is safe
// for several processes at once: SQLite's write lock serialises saves, and each transcript file
// is replaced atomically (temp file, fsync, rename) while that lock is held.
package local

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// DBFile is the database's file name inside the data directory.
const DBFile = "alertchat.db"

// Options configure Open.
type Options struct {
	Dir       string // data directory; created 0700 when missing
	Prefix    string // object key prefix, as in Cloud Storage
	Workspace string
	// Calls, when set, counts the store's work: "sqlite.query" (one statement), "sqlite.tx" (a
	// transaction), "file.read" and "file.write" (a transcript file).
	Calls *store.CallCounter
}

// Store is a store.Store on the local file system.
type Store struct {
	db        *sql.DB
	dir       string
	prefix    string
	workspace string
	calls     *store.CallCounter
	// noIndex leaves the search index alone (benchmarks measure what it costs).
	noIndex bool
	// stmts are the search index's prepared statements (search.go).
	stmts searchStmts
}

var _ store.Store = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS histories (
	id         TEXT PRIMARY KEY,
	workspace  TEXT NOT NULL,
	alert_id   TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	revision   INTEGER NOT NULL,
	meta       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS histories_by_update ON histories (workspace, updated_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS histories_by_alert ON histories (workspace, alert_id, updated_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS alerts (
	workspace  TEXT NOT NULL,
	id         TEXT NOT NULL,
	title      TEXT NOT NULL,
	data       BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (workspace, id)
);
CREATE INDEX IF NOT EXISTS alerts_by_creation ON alerts (workspace, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS batch_jobs (
	workspace    TEXT NOT NULL,
	id           TEXT NOT NULL,
	model        TEXT NOT NULL,
	input_sha256 TEXT NOT NULL,
	state        TEXT NOT NULL,
	requests     INTEGER NOT NULL,
	succeeded    INTEGER NOT NULL,
	failed       INTEGER NOT NULL,
	collected    INTEGER NOT NULL,
	created_at   INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL,
	input_file   TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (workspace, id)
);
CREATE INDEX IF NOT EXISTS batch_jobs_by_input ON batch_jobs (workspace, input_sha256, model, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS batch_jobs_by_creation ON batch_jobs (workspace, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS batch_reservations (
	workspace    TEXT NOT NULL,
	model        TEXT NOT NULL,
	input_sha256 TEXT NOT NULL,
	owner        TEXT NOT NULL,
	beat         INTEGER NOT NULL,
	job          TEXT NOT NULL,
	ended        INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL,
	PRIMARY KEY (workspace, model, input_sha256)
);
`

// Open opens (creating when needed) the store in o.Dir.
func Open(ctx context.Context, o Options) (*Store, error) {
	if !store.ValidWorkspace(o.Workspace) {
		return nil, goerr.Wrap(store.ErrInvalid, "invalid workspace name", goerr.V("workspace", o.Workspace))
	}
	if o.Dir == "" {
		return nil, goerr.Wrap(store.ErrInvalid, "no data directory given")
	}
	if strings.Contains(o.Prefix, "..") || strings.HasPrefix(o.Prefix, "/") {
		return nil, goerr.Wrap(store.ErrInvalid, "invalid object prefix", goerr.V("prefix", o.Prefix))
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, goerr.Wrap(err, "failed to create data directory", goerr.V("dir", o.Dir))
	}
	s := &Store{dir: o.Dir, prefix: o.Prefix, workspace: o.Workspace, calls: o.Calls}
	if err := os.MkdirAll(s.historyDir(), 0o700); err != nil {
		return nil, goerr.Wrap(err, "failed to create history directory", goerr.V("dir", s.historyDir()))
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(15000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	dbPath := filepath.Join(o.Dir, DBFile)
	db, err := sql.Open("sqlite", "file:"+dbPath+"?"+q.Encode())
	if err != nil {
		return nil, goerr.Wrap(err, "failed to open local database", goerr.V("path", dbPath))
	}
	if err := createSchema(ctx, db); err != nil {
		_ = db.Close()
		return nil, goerr.Wrap(err, "failed to initialise local database", goerr.V("path", dbPath))
	}
	// The database and its WAL hold analysts' data: owner only.
	for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			_ = db.Close()
			return nil, goerr.Wrap(err, "failed to restrict database permissions", goerr.V("path", p))
		}
	}
	s.db = db
	return s, nil
}

func createSchema(ctx context.Context, db *sql.DB) error {
	// Two processes opening a new store at once both run this; the write lock makes it safe.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, schema+searchSchema+knowledgeSchema); err != nil {
		return err
	}
	if err := migrateSearch(ctx, tx); err != nil {
		return err
	}
	if err := migrateVerdicts(ctx, tx); err != nil {
		return err
	}
	if err := migrateBatchJobs(ctx, tx); err != nil {
		return err
	}
	if err := addAlertFacts(ctx, tx); err != nil {
		return err
	}
	if err := addAlertStatus(ctx, tx); err != nil {
		return err
	}
	if err := createAlertIndex(ctx, tx); err != nil {
		return err
	}
	if err := addAlertTriage(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Dir is the data directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) historyDir() string {
	return filepath.Dir(s.objectPath("x"))
}

// objectPath is where the transcript object of id lives: {dir}/{prefix}histories/{id}.json.
func (s *Store) objectPath(id record.HistoryID) string {
	return filepath.Join(s.dir, filepath.FromSlash(store.ObjectKey(s.prefix, id)))
}

func micros(t time.Time) int64 { return t.UnixMicro() }

// GetHistoryMeta implements store.Histories.
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	if !store.ValidHistoryID(id) {
		return nil, notFound(id)
	}
	var meta string
	s.calls.Add("sqlite.query")
	err := s.db.QueryRowContext(ctx, `SELECT meta FROM histories WHERE id = ? AND workspace = ?`, string(id), s.workspace).Scan(&meta)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read history metadata", goerr.V("history_id", id))
	}
	return decodeMeta(id, meta)
}

func notFound(id record.HistoryID) error {
	return goerr.Wrap(store.ErrNotFound, "history not found", goerr.V("history_id", id))
}

func decodeMeta(id record.HistoryID, meta string) (*record.History, error) {
	var h record.History
	if err := json.Unmarshal([]byte(meta), &h); err != nil {
		return nil, goerr.Wrap(err, "corrupt metadata of history "+string(id), goerr.V("history_id", id))
	}
	h.ContentVersion = h.Revision
	return &h, nil
}

// GetHistory implements store.Histories.
func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	h, err := s.GetHistoryMeta(ctx, id)
	if err != nil {
		return nil, err
	}
	s.calls.Add("file.read")
	data, err := os.ReadFile(s.objectPath(id))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read transcript of history "+string(id), goerr.V("history_id", id))
	}
	h.Contents, err = store.DecodeTranscript(id, data)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// SaveHistory implements store.Histories: the transcript file is written and synced first, then,
// under the database's write lock, the revision is checked, the file renamed into place and the
// metadata row written.
//
// Until the metadata commits, the transcript it describes stays reachable (a hard link next to
// it): a failed commit puts it back, so a failed save changes nothing. A crash between the
// rename and the commit leaves the new transcript under the old metadata (content ahead of
// metadata: every turn kept, nothing missing) and the link as a leftover temporary file, or,
// for a new history, a transcript without metadata; `alertchat history fsck` finds both.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	if !store.ValidHistoryID(h.ID) {
		return goerr.Wrap(store.ErrInvalid, "invalid history ID", goerr.V("history_id", h.ID))
	}
	s.calls.Add("file.write")
	tmp, err := writeTemp(s.historyDir(), func(w io.Writer) error { return store.WriteTranscript(w, h.Contents) })
	if err != nil {
		if isNoSpace(err) {
			return s.noSpace(h.ID, err)
		}
		return goerr.Wrap(err, "failed to write transcript", goerr.V("history_id", h.ID))
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = os.Remove(tmp)
		}
	}()

	meta := *h.Meta()
	meta.Workspace = s.workspace
	meta.Revision = h.Revision + 1
	if meta.CreatedAt.IsZero() {
		meta.CreatedAt = store.Now()
	}
	if meta.UpdatedAt.IsZero() {
		meta.UpdatedAt = store.Now()
	}
	meta.CreatedAt = meta.CreatedAt.UTC().Truncate(time.Microsecond)
	meta.UpdatedAt = meta.UpdatedAt.UTC().Truncate(time.Microsecond)
	metaJSON, err := json.Marshal(&meta)
	if err != nil {
		return goerr.Wrap(err, "failed to encode history metadata", goerr.V("history_id", h.ID))
	}

	// The transaction holds the write lock while the transcript file changes: it must not be
	// rolled back (and the lock released) behind this function's back when ctx ends, so it
	// runs without ctx's cancellation, and ctx is checked before the point of no return.
	txCtx := context.WithoutCancel(ctx)
	s.calls.Add("sqlite.tx")
	tx, err := s.db.BeginTx(txCtx, nil)
	if err != nil {
		return goerr.Wrap(err, "failed to begin save", goerr.V("history_id", h.ID))
	}
	defer func() { _ = tx.Rollback() }()

	var ws string
	var rev int64
	err = tx.QueryRowContext(txCtx, `SELECT workspace, revision FROM histories WHERE id = ?`, string(h.ID)).Scan(&ws, &rev)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if h.Revision != 0 {
			return notFound(h.ID)
		}
	case err != nil:
		return goerr.Wrap(err, "failed to read history revision", goerr.V("history_id", h.ID))
	case h.Revision == 0:
		return goerr.Wrap(store.ErrConflict, "history already exists", goerr.V("history_id", h.ID))
	case ws != s.workspace:
		return notFound(h.ID)
	case rev != h.Revision:
		return goerr.Wrap(store.ErrConflict, "history was saved by another writer",
			goerr.V("history_id", h.ID), goerr.V("loaded_revision", h.Revision), goerr.V("stored_revision", rev))
	}

	if err := ctx.Err(); err != nil {
		return goerr.Wrap(err, "save abandoned", goerr.V("history_id", h.ID))
	}
	obj := s.objectPath(h.ID)
	prev, existed := tmp+".prev", true // the transcript the stored metadata describes, until the commit
	switch err := os.Link(obj, prev); {
	case err == nil:
	case errors.Is(err, os.ErrNotExist):
		prev, existed = "", false
	case isNoSpace(err):
		return s.noSpace(h.ID, err)
	default:
		prev = "" // no hard links here: a failed commit leaves the content ahead of its metadata
	}
	if err := os.Rename(tmp, obj); err != nil {
		if prev != "" {
			_ = os.Remove(prev)
		}
		return goerr.Wrap(err, "failed to move transcript into place", goerr.V("history_id", h.ID))
	}
	renamed = true
	if err := s.commitMeta(txCtx, tx, h, &meta, metaJSON); err != nil {
		// Still under the write lock: put back what the stored metadata describes.
		switch {
		case prev != "":
			_ = os.Rename(prev, obj)
		case !existed:
			_ = os.Remove(obj)
		}
		return err
	}
	if prev != "" {
		_ = os.Remove(prev)
	}
	h.Workspace = meta.Workspace
	h.Revision = meta.Revision
	h.ContentVersion = meta.Revision
	h.CreatedAt, h.UpdatedAt = meta.CreatedAt, meta.UpdatedAt
	return nil
}

// commitMeta makes the renamed transcript durable and commits its metadata.
func (s *Store) commitMeta(ctx context.Context, tx *sql.Tx, h, meta *record.History, metaJSON []byte) error {
	if err := syncDir(s.historyDir()); err != nil {
		return goerr.Wrap(err, "failed to sync history directory", goerr.V("history_id", h.ID))
	}
	var err error
	verdict, resolvedAt := resolutionColumns(meta)
	if h.Revision == 0 {
		_, err = tx.ExecContext(ctx, `INSERT INTO histories (id, workspace, alert_id, updated_at, revision, meta, verdict, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			string(h.ID), s.workspace, string(meta.AlertID), micros(meta.UpdatedAt), meta.Revision, string(metaJSON), verdict, resolvedAt)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE histories SET alert_id = ?, updated_at = ?, revision = ?, meta = ?, verdict = ?, resolved_at = ? WHERE id = ? AND revision = ?`,
			string(meta.AlertID), micros(meta.UpdatedAt), meta.Revision, string(metaJSON), verdict, resolvedAt, string(h.ID), h.Revision)
	}
	if err == nil {
		err = s.writeAnalystsTx(ctx, tx, meta)
	}
	if err != nil {
		if isNoSpace(err) {
			return s.noSpace(h.ID, err)
		}
		return goerr.Wrap(err, "failed to write history metadata", goerr.V("history_id", h.ID))
	}
	if err := s.indexTx(ctx, tx, h, meta); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		if isNoSpace(err) {
			return s.noSpace(h.ID, err)
		}
		return goerr.Wrap(err, "failed to commit history metadata", goerr.V("history_id", h.ID))
	}
	return nil
}

// noSpace is the error of a save refused by a full disk.
func (s *Store) noSpace(id record.HistoryID, cause error) error {
	return goerr.Wrap(store.ErrNoSpace, "no space left on the device of "+s.dir+" to save history "+string(id)+
		"; free some space and try again (the previous transcript is intact)",
		goerr.V("history_id", id), goerr.V("dir", s.dir), goerr.V("cause", cause.Error()))
}

// DeleteHistory implements store.Histories. Metadata goes first, so it never points at a
// missing transcript; a transcript left behind by a crash is an orphan for fsck.
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	if !store.ValidHistoryID(id) {
		return notFound(id)
	}
	s.calls.Add("sqlite.query")
	res, err := s.db.ExecContext(ctx, `DELETE FROM histories WHERE id = ? AND workspace = ?`, string(id), s.workspace)
	if err != nil {
		return goerr.Wrap(err, "failed to delete history metadata", goerr.V("history_id", id))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound(id)
	}
	if err := os.Remove(s.objectPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return goerr.Wrap(err, "failed to delete transcript", goerr.V("history_id", id))
	}
	return nil
}

// ListHistories implements store.Histories with an indexed, limited query per page.
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	limit := store.ClampLimit(q.Limit)
	var sb strings.Builder
	sel := s.selectHistories(q, false)
	args := sel.args
	sb.WriteString(`SELECT h.id, h.meta` + sel.from)
	if q.Cursor != "" {
		t, id, err := store.DecodeCursor(q.Cursor)
		if err != nil {
			return nil, err
		}
		sb.WriteString(` AND (` + sel.updatedAt + ` < ? OR (` + sel.updatedAt + ` = ? AND ` + sel.rowID + ` < ?))`)
		args = append(args, micros(t), micros(t), id)
	}
	sb.WriteString(` ORDER BY ` + sel.updatedAt + ` DESC, ` + sel.rowID + ` DESC LIMIT ?`)
	args = append(args, limit+1)
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list histories")
	}
	defer rows.Close()
	page := &store.HistoryPage{}
	for rows.Next() {
		var id, meta string
		if err := rows.Scan(&id, &meta); err != nil {
			return nil, goerr.Wrap(err, "failed to read history row")
		}
		h, err := decodeMeta(record.HistoryID(id), meta)
		if err != nil {
			return nil, err
		}
		page.Histories = append(page.Histories, h)
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to list histories")
	}
	if len(page.Histories) > limit {
		page.Histories = page.Histories[:limit]
		last := page.Histories[limit-1]
		page.NextCursor = store.EncodeCursor(last.UpdatedAt, string(last.ID))
	}
	return page, nil
}

// FindHistories implements store.Histories.
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	s.calls.Add("sqlite.query")
	return queryIDs[record.HistoryID](ctx, s.db, "find histories",
		`SELECT id FROM histories WHERE workspace = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?`, s.workspace, prefix, prefix+"\uffff", store.ClampLimit(limit))
}

// FindAlerts implements store.Alerts.
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	return queryIDs[record.AlertID](ctx, s.db, "find alerts",
		`SELECT id FROM alerts WHERE workspace = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?`, s.workspace, prefix, prefix+"\uffff", store.ClampLimit(limit))
}

// PutAlert implements store.Alerts.
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	n, err := s.PutAlerts(ctx, []*record.Alert{a})
	return n == 1, err
}

// PutAlerts implements store.AlertsPutter: one transaction for them all.
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	if len(as) == 0 {
		return 0, nil
	}
	s.calls.Add("sqlite.query")
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, goerr.Wrap(err, "failed to store alerts", goerr.V("count", len(as)))
	}
	defer func() { _ = tx.Rollback() }()
	n := 0
	stmts := newTxStmts(ctx, tx)
	for _, a := range as {
		created, err := putAlert(stmts, s.workspace, a)
		if err != nil {
			return 0, err
		}
		if created {
			n++
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, goerr.Wrap(err, "failed to store alerts", goerr.V("count", len(as)))
	}
	return n, nil
}

func putAlert(t *txStmts, workspace string, a *record.Alert) (bool, error) {
	created := a.CreatedAt
	if created.IsZero() {
		created = store.Now()
	}
	var when int64
	if !a.Time.IsZero() {
		when = micros(a.Time)
	}
	res, err := t.exec(`INSERT INTO alerts (workspace, id, title, data, created_at, severity, source, time, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		workspace, string(a.ID), a.Title, []byte(a.Data), micros(created), a.Severity, a.Source, when, a.Status)
	if err != nil {
		return false, goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, nil
	}
	// Indexed by the same transaction: a stored alert is always found.
	if err := indexAlert(t, workspace, a.ID, a.Title, a.Data); err != nil {
		return false, err
	}
	return true, nil
}

// GetAlert implements store.Alerts.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	var a record.Alert
	var title string
	var data []byte
	var created, when int64
	s.calls.Add("sqlite.query")
	err := s.db.QueryRowContext(ctx, `SELECT title, data, created_at, severity, source, time, status FROM alerts WHERE workspace = ? AND id = ?`, s.workspace, string(id)).
		Scan(&title, &data, &created, &a.Severity, &a.Source, &when, &a.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, goerr.Wrap(store.ErrNotFound, "alert not found", goerr.V("alert_id", id))
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read alert", goerr.V("alert_id", id))
	}
	a.ID, a.Title, a.Data, a.CreatedAt, a.Time = id, title, data, time.UnixMicro(created).UTC(), alertTime(when)
	return &a, nil
}

// alertFilter is the WHERE clause of the alerts q selects, its cursor aside.
func (s *Store) alertFilter(q store.AlertQuery) (string, []any) {
	where := ` WHERE workspace = ?`
	args := []any{s.workspace}
	if q.Open {
		where += ` AND status = ''`
	}
	switch {
	case q.Untriaged:
		where += ` AND triage_verdict = ''`
	case q.Triage != "":
		where += ` AND triage_verdict = ?`
		args = append(args, string(q.Triage))
	}
	if len(q.Severities) > 0 {
		where += ` AND severity IN (?` + strings.Repeat(`, ?`, len(q.Severities)-1) + `)`
		for _, sev := range q.Severities {
			args = append(args, sev)
		}
	}
	if q.Source != "" {
		where += ` AND source = ?`
		args = append(args, q.Source)
	}
	return where, args
}

// CountAlerts implements store.AlertCounter.
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	where, args := s.alertFilter(q)
	var n int
	s.calls.Add("sqlite.query")
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts`+where, args...).Scan(&n); err != nil {
		return 0, goerr.Wrap(err, "failed to count alerts")
	}
	return n, nil
}

// ListAlerts implements store.Alerts.
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	limit := store.ClampLimit(q.Limit)
	where, args := s.alertFilter(q)
	query := `SELECT id, title, created_at, severity, source, time, status, triage FROM alerts` + where
	if q.Cursor != "" {
		t, id, err := store.DecodeCursor(q.Cursor)
		if err != nil {
			return nil, err
		}
		query += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, micros(t), micros(t), id)
	}
	query += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list alerts")
	}
	defer rows.Close()
	page := &store.AlertPage{}
	for rows.Next() {
		var id, title, severity, source, status, triage string
		var created, when int64
		if err := rows.Scan(&id, &title, &created, &severity, &source, &when, &status, &triage); err != nil {
			return nil, goerr.Wrap(err, "failed to read alert row")
		}
		t, err := decodeTriage(record.AlertID(id), triage)
		if err != nil {
			return nil, err
		}
		page.Alerts = append(page.Alerts, &record.Alert{ID: record.AlertID(id), Title: title, CreatedAt: time.UnixMicro(created).UTC(),
			Severity: severity, Source: source, Time: alertTime(when), Status: status, Triage: t})
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to list alerts")
	}
	if len(page.Alerts) > limit {
		page.Alerts = page.Alerts[:limit]
		last := page.Alerts[limit-1]
		page.NextCursor = store.EncodeCursor(last.CreatedAt, string(last.ID))
	}
	return page, nil
}
