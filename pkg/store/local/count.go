package local

import (
	"context"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
)

// CountHistories implements store.Counter: how many histories of the workspace q selects
// (its cursor and limit aside), from the index alone.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	sel := s.selectHistories(q, true)
	var n int
	s.calls.Add("sqlite.query")
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*)`+sel.from, sel.args...).Scan(&n); err != nil {
		return 0, goerr.Wrap(err, "failed to count histories")
	}
	return n, nil
}
