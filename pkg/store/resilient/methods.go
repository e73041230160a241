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
//
// classes says it, once: each method below runs by its row (do), and the conformance test
// reads the same rows (export_test.go), so a method moved to another kind is tested as what it
// now is.

// method is a method of store.Store, the index of its row in classes.
type method int

const (
	mGetHistory method = iota
	mGetHistoryMeta
	mSaveHistory
	mDeleteHistory
	mListHistories
	mFindHistories
	mCountHistories
	mPutAlert
	mPutAlerts
	mGetAlert
	mListAlerts
	mFindAlerts
	mCountAlerts
	mSearchAlerts
	mAlertInvestigations
	mSearchText
	mSearchVector
	mPutEmbedding
	mEmbeddedCount
	mUnindexed
	mReindex
	mPutBatchJob
	mGetBatchJob
	mFindBatchJob
	mListBatchJobs
	mPutBatchReservation
	mPutKnowledge
	mGetKnowledge
	mListKnowledge
	mMatchKnowledge
	mListObjects
	mListHistoryIDs
	mMetadataExists
	mReadObject
	mMoveAside
	mDropMetadata
	mWorkspaceKey
	mMaxAlertSize
	mPendingHistories
	mClose
	numMethods
)

// class is how the layer runs a method.
type class struct {
	name string // the method's name in store.Store
	kind kind
	op   string // names the call in errors: "storage <op> failed"
}

var classes = [numMethods]class{
	mGetHistory:          {"GetHistory", kindRead, "read"},
	mGetHistoryMeta:      {"GetHistoryMeta", kindRead, "read"},
	mSaveHistory:         {"SaveHistory", kindWrite, "save"},
	mDeleteHistory:       {"DeleteHistory", kindWrite, "delete"},
	mListHistories:       {"ListHistories", kindRead, "list"},
	mFindHistories:       {"FindHistories", kindRead, "lookup"},
	mCountHistories:      {"CountHistories", kindRead, "count"},
	mPutAlert:            {"PutAlert", kindWrite, "save"},
	mPutAlerts:           {"PutAlerts", kindWrite, "save"},
	mGetAlert:            {"GetAlert", kindRead, "read"},
	mListAlerts:          {"ListAlerts", kindRead, "list"},
	mFindAlerts:          {"FindAlerts", kindRead, "lookup"},
	mCountAlerts:         {"CountAlerts", kindRead, "count"},
	mSearchAlerts:        {"SearchAlerts", kindRead, "search"},
	mAlertInvestigations: {"AlertInvestigations", kindRead, "count"},
	mSearchText:          {"SearchText", kindRead, "search"},
	mSearchVector:        {"SearchVector", kindRead, "search"},
	mPutEmbedding:        {"PutEmbedding", kindWrite, "save"},
	mEmbeddedCount:       {"EmbeddedCount", kindRead, "read"},
	mUnindexed:           {"Unindexed", kindRead, "check"},
	mReindex:             {"Reindex", kindWrite, "save"},
	mPutBatchJob:         {"PutBatchJob", kindWrite, "save"},
	mGetBatchJob:         {"GetBatchJob", kindRead, "read"},
	mFindBatchJob:        {"FindBatchJob", kindRead, "lookup"},
	mListBatchJobs:       {"ListBatchJobs", kindRead, "list"},
	mPutBatchReservation: {"PutBatchReservation", kindWrite, "save"},
	// An entry is written whole under its own ID (an upsert), so a retry of a write whose answer
	// was lost writes the same entry once more, never a second one.
	mPutKnowledge:   {"PutKnowledge", kindWrite, "save"},
	mGetKnowledge:   {"GetKnowledge", kindRead, "read"},
	mListKnowledge:  {"ListKnowledge", kindRead, "list"},
	mMatchKnowledge: {"MatchKnowledge", kindRead, "search"},
	mListObjects:    {"ListObjects", kindRead, "check"},
	mListHistoryIDs: {"ListHistoryIDs", kindRead, "check"},
	mMetadataExists: {"MetadataExists", kindRead, "check"},
	mReadObject:     {"ReadObject", kindRead, "read"},
	mMoveAside:      {"MoveAside", kindOnce, "repair"},
	mDropMetadata:   {"DropMetadata", kindOnce, "repair"},
	// A read, though it writes once in a workspace's life: the first call creates the key.
	// That write is conditional in both backends (an insert that leaves an existing key alone,
	// a create that fails on an existing document and then reads it), so a retry of an
	// attempt whose creation was lost reads the key that attempt made instead of making
	// another. Every later call is one read of the key, and the read breaker guards it.
	mWorkspaceKey:     {"WorkspaceKey", kindRead, "key read"},
	mMaxAlertSize:     {"MaxAlertSize", kindLocal, ""},
	mPendingHistories: {"PendingHistories", kindLocal, ""},
	mClose:            {"Close", kindLocal, ""},
}

// GetHistory implements store.Store.
func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, mGetHistory, func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistory(ctx, id)
		return err
	})
	return out, err
}

// GetHistoryMeta implements store.Store.
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (out *record.History, err error) {
	err = s.do(ctx, mGetHistoryMeta, func(ctx context.Context, _ int) error {
		out, err = s.inner.GetHistoryMeta(ctx, id)
		return err
	})
	return out, err
}

// SaveHistory implements store.Store. A retried save is the same save: the stores
// carry h.ContentVersion across attempts so that a transcript written by a failed attempt is
// not taken for another writer's.
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	return s.do(ctx, mSaveHistory, func(ctx context.Context, _ int) error { return s.inner.SaveHistory(ctx, h) })
}

// DeleteHistory implements store.Store. A retry that finds the history gone
// reports success.
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, mDeleteHistory, func(ctx context.Context, attempt int) error {
		err := s.inner.DeleteHistory(ctx, id)
		if attempt > 1 && errors.Is(err, store.ErrNotFound) {
			return nil // the first attempt deleted it before its answer was lost
		}
		return err
	})
}

// ListHistories implements store.Store.
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (out *store.HistoryPage, err error) {
	err = s.do(ctx, mListHistories, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistories(ctx, q)
		return err
	})
	return out, err
}

// FindHistories implements store.Store.
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, mFindHistories, func(ctx context.Context, _ int) error {
		out, err = s.inner.FindHistories(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountHistories implements store.Store.
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (out int, err error) {
	err = s.do(ctx, mCountHistories, func(ctx context.Context, _ int) error {
		out, err = s.inner.CountHistories(ctx, q)
		return err
	})
	return out, err
}

// PutAlert implements store.Store.
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (out bool, err error) {
	err = s.do(ctx, mPutAlert, func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlert(ctx, a)
		return err
	})
	return out, err
}

// PutAlerts implements store.Store.
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (out int, err error) {
	err = s.do(ctx, mPutAlerts, func(ctx context.Context, _ int) error {
		out, err = s.inner.PutAlerts(ctx, as)
		return err
	})
	return out, err
}

// GetAlert implements store.Store.
func (s *Store) GetAlert(ctx context.Context, id record.AlertID) (out *record.Alert, err error) {
	err = s.do(ctx, mGetAlert, func(ctx context.Context, _ int) error {
		out, err = s.inner.GetAlert(ctx, id)
		return err
	})
	return out, err
}

// ListAlerts implements store.Store.
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (out *store.AlertPage, err error) {
	err = s.do(ctx, mListAlerts, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListAlerts(ctx, q)
		return err
	})
	return out, err
}

// FindAlerts implements store.Store.
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) (out []record.AlertID, err error) {
	err = s.do(ctx, mFindAlerts, func(ctx context.Context, _ int) error {
		out, err = s.inner.FindAlerts(ctx, prefix, limit)
		return err
	})
	return out, err
}

// CountAlerts implements store.Store.
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (out int, err error) {
	err = s.do(ctx, mCountAlerts, func(ctx context.Context, _ int) error {
		out, err = s.inner.CountAlerts(ctx, q)
		return err
	})
	return out, err
}

// SearchAlerts implements store.Store.
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) (out []store.AlertHit, err error) {
	err = s.do(ctx, mSearchAlerts, func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchAlerts(ctx, q)
		return err
	})
	return out, err
}

// AlertInvestigations implements store.Store.
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (out map[record.AlertID]store.AlertInvestigations, err error) {
	err = s.do(ctx, mAlertInvestigations, func(ctx context.Context, _ int) error {
		out, err = s.inner.AlertInvestigations(ctx, ids)
		return err
	})
	return out, err
}

// SearchText implements store.Store.
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) (out []store.SearchHit, err error) {
	err = s.do(ctx, mSearchText, func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchText(ctx, q)
		return err
	})
	return out, err
}

// SearchVector implements store.Store.
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) (out []store.SearchHit, err error) {
	err = s.do(ctx, mSearchVector, func(ctx context.Context, _ int) error {
		out, err = s.inner.SearchVector(ctx, v, alertID, limit)
		return err
	})
	return out, err
}

// PutEmbedding implements store.Store.
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (out bool, err error) {
	err = s.do(ctx, mPutEmbedding, func(ctx context.Context, _ int) error {
		out, err = s.inner.PutEmbedding(ctx, id, from, to, v)
		return err
	})
	return out, err
}

// EmbeddedCount implements store.Store.
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (out int, err error) {
	err = s.do(ctx, mEmbeddedCount, func(ctx context.Context, _ int) error {
		out, err = s.inner.EmbeddedCount(ctx, id)
		return err
	})
	return out, err
}

// Unindexed implements store.Store.
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) (out []record.HistoryID, err error) {
	err = s.do(ctx, mUnindexed, func(ctx context.Context, _ int) error {
		out, err = s.inner.Unindexed(ctx, after, limit)
		return err
	})
	return out, err
}

// Reindex implements store.Store.
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.do(ctx, mReindex, func(ctx context.Context, _ int) error { return s.inner.Reindex(ctx, id) })
}

// PutBatchJob implements store.Store.
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.do(ctx, mPutBatchJob, func(ctx context.Context, _ int) error { return s.inner.PutBatchJob(ctx, j) })
}

// GetBatchJob implements store.Store.
func (s *Store) GetBatchJob(ctx context.Context, id string) (out *record.BatchJob, err error) {
	err = s.do(ctx, mGetBatchJob, func(ctx context.Context, _ int) error {
		out, err = s.inner.GetBatchJob(ctx, id)
		return err
	})
	return out, err
}

// FindBatchJob implements store.Store.
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (out *record.BatchJob, err error) {
	err = s.do(ctx, mFindBatchJob, func(ctx context.Context, _ int) error {
		out, err = s.inner.FindBatchJob(ctx, inputSHA256, model)
		return err
	})
	return out, err
}

// ListBatchJobs implements store.Store.
func (s *Store) ListBatchJobs(ctx context.Context, limit int) (out []*record.BatchJob, err error) {
	err = s.do(ctx, mListBatchJobs, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListBatchJobs(ctx, limit)
		return err
	})
	return out, err
}

// PutBatchReservation implements store.Store.
func (s *Store) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (out *record.BatchReservation, err error) {
	err = s.do(ctx, mPutBatchReservation, func(ctx context.Context, _ int) error {
		out, err = s.inner.PutBatchReservation(ctx, r, prev)
		return err
	})
	return out, err
}

// PutKnowledge implements store.Store.
func (s *Store) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	return s.do(ctx, mPutKnowledge, func(ctx context.Context, _ int) error { return s.inner.PutKnowledge(ctx, e) })
}

// GetKnowledge implements store.Store.
func (s *Store) GetKnowledge(ctx context.Context, id string) (out *record.Knowledge, err error) {
	err = s.do(ctx, mGetKnowledge, func(ctx context.Context, _ int) error {
		out, err = s.inner.GetKnowledge(ctx, id)
		return err
	})
	return out, err
}

// ListKnowledge implements store.Store.
func (s *Store) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) (out []*record.Knowledge, err error) {
	err = s.do(ctx, mListKnowledge, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListKnowledge(ctx, q)
		return err
	})
	return out, err
}

// MatchKnowledge implements store.Store.
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) (out []*record.Knowledge, err error) {
	err = s.do(ctx, mMatchKnowledge, func(ctx context.Context, _ int) error {
		out, err = s.inner.MatchKnowledge(ctx, keys, limit)
		return err
	})
	return out, err
}

// ListObjects implements store.Store.
func (s *Store) ListObjects(ctx context.Context) (out []store.ObjectInfo, err error) {
	err = s.do(ctx, mListObjects, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListObjects(ctx)
		return err
	})
	return out, err
}

// ListHistoryIDs implements store.Store.
func (s *Store) ListHistoryIDs(ctx context.Context) (out []record.HistoryID, err error) {
	err = s.do(ctx, mListHistoryIDs, func(ctx context.Context, _ int) error {
		out, err = s.inner.ListHistoryIDs(ctx)
		return err
	})
	return out, err
}

// MetadataExists implements store.Store.
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (out bool, err error) {
	err = s.do(ctx, mMetadataExists, func(ctx context.Context, _ int) error {
		out, err = s.inner.MetadataExists(ctx, id)
		return err
	})
	return out, err
}

// ReadObject implements store.Store.
func (s *Store) ReadObject(ctx context.Context, key string) (out []byte, err error) {
	err = s.do(ctx, mReadObject, func(ctx context.Context, _ int) error {
		out, err = s.inner.ReadObject(ctx, key)
		return err
	})
	return out, err
}

// MoveAside implements store.Store.
func (s *Store) MoveAside(ctx context.Context, key string) (out string, err error) {
	err = s.do(ctx, mMoveAside, func(ctx context.Context, _ int) error {
		out, err = s.inner.MoveAside(ctx, key)
		return err
	})
	return out, err
}

// DropMetadata implements store.Store.
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (out string, err error) {
	err = s.do(ctx, mDropMetadata, func(ctx context.Context, _ int) error {
		out, err = s.inner.DropMetadata(ctx, id, reason)
		return err
	})
	return out, err
}

// WorkspaceKey implements store.Store.
func (s *Store) WorkspaceKey(ctx context.Context) (out []byte, err error) {
	err = s.do(ctx, mWorkspaceKey, func(ctx context.Context, _ int) error {
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
