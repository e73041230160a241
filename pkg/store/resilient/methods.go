package resilient

import (
	"context"
	"errors"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Every method of store.Store, each under the budget, the attempt timeout and its breaker, as
// its row of the contract table says (store.Contract: KindRead under the read breaker; KindWrite
// and KindOnce under the write breaker, KindOnce with one attempt). The conformance test reads
// the same rows, so a method moved to another kind is tested as what it now is. What a row
// cannot say is written here, method by method: a delete retried after a lost answer.

// GetHistory implements store.Store.
func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, "GetHistory", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistory(ctx, id)
		return err
	})
	return out, err
}

// GetHistoryMeta implements store.Store.
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, "GetHistoryMeta", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistoryMeta(ctx, id)
		return err
	})
	return out, err
}

// SaveHistory implements store.Store. A retried save is the same save: the stores
// carry h.ContentVersion across attempts so that a transcript written by a failed attempt is
// not taken for another writer's.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	return s.do(ctx, "SaveHistory", func(ctx context.Context, _ int) error { return s.inner.SaveHistory(ctx, h) })
}

// DeleteHistory implements store.Store. A retry that finds the history gone
// reports success.
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, "DeleteHistory", func(ctx context.Context, attempt int) error {
		err := s.inner.DeleteHistory(ctx, id)
		if attempt > 1 && errors.Is(err, store.ErrNotFound) {
			return nil // the first attempt deleted it before its answer was lost
		}
		return err
	})
}

// ListHistories implements store.Store.
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (out *store.HistoryPage, err error) {
	err = s.do(ctx, "ListHistories", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistories(ctx, q)
		return err
	})
	return out, err
}

// FindHistories implements store.Store.
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, "FindHistories", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindHistories(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountHistories implements store.Store.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (out int, err error) {
	err = s.do(ctx, "CountHistories", func(ctx context.Context, _ int) error {
		out, err = s.inner.CountHistories(ctx, q)
		return err
	})
	return out, err
}

// PutAlert implements store.Store.
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (out bool, err error) {
	err = s.do(ctx, "PutAlert", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlert(ctx, a)
		return err
	})
	return out, err
}

// PutAlerts implements store.Store.
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (out int, err error) {
	err = s.do(ctx, "PutAlerts", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlerts(ctx, as)
		return err
	})
	return out, err
}

// TriageAlert implements store.Store. It is retried as the other conditional writes are: the
// backends make a retry of a write that went through succeed without writing again (the
// alert's triage is already this one), and a triage another run made is ErrConflict, which is
// returned at once, never retried into a second triage.
func (s *Store) TriageAlert(ctx context.Context, id record.AlertID, t *record.AlertTriage, prev record.HistoryID) error {
	return s.do(ctx, "TriageAlert", func(ctx context.Context, _ int) error { return s.inner.TriageAlert(ctx, id, t, prev) })
}

// AlertTriage implements store.Store.
func (s *Store) AlertTriage(ctx context.Context, id record.AlertID) (out *record.AlertTriage, err error) {
	err = s.do(ctx, "AlertTriage", func(ctx context.Context, _ int) error {
		out, err = s.inner.AlertTriage(ctx, id)
		return err
	})
	return out, err
}

// GetAlert implements store.Store.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (out *record.Alert, err error) {
	err = s.do(ctx, "GetAlert", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetAlert(ctx, id)
		return err
	})
	return out, err
}

// ListAlerts implements store.Store.
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (out *store.AlertPage, err error) {
	err = s.do(ctx, "ListAlerts", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListAlerts(ctx, q)
		return err
	})
	return out, err
}

// FindAlerts implements store.Store.
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) (out []record.AlertID, err error) {
	err = s.do(ctx, "FindAlerts", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindAlerts(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountAlerts implements store.Store.
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (out int, err error) {
	err = s.do(ctx, "CountAlerts", func(ctx context.Context, _ int) error {
		out, err = s.inner.CountAlerts(ctx, q)
		return err
	})
	return out, err
}

// SearchAlerts implements store.Store.
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) (out []store.AlertHit, err error) {
	err = s.do(ctx, "SearchAlerts", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchAlerts(ctx, q)
		return err
	})
	return out, err
}

// AlertInvestigations implements store.Store.
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (out map[record.AlertID]store.AlertInvestigations, err error) {
	err = s.do(ctx, "AlertInvestigations", func(ctx context.Context, _ int) error {
		out, err = s.inner.AlertInvestigations(ctx, ids)
		return err
	})
	return out, err
}

// SearchText implements store.Store.
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) (out []store.SearchHit, err error) {
	err = s.do(ctx, "SearchText", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchText(ctx, q)
		return err
	})
	return out, err
}

// SearchVector implements store.Store.
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) (out []store.SearchHit, err error) {
	err = s.do(ctx, "SearchVector", func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchVector(ctx, v, alertID, limit)
		return err
	})
	return out, err
}

// PutEmbedding implements store.Store.
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (out bool, err error) {
	err = s.do(ctx, "PutEmbedding", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutEmbedding(ctx, id, from, to, v)
		return err
	})
	return out, err
}

// EmbeddedCount implements store.Store.
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (out int, err error) {
	err = s.do(ctx, "EmbeddedCount", func(ctx context.Context, _ int) error {
		out, err = s.inner.EmbeddedCount(ctx, id)
		return err
	})
	return out, err
}

// Unindexed implements store.Store.
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, "Unindexed", func(ctx context.Context, _ int) error {
		out, err = s.inner.Unindexed(ctx, after, limit)
		return err
	})
	return out, err
}

// Reindex implements store.Store.
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, "Reindex", func(ctx context.Context, _ int) error { return s.inner.Reindex(ctx, id) })
}

// PutBatchJob implements store.Store.
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.do(ctx, "PutBatchJob", func(ctx context.Context, _ int) error { return s.inner.PutBatchJob(ctx, j) })
}

// GetBatchJob implements store.Store.
func (s *Store) GetBatchJob(ctx context.Context, id string) (out *record.BatchJob, err error) {
	err = s.do(ctx, "GetBatchJob", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetBatchJob(ctx, id)
		return err
	})
	return out, err
}

// FindBatchJob implements store.Store.
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (out *record.BatchJob, err error) {
	err = s.do(ctx, "FindBatchJob", func(ctx context.Context, _ int) error {
		out, err = s.inner.FindBatchJob(ctx, inputSHA256, model)
		return err
	})
	return out, err
}

// ListBatchJobs implements store.Store.
func (s *Store) ListBatchJobs(ctx context.Context, limit int) (out []*record.BatchJob, err error) {
	err = s.do(ctx, "ListBatchJobs", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListBatchJobs(ctx, limit)
		return err
	})
	return out, err
}

// PutBatchReservation implements store.Store.
func (s *Store) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (out *record.BatchReservation, err error) {
	err = s.do(ctx, "PutBatchReservation", func(ctx context.Context, _ int) error {
		out, err = s.inner.PutBatchReservation(ctx, r, prev)
		return err
	})
	return out, err
}

// PutKnowledge implements store.Store.
func (s *Store) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	return s.do(ctx, "PutKnowledge", func(ctx context.Context, _ int) error { return s.inner.PutKnowledge(ctx, e) })
}

// GetKnowledge implements store.Store.
func (s *Store) GetKnowledge(ctx context.Context, id string) (out *record.Knowledge, err error) {
	err = s.do(ctx, "GetKnowledge", func(ctx context.Context, _ int) error {
		out, err = s.inner.GetKnowledge(ctx, id)
		return err
	})
	return out, err
}

// ListKnowledge implements store.Store.
func (s *Store) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) (out []*record.Knowledge, err error) {
	err = s.do(ctx, "ListKnowledge", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListKnowledge(ctx, q)
		return err
	})
	return out, err
}

// MatchKnowledge implements store.Store.
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) (out []*record.Knowledge, err error) {
	err = s.do(ctx, "MatchKnowledge", func(ctx context.Context, _ int) error {
		out, err = s.inner.MatchKnowledge(ctx, keys, limit)
		return err
	})
	return out, err
}

// NearestKnowledge implements store.Store.
func (s *Store) NearestKnowledge(ctx context.Context, v []float32, limit int) (out []store.KnowledgeHit, err error) {
	err = s.do(ctx, "NearestKnowledge", func(ctx context.Context, _ int) error {
		out, err = s.inner.NearestKnowledge(ctx, v, limit)
		return err
	})
	return out, err
}

// ListObjects implements store.Store.
func (s *Store) ListObjects(ctx context.Context) (out []store.ObjectInfo, err error) {
	err = s.do(ctx, "ListObjects", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListObjects(ctx)
		return err
	})
	return out, err
}

// ListHistoryIDs implements store.Store.
func (s *Store) ListHistoryIDs(ctx context.Context) (out []record.HistoryID, err error) {
	err = s.do(ctx, "ListHistoryIDs", func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistoryIDs(ctx)
		return err
	})
	return out, err
}

// MetadataExists implements store.Store.
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (out bool, err error) {
	err = s.do(ctx, "MetadataExists", func(ctx context.Context, _ int) error {
		out, err = s.inner.MetadataExists(ctx, id)
		return err
	})
	return out, err
}

// ReadObject implements store.Store.
func (s *Store) ReadObject(ctx context.Context, key string) (out []byte, err error) {
	err = s.do(ctx, "ReadObject", func(ctx context.Context, _ int) error {
		out, err = s.inner.ReadObject(ctx, key)
		return err
	})
	return out, err
}

// MoveAside implements store.Store.
func (s *Store) MoveAside(ctx context.Context, key string) (out string, err error) {
	err = s.do(ctx, "MoveAside", func(ctx context.Context, _ int) error {
		out, err = s.inner.MoveAside(ctx, key)
		return err
	})
	return out, err
}

// DropMetadata implements store.Store.
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (out string, err error) {
	err = s.do(ctx, "DropMetadata", func(ctx context.Context, _ int) error {
		out, err = s.inner.DropMetadata(ctx, id, reason)
		return err
	})
	return out, err
}

// WorkspaceKey implements store.Store.
func (s *Store) WorkspaceKey(ctx context.Context) (out []byte, err error) {
	err = s.do(ctx, "WorkspaceKey", func(ctx context.Context, _ int) error {
		out, err = s.inner.WorkspaceKey(ctx)
		return err
	})
	return out, err
}
