package knowledge

import (
	"context"
	"errors"
	"sync"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Getter reads an entry by its ID (store.KnowledgeBase).
type Getter interface {
	GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error)
}

// ByIDs returns the entries of ids that are still active, in the order of ids: what a resumed
// investigation is given again, since the notes it was given live only in the system
// instruction, which is not stored. An entry retired, expired or deleted since is left out:
// it is never given again. The entries are read at once; a store failure is an error.
func (r *Retriever) ByIDs(ctx context.Context, ids []record.KnowledgeID) ([]*record.Knowledge, error) {
	g, ok := r.Store.(Getter)
	if !ok || len(ids) == 0 {
		return nil, nil
	}
	ids = ids[:min(len(ids), MaxGiven)]
	got := make([]*record.Knowledge, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			e, err := g.GetKnowledge(ctx, string(id))
			switch {
			case errors.Is(err, store.ErrNotFound):
			case err != nil:
				errs[i] = err
			case e.ID == id:
				got[i] = e
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, goerr.Wrap(err, "failed to read the notes given before")
	}
	now := r.now()
	var out []*record.Knowledge
	for _, e := range got {
		if e != nil && e.Active(now) {
			out = append(out, e)
		}
	}
	return out, nil
}
