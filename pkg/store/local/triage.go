package local

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// An alert's triage is kept in its row: triage (the record.AlertTriage as JSON, "" while
// untriaged), triage_verdict (its verdict, "" while untriaged) and triage_history (the
// history that holds it, the condition of TriageAlert's write). alerts_by_triage serves the
// selection of untriaged alerts (and alert list --triage V) in creation order.

var _ store.AlertTriager = (*Store)(nil)

// addAlertTriage gives a store made before alerts were triaged its columns (every alert it
// holds is untriaged) and the index of the triage state.
func addAlertTriage(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('alerts') WHERE name = 'triage_verdict'`).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		for _, q := range []string{
			`ALTER TABLE alerts ADD COLUMN triage TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE alerts ADD COLUMN triage_verdict TEXT NOT NULL DEFAULT ''`,
			`ALTER TABLE alerts ADD COLUMN triage_history TEXT NOT NULL DEFAULT ''`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return goerr.Wrap(err, "failed to add the alerts' triage")
			}
		}
	}
	_, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS alerts_by_triage ON alerts (workspace, triage_verdict, created_at DESC, id DESC)`)
	return err
}

func decodeTriage(id record.AlertID, s string) (*record.AlertTriage, error) {
	if s == "" {
		return nil, nil
	}
	var t record.AlertTriage
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, goerr.Wrap(err, "corrupt triage of alert "+string(id), goerr.V("alert_id", id))
	}
	return &t, nil
}

// TriageAlert implements store.AlertTriager: one conditional UPDATE; when it changes no row,
// a read says why (no such alert, the write already made, or another triage).
func (s *Store) TriageAlert(ctx context.Context, id record.AlertID, t *record.AlertTriage, prev record.HistoryID) error {
	if t == nil || t.HistoryID == "" || t.Verdict == "" {
		return goerr.Wrap(store.ErrInvalid, "a triage needs its history and verdict", goerr.V("alert_id", id))
	}
	data, err := json.Marshal(t)
	if err != nil {
		return goerr.Wrap(err, "failed to encode triage", goerr.V("alert_id", id))
	}
	s.calls.Add("sqlite.exec")
	res, err := s.db.ExecContext(ctx, `UPDATE alerts SET triage = ?, triage_verdict = ?, triage_history = ? WHERE workspace = ? AND id = ? AND triage_history = ?`,
		string(data), string(t.Verdict), string(t.HistoryID), s.workspace, string(id), string(prev))
	if err != nil {
		return goerr.Wrap(err, "failed to record triage", goerr.V("alert_id", id))
	}
	if n, err := res.RowsAffected(); err == nil && n == 1 {
		return nil
	}
	var current string
	s.calls.Add("sqlite.query")
	err = s.db.QueryRowContext(ctx, `SELECT triage_history FROM alerts WHERE workspace = ? AND id = ?`, s.workspace, string(id)).Scan(&current)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return goerr.Wrap(store.ErrNotFound, "alert "+string(id)+" not found", goerr.V("alert_id", id))
	case err != nil:
		return goerr.Wrap(err, "failed to read triage", goerr.V("alert_id", id))
	case current == string(t.HistoryID):
		return nil
	}
	return goerr.Wrap(store.ErrConflict, "alert "+string(id)+" was triaged by another run", goerr.V("alert_id", id), goerr.V("history_id", current))
}

// AlertTriage implements store.AlertTriager.
func (s *Store) AlertTriage(ctx context.Context, id record.AlertID) (*record.AlertTriage, error) {
	var triage string
	s.calls.Add("sqlite.query")
	err := s.db.QueryRowContext(ctx, `SELECT triage FROM alerts WHERE workspace = ? AND id = ?`, s.workspace, string(id)).Scan(&triage)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, goerr.Wrap(store.ErrNotFound, "alert "+string(id)+" not found", goerr.V("alert_id", id))
	case err != nil:
		return nil, goerr.Wrap(err, "failed to read triage", goerr.V("alert_id", id))
	}
	return decodeTriage(id, triage)
}
