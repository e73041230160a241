package local

import (
	"context"
	"database/sql"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Investigations that conclude. The metadata row keeps beside its JSON what the filters and
// the alerts' sums look up by: verdict (empty while open) and resolved_at (0 while open), written
// by the same statement as the JSON; history_analysts holds who asked questions in which
// history, written in the save's transaction and forgotten by a trigger with the row. So a
// listing by verdict or by analyst is one indexed query, like any listing.
const verdictSchema = `
CREATE TABLE IF NOT EXISTS history_analysts (
	history_id TEXT NOT NULL,
	workspace  TEXT NOT NULL,
	analyst    TEXT NOT NULL,
	PRIMARY KEY (history_id, analyst)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS history_analysts_by_name ON history_analysts (workspace, analyst);
CREATE TRIGGER IF NOT EXISTS analysts_forget AFTER DELETE ON histories BEGIN
	DELETE FROM history_analysts WHERE history_id = old.id;
END;
CREATE INDEX IF NOT EXISTS histories_by_verdict ON histories (workspace, verdict, updated_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS histories_by_alert_verdict ON histories (workspace, alert_id, verdict, updated_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS histories_by_resolution ON histories (workspace, alert_id, resolved_at DESC);
`

// migrateVerdicts adds the verdict columns to a database made before them (its histories were
// all open: the defaults are right), then the tables and indexes above.
func migrateVerdicts(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info('histories')`)
	if err != nil {
		return goerr.Wrap(err, "failed to read the histories table's columns")
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return goerr.Wrap(err, "failed to read the histories table's columns")
		}
		have[name] = true
	}
	rows.Close()
	for _, c := range []struct{ name, def string }{
		{"verdict", `verdict TEXT NOT NULL DEFAULT ''`},
		{"resolved_at", `resolved_at INTEGER NOT NULL DEFAULT 0`},
	} {
		if have[c.name] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE histories ADD COLUMN `+c.def); err != nil {
			return goerr.Wrap(err, "failed to add a column to the histories table", goerr.V("column", c.name))
		}
	}
	if _, err := tx.ExecContext(ctx, verdictSchema); err != nil {
		return goerr.Wrap(err, "failed to create the verdict indexes")
	}
	return nil
}

// resolutionColumns are the values of the verdict and resolved_at columns of meta.
func resolutionColumns(meta *record.History) (string, int64) {
	if r := meta.Resolution; r != nil {
		return string(r.Verdict), micros(r.ResolvedAt)
	}
	return "", 0
}

// writeAnalystsTx records who asked questions in h, in the save's transaction.
func (s *Store) writeAnalystsTx(ctx context.Context, tx *sql.Tx, meta *record.History) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM history_analysts WHERE history_id = ?`, string(meta.ID)); err != nil {
		return goerr.Wrap(err, "failed to write the history's analysts", goerr.V("history_id", meta.ID))
	}
	for _, a := range meta.Analysts() {
		if _, err := tx.ExecContext(ctx, `INSERT INTO history_analysts (history_id, workspace, analyst) VALUES (?, ?, ?)`,
			string(meta.ID), s.workspace, a); err != nil {
			return goerr.Wrap(err, "failed to write the history's analysts", goerr.V("history_id", meta.ID))
		}
	}
	return nil
}

// whereHistories is the WHERE clause of q's filters in this store's workspace (its cursor and
// limit aside) and its arguments: one definition for listing and counting.
func (s *Store) whereHistories(q store.HistoryQuery) (string, []any) {
	var sb strings.Builder
	args := []any{s.workspace}
	sb.WriteString(` WHERE workspace = ?`)
	if q.AlertID != "" {
		sb.WriteString(` AND alert_id = ?`)
		args = append(args, string(q.AlertID))
	}
	switch {
	case q.Verdict != "":
		sb.WriteString(` AND verdict = ?`)
		args = append(args, string(q.Verdict))
	case q.Open:
		sb.WriteString(` AND verdict = ''`)
	}
	if q.Analyst != "" {
		sb.WriteString(` AND id IN (SELECT history_id FROM history_analysts WHERE workspace = ? AND analyst = ?)`)
		args = append(args, s.workspace, q.Analyst)
	}
	if !q.UpdatedBefore.IsZero() {
		sb.WriteString(` AND updated_at < ?`)
		args = append(args, micros(q.UpdatedBefore))
	}
	return sb.String(), args
}

var _ store.InvestigationCounter = (*Store)(nil)

// AlertInvestigations implements store.InvestigationCounter: one query over the indexes, for
// all of ids at once.
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	out := map[record.AlertID]store.AlertInvestigations{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{s.workspace, s.workspace}
	marks := make([]string, len(ids))
	for i, id := range ids {
		marks[i] = "?"
		args = append(args, string(id))
	}
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, `SELECT a.alert_id, a.n,
		COALESCE((SELECT h.verdict FROM histories h WHERE h.workspace = ?1 AND h.alert_id = a.alert_id AND h.resolved_at > 0
			ORDER BY h.resolved_at DESC LIMIT 1), '')
		FROM (SELECT alert_id, COUNT(*) AS n FROM histories WHERE workspace = ?2 AND alert_id IN (`+strings.Join(marks, ",")+`) GROUP BY alert_id) a`,
		args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to sum up the alerts' histories")
	}
	defer rows.Close()
	for rows.Next() {
		var id, verdict string
		var n int
		if err := rows.Scan(&id, &n, &verdict); err != nil {
			return nil, goerr.Wrap(err, "failed to sum up the alerts' histories")
		}
		out[record.AlertID(id)] = store.AlertInvestigations{Count: n, Verdict: record.Verdict(verdict)}
	}
	return out, rows.Err()
}
