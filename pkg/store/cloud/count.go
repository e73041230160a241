package cloud

import (
	"context"
	"fmt"

	"cloud.google.com/go/firestore"
	firestorepb "cloud.google.com/go/firestore/apiv1/firestorepb"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
)

// CountHistories implements store.Counter with one aggregation query: Firestore counts from
// the index, reading no document.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	n, err := count(ctx, s.queryHistories(q))
	if err != nil {
		return 0, goerr.Wrap(err, "failed to count histories", goerr.V("workspace", s.workspace))
	}
	return n, nil
}

// count runs query as an aggregation query: how many documents it selects, counted from the
// index.
func count(ctx context.Context, query firestore.Query) (int, error) {
	res, err := query.NewAggregationQuery().WithCount("n").Get(ctx)
	if err != nil {
		return 0, err
	}
	v, ok := res["n"].(*firestorepb.Value)
	if !ok {
		return 0, goerr.New(fmt.Sprintf("unexpected count result %T", res["n"]))
	}
	return int(v.GetIntegerValue()), nil
}
