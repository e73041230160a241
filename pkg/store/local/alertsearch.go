package local

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// The alert index: alert_fts holds one row per alert (its title, and the text of its JSON's
// values, index.AlertText), written in the transaction that stores the alert; alert_rows maps
// a row to its workspace and alert. Alerts never change or go, so rows are only ever added. A
// store created before the index existed is indexed once, when the table is created.
const alertSearchSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS alert_fts USING fts5(title, body, tokenize = "unicode61 tokenchars '_'");
CREATE TABLE IF NOT EXISTS alert_rows (
	rid       INTEGER PRIMARY KEY,
	workspace TEXT NOT NULL,
	alert_id  TEXT NOT NULL,
	UNIQUE (workspace, alert_id)
);
`

var _ store.AlertSearcher = (*Store)(nil)

// addAlertFacts gives a store made before alerts had a severity, source and time their columns
// (empty for the alerts it holds).
func addAlertFacts(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('alerts') WHERE name = 'severity'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, q := range []string{
		`ALTER TABLE alerts ADD COLUMN severity TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE alerts ADD COLUMN source TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE alerts ADD COLUMN time INTEGER NOT NULL DEFAULT 0`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return goerr.Wrap(err, "failed to add the alerts' severity, source and time")
		}
	}
	return nil
}

// addAlertStatus gives a store made before alerts had a status its column: the alerts it
// holds are open.
func addAlertStatus(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('alerts') WHERE name = 'status'`).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE alerts ADD COLUMN status TEXT NOT NULL DEFAULT ''`); err != nil {
		return goerr.Wrap(err, "failed to add the alerts' status")
	}
	return nil
}

// alertTime is a stored alert time (0: none).
func alertTime(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// createAlertIndex creates the alert index in tx and, when it is new, indexes the alerts the
// store already holds.
func createAlertIndex(ctx context.Context, tx *sql.Tx) error {
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'alert_rows'`).Scan(&exists); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, alertSearchSchema); err != nil {
		return err
	}
	if exists > 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT workspace, id, title, data FROM alerts`)
	if err != nil {
		return err
	}
	type alert struct {
		ws, id, title string
		data          []byte
	}
	var all []alert
	for rows.Next() {
		var a alert
		if err := rows.Scan(&a.ws, &a.id, &a.title, &a.data); err != nil {
			_ = rows.Close()
			return err
		}
		all = append(all, a)
	}
	if err := errorsJoin(rows.Err(), rows.Close()); err != nil {
		return err
	}
	stmts := newTxStmts(ctx, tx)
	for _, a := range all {
		if err := indexAlert(stmts, a.ws, record.AlertID(a.id), a.title, a.data); err != nil {
			return err
		}
	}
	return nil
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// txStmts runs the statements of a transaction that writes many alerts, each prepared once.
type txStmts struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newTxStmts(ctx context.Context, tx *sql.Tx) *txStmts {
	return &txStmts{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}}
}

func (t *txStmts) exec(query string, args ...any) (sql.Result, error) {
	st, ok := t.stmts[query]
	if !ok {
		var err error
		if st, err = t.tx.PrepareContext(t.ctx, query); err != nil {
			return nil, err
		}
		t.stmts[query] = st
	}
	return st.ExecContext(t.ctx, args...)
}

// indexAlert adds an alert's row to the index.
func indexAlert(t *txStmts, workspace string, id record.AlertID, title string, data []byte) error {
	res, err := t.exec(`INSERT INTO alert_rows (workspace, alert_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, workspace, string(id))
	if err != nil {
		return goerr.Wrap(err, "failed to index alert", goerr.V("alert_id", id))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	rid, err := res.LastInsertId()
	if err != nil {
		return goerr.Wrap(err, "failed to index alert", goerr.V("alert_id", id))
	}
	// CJK runs go in as their bigrams, as in the history index.
	body := index.Segmented(index.AlertText("", data))
	if _, err := t.exec(`INSERT INTO alert_fts (rowid, title, body) VALUES (?, ?, ?)`, rid, index.Segmented(title), body); err != nil {
		return goerr.Wrap(err, "failed to index alert", goerr.V("alert_id", id))
	}
	return nil
}

// SearchAlerts implements store.AlertSearcher with the FTS5 index: the query's fields as
// phrases (a dotted address matches itself), ranked by bm25 with the title weighing more,
// snippets for the results only.
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	phrases := queryPhrases(store.SearchQuery{Phrases: index.Phrases(q.Text)})
	if len(phrases) == 0 {
		return nil, nil
	}
	limit := store.ClampLimit(q.Limit)
	// FTS5 would cut and mark the indexed form of CJK text (its bigrams): for a query holding
	// CJK text the snippet is made in Go from the row's own text.
	cjk := slices.ContainsFunc(phrases, func(p []string) bool { return index.HasCJK(strings.Join(p, "")) })
	snippetExpr := `snippet(alert_fts, 1, '` + store.SnippetOpen + `', '` + store.SnippetClose + `', '…', 12)`
	if cjk {
		snippetExpr = `alert_fts.body`
	}
	match := phraseMatcher(phrases)
	expr := matchExpr(phrases)
	// A filter joins the candidates' alerts before the best are picked.
	filter, args := "", []any{titleWeight, bodyWeight}
	if q.Severity != "" || q.Source != "" {
		filter = ` JOIN alerts fa ON fa.workspace = r.workspace AND fa.id = r.alert_id`
		if q.Severity != "" {
			filter += ` AND fa.severity = ?`
			args = append(args, q.Severity)
		}
		if q.Source != "" {
			filter += ` AND fa.source = ?`
			args = append(args, q.Source)
		}
	}
	args = append(args, expr, s.workspace, limit, s.workspace, expr)
	s.calls.Add("sqlite.query")
	// The best rows are picked first and their snippets made after: a snippet computed beside
	// the rank would be computed for every matching alert before the sort (a word every alert
	// holds made 10,000 of them).
	// Ties go to the alert indexed last (rows are numbered as alerts are stored), so only the
	// picked rows are joined with their alerts.
	rows, err := s.db.QueryContext(ctx, `WITH top AS MATERIALIZED (
			SELECT f.rowid AS rid, r.alert_id, bm25(alert_fts, ?, ?) AS score
			FROM alert_fts f CROSS JOIN alert_rows r ON r.rid = f.rowid`+filter+`
			WHERE alert_fts MATCH ? AND r.workspace = ?
			ORDER BY score, f.rowid DESC LIMIT ?)
		SELECT a.id, a.title, a.created_at, a.severity, a.source, a.time, top.score, `+snippetExpr+`
		FROM top CROSS JOIN alert_fts ON alert_fts.rowid = top.rid
		JOIN alerts a ON a.workspace = ? AND a.id = top.alert_id
		WHERE alert_fts MATCH ?
		ORDER BY top.score, top.rid DESC`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to search alerts")
	}
	defer rows.Close()
	var out []store.AlertHit
	for rows.Next() {
		var id, title, severity, source, snippet string
		var created, when int64
		var bm float64
		if err := rows.Scan(&id, &title, &created, &severity, &source, &when, &bm, &snippet); err != nil {
			return nil, goerr.Wrap(err, "failed to search alerts")
		}
		if cjk {
			snippet = index.Snippet(index.Unsegment(snippet), match, 12, store.SnippetOpen, store.SnippetClose)
		}
		out = append(out, store.AlertHit{
			Alert: &record.Alert{ID: record.AlertID(id), Title: title, CreatedAt: time.UnixMicro(created).UTC(),
				Severity: severity, Source: source, Time: alertTime(when)},
			// bm25 is negative, lower is better: map it into (0, 1), higher is better.
			Score:   -bm / (1 - bm),
			Snippet: strings.TrimSpace(snippet),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to search alerts")
	}
	return out, nil
}
