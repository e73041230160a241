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
// history (with the history's updated_at, so that an analyst's histories are listed newest
// first from its index), written in the save's transaction and forgotten by a trigger with the
// row. So a listing by verdict or by analyst is one indexed query, like any listing.
const verdictSchema = `
CREATE TABLE IF NOT EXISTS history_analysts (
	history_id TEXT NOT NULL,
	workspace  TEXT NOT NULL,
	analyst    TEXT NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (history_id, analyst)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS history_analysts_by_name ON history_analysts (workspace, analyst, updated_at DESC, history_id DESC);
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
		if _, err := tx.ExecContext(ctx, `INSERT INTO history_analysts (history_id, workspace, analyst, updated_at) VALUES (?, ?, ?, ?)`,
			string(meta.ID), s.workspace, a, micros(meta.UpdatedAt)); err != nil {
			return goerr.Wrap(err, "failed to write the history's analysts", goerr.V("history_id", meta.ID))
		}
	}
	return nil
}

// historySelection is where the histories q selects come from in this store's workspace (its
// cursor and limit aside): "FROM ... WHERE ..." with its arguments, and the columns that order
// them (updated_at and id, newest first). One definition for listing and counting. With an
// analyst the selection starts from that analyst's index, which is ordered as the listing is.
type historySelection struct {
	from             string
	args             []any
	updatedAt, rowID string
}

// selectHistories is the selection of q. countOnly says the rows are only counted: an
// analyst's histories are then counted from the analyst's index alone when nothing else
// filters them.
func (s *Store) selectHistories(q store.HistoryQuery, countOnly bool) historySelection {
	var sb strings.Builder
	sel := historySelection{updatedAt: "h.updated_at", rowID: "h.id"}
	switch {
	case q.Analyst != "" && countOnly && q.AlertID == "" && q.Verdict == "" && !q.Open:
		sb.WriteString(` FROM history_analysts a WHERE a.workspace = ? AND a.analyst = ?`)
		sel.args = append(sel.args, s.workspace, q.Analyst)
		sel.updatedAt, sel.rowID = "a.updated_at", "a.history_id"
	case q.Analyst != "":
		sb.WriteString(` FROM history_analysts a JOIN histories h ON h.id = a.history_id WHERE a.workspace = ? AND a.analyst = ?`)
		sel.args = append(sel.args, s.workspace, q.Analyst)
		sel.updatedAt, sel.rowID = "a.updated_at", "a.history_id"
	default:
		sb.WriteString(` FROM histories h WHERE h.workspace = ?`)
		sel.args = append(sel.args, s.workspace)
	}
	if q.AlertID != "" {
		sb.WriteString(` AND h.alert_id = ?`)
		sel.args = append(sel.args, string(q.AlertID))
	}
	switch {
	case q.Verdict != "":
		sb.WriteString(` AND h.verdict = ?`)
		sel.args = append(sel.args, string(q.Verdict))
	case q.Open:
		sb.WriteString(` AND h.verdict = ''`)
	}
	if !q.UpdatedBefore.IsZero() {
		sb.WriteString(` AND ` + sel.updatedAt + ` < ?`)
		sel.args = append(sel.args, micros(q.UpdatedBefore))
	}
	sel.from = sb.String()
	return sel
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
