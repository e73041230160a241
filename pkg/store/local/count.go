package local

import (
	"context"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
)

// CountHistories implements store.Counter: how many histories of the workspace q selects
// (its cursor and limit aside), from the index alone.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	var sb strings.Builder
	args := []any{s.workspace}
	sb.WriteString(`SELECT COUNT(*) FROM histories WHERE workspace = ?`)
	if q.AlertID != "" {
		sb.WriteString(` AND alert_id = ?`)
		args = append(args, string(q.AlertID))
	}
	if !q.UpdatedBefore.IsZero() {
		sb.WriteString(` AND updated_at < ?`)
		args = append(args, micros(q.UpdatedBefore))
	}
	var n int
	if err := s.db.QueryRowContext(ctx, sb.String(), args...).Scan(&n); err != nil {
		return 0, goerr.Wrap(err, "failed to count histories")
	}
	return n, nil
}
