package search

import (
	"context"
	"errors"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/embedding"
)

// IndexMissingStore is what IndexMissing needs of the store: its index, its histories and its
// embeddings.
type IndexMissingStore interface {
	store.Indexer
	store.VectorSearcher
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// IndexProgress is told of IndexMissing's progress: done of total histories.
type IndexProgress func(done, total int)

// IndexMissing indexes the workspace's histories missing from the index (saved before the index
// existed) and, with emb, embeds them: the whole store, where store.Indexer.Reindex indexes one history
// (history reindex). It is resumable: each history is indexed in its own
// transaction, so an interrupted run leaves the ones done indexed, and the next run finds only
// the rest missing. It returns how many histories it indexed.
func IndexMissing(ctx context.Context, st IndexMissingStore, emb Embedder, progress IndexProgress) (int, error) {
	var todo []record.HistoryID
	var after record.HistoryID
	for {
		ids, err := st.Unindexed(ctx, after, store.MaxLimit)
		if err != nil {
			return 0, err
		}
		if len(ids) == 0 {
			break
		}
		todo = append(todo, ids...)
		after = ids[len(ids)-1]
	}
	for done, id := range todo {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		if err := st.Reindex(ctx, id); err != nil && !errors.Is(err, store.ErrNotFound) {
			return done, goerr.Wrap(err, "failed to reindex history", goerr.V("history_id", id))
		}
		if emb != nil {
			if h, err := st.GetHistory(ctx, id); err == nil {
				if err := embedding.EmbedNew(ctx, st, emb, h); err != nil {
					return done, err
				}
			}
		}
		if progress != nil {
			progress(done+1, len(todo))
		}
	}
	return len(todo), nil
}
