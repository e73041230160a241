package cloud

import (
	"context"
	"fmt"

	firestorepb "cloud.google.com/go/firestore/apiv1/firestorepb"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
)

// CountHistories implements store.Counter with one aggregation query: Firestore counts from
// the index, reading no document.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	query := s.histories().Where("workspace", "==", s.workspace)
	if q.AlertID != "" {
		query = query.Where("alert_id", "==", string(q.AlertID))
	}
	if !q.UpdatedBefore.IsZero() {
		query = query.Where("updated_at", "<", q.UpdatedBefore.UTC())
	}
	res, err := query.NewAggregationQuery().WithCount("n").Get(ctx)
	if err != nil {
		return 0, goerr.Wrap(err, "failed to count histories", goerr.V("workspace", s.workspace))
	}
	v, ok := res["n"].(*firestorepb.Value)
	if !ok {
		return 0, goerr.New(fmt.Sprintf("unexpected count result %T", res["n"]))
	}
	return int(v.GetIntegerValue()), nil
}
