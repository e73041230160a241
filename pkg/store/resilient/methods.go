package resilient

import (
	"context"
	"errors"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Every method of store.Store, each under the budget, the attempt timeout and its breaker
// (kindRead: the read breaker; kindWrite and kindOnce: the write breaker). Writes are
// retried because the backends make them idempotent or conditional (a save carries its
// ContentVersion across attempts, an alert's ID is its content's, an embedding or a batch
// reservation is conditional on what it replaces); moving aside and dropping metadata are
// tried once: a retry could not tell its own lost success from a missing object.

// GetHistory is a read, retried (store.Store).
func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistory(ctx, id)
		return err
	})
	return out, err
}

// GetHistoryMeta is a read, retried (store.Store).
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistoryMeta(ctx, id)
		return err
	})
	return out, err
}

// SaveHistory is a write, retried (store.Store). A retried save is the same save: the stores
// carry h.ContentVersion across attempts so that a transcript written by a failed attempt is
// not taken for another writer's.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	return s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error { return s.inner.SaveHistory(ctx, h) })
}

// DeleteHistory is a write, retried (store.Store). A retry that finds the history gone
// reports success.
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, kindWrite, "delete", func(ctx context.Context, attempt int) error {
		err := s.inner.DeleteHistory(ctx, id)
		if attempt > 1 && errors.Is(err, store.ErrNotFound) {
			return nil // the first attempt deleted it before its answer was lost
		}
		return err
	})
}

// ListHistories is a read, retried (store.Store).
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (out *store.HistoryPage, err error) {
	err = s.do(ctx, kindRead, "list", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistories(ctx, q)
		return err
	})
	return out, err
}

// FindHistories is a read, retried (store.Store).
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, kindRead, "lookup", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindHistories(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountHistories is a read, retried (store.Store).
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (out int, err error) {
	err = s.do(ctx, kindRead, "count", func(ctx context.Context, _ int) error {
		out, err = s.inner.CountHistories(ctx, q)
		return err
	})
	return out, err
}

// PutAlert is a write, retried (store.Store).
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (out bool, err error) {
	err = s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlert(ctx, a)
		return err
	})
	return out, err
}

// PutAlerts is a write, retried (store.Store).
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (out int, err error) {
	err = s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlerts(ctx, as)
		return err
	})
	return out, err
}

// GetAlert is a read, retried (store.Store).
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (out *record.Alert, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetAlert(ctx, id)
		return err
	})
	return out, err
}

// ListAlerts is a read, retried (store.Store).
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (out *store.AlertPage, err error) {
	err = s.do(ctx, kindRead, "list", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListAlerts(ctx, q)
		return err
	})
	return out, err
}

// FindAlerts is a read, retried (store.Store).
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) (out []record.AlertID, err error) {
	err = s.do(ctx, kindRead, "lookup", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindAlerts(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountAlerts is a read, retried (store.Store).
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (out int, err error) {
	err = s.do(ctx, kindRead, "count", func(ctx context.Context, _ int) error {
		out, err = s.inner.CountAlerts(ctx, q)
		return err
	})
	return out, err
}

// SearchAlerts is a read, retried (store.Store).
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) (out []store.AlertHit, err error) {
	err = s.do(ctx, kindRead, "search", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchAlerts(ctx, q)
		return err
	})
	return out, err
}

// AlertInvestigations is a read, retried (store.Store).
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (out map[record.AlertID]store.AlertInvestigations, err error) {
	err = s.do(ctx, kindRead, "count", func(ctx context.Context, _ int) error {
		out, err = s.inner.AlertInvestigations(ctx, ids)
		return err
	})
	return out, err
}

// SearchText is a read, retried (store.Store).
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) (out []store.SearchHit, err error) {
	err = s.do(ctx, kindRead, "search", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchText(ctx, q)
		return err
	})
	return out, err
}

// SearchVector is a read, retried (store.Store).
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) (out []store.SearchHit, err error) {
	err = s.do(ctx, kindRead, "search", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchVector(ctx, v, alertID, limit)
		return err
	})
	return out, err
}

// PutEmbedding is a write, retried (store.Store).
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (out bool, err error) {
	err = s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutEmbedding(ctx, id, from, to, v)
		return err
	})
	return out, err
}

// EmbeddedCount is a read, retried (store.Store).
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (out int, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.EmbeddedCount(ctx, id)
		return err
	})
	return out, err
}

// Unindexed is a read, retried (store.Store).
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, kindRead, "check", func(ctx context.Context, _ int) error {
		out, err = s.inner.Unindexed(ctx, after, limit)
		return err
	})
	return out, err
}

// Reindex is a write, retried (store.Store).
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error { return s.inner.Reindex(ctx, id) })
}

// PutBatchJob is a write, retried (store.Store).
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error { return s.inner.PutBatchJob(ctx, j) })
}

// GetBatchJob is a read, retried (store.Store).
func (s *Store) GetBatchJob(ctx context.Context, id string) (out *record.BatchJob, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetBatchJob(ctx, id)
		return err
	})
	return out, err
}

// FindBatchJob is a read, retried (store.Store).
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (out *record.BatchJob, err error) {
	err = s.do(ctx, kindRead, "lookup", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindBatchJob(ctx, inputSHA256, model)
		return err
	})
	return out, err
}

// ListBatchJobs is a read, retried (store.Store).
func (s *Store) ListBatchJobs(ctx context.Context, limit int) (out []*record.BatchJob, err error) {
	err = s.do(ctx, kindRead, "list", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListBatchJobs(ctx, limit)
		return err
	})
	return out, err
}

// PutBatchReservation is a write, retried (store.Store).
func (s *Store) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (out *record.BatchReservation, err error) {
	err = s.do(ctx, kindWrite, "save", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutBatchReservation(ctx, r, prev)
		return err
	})
	return out, err
}

// ListObjects is a read, retried (store.Store).
func (s *Store) ListObjects(ctx context.Context) (out []store.ObjectInfo, err error) {
	err = s.do(ctx, kindRead, "check", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListObjects(ctx)
		return err
	})
	return out, err
}

// ListHistoryIDs is a read, retried (store.Store).
func (s *Store) ListHistoryIDs(ctx context.Context) (out []record.HistoryID, err error) {
	err = s.do(ctx, kindRead, "check", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistoryIDs(ctx)
		return err
	})
	return out, err
}

// MetadataExists is a read, retried (store.Store).
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (out bool, err error) {
	err = s.do(ctx, kindRead, "check", func(ctx context.Context, _ int) error {
		out, err = s.inner.MetadataExists(ctx, id)
		return err
	})
	return out, err
}

// ReadObject is a read, retried (store.Store).
func (s *Store) ReadObject(ctx context.Context, key string) (out []byte, err error) {
	err = s.do(ctx, kindRead, "read", func(ctx context.Context, _ int) error {
		out, err = s.inner.ReadObject(ctx, key)
		return err
	})
	return out, err
}

// MoveAside is a write, tried once (store.Store).
func (s *Store) MoveAside(ctx context.Context, key string) (out string, err error) {
	err = s.do(ctx, kindOnce, "repair", func(ctx context.Context, _ int) error {
		out, err = s.inner.MoveAside(ctx, key)
		return err
	})
	return out, err
}

// DropMetadata is a write, tried once (store.Store).
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (out string, err error) {
	err = s.do(ctx, kindOnce, "repair", func(ctx context.Context, _ int) error {
		out, err = s.inner.DropMetadata(ctx, id, reason)
		return err
	})
	return out, err
}

// WorkspaceKey is a read, retried, under the read breaker (store.Store), though it writes once
// in a workspace's life: the first call creates the key. That write is conditional in both
// backends (an insert that leaves an existing key alone, a create that fails on an existing
// document and then reads it), so a retry of an attempt whose creation was lost reads the key
// that attempt made instead of making another. Every later call is one read of the key.
func (s *Store) WorkspaceKey(ctx context.Context) (out []byte, err error) {
	err = s.do(ctx, kindRead, "key read", func(ctx context.Context, _ int) error {
		out, err = s.inner.WorkspaceKey(ctx)
		return err
	})
	return out, err
}

// MaxAlertSize asks the backend: no request is made.
func (s *Store) MaxAlertSize() int { return s.inner.MaxAlertSize() }

// PendingHistories passes through: nothing below the spool layer keeps turns locally.
func (s *Store) PendingHistories(ctx context.Context) map[record.HistoryID]*record.History {
	return s.inner.PendingHistories(ctx)
}
