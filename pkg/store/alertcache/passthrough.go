package alertcache

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Every method but GetAlert passes through, each written out so that a method added to
// store.Store is placed here on purpose.

func (s *Store) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistory(ctx, id)
}
func (s *Store) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistoryMeta(ctx, id)
}
func (s *Store) SaveHistory(ctx context.Context, h *record.History) error {
	return s.next.SaveHistory(ctx, h)
}
func (s *Store) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.next.DeleteHistory(ctx, id)
}
func (s *Store) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	return s.next.ListHistories(ctx, q)
}
func (s *Store) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	return s.next.FindHistories(ctx, prefix, limit)
}
func (s *Store) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	return s.next.CountHistories(ctx, q)
}
func (s *Store) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	return s.next.PutAlert(ctx, a)
}
func (s *Store) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	return s.next.PutAlerts(ctx, as)
}
func (s *Store) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	return s.next.ListAlerts(ctx, q)
}
func (s *Store) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	return s.next.FindAlerts(ctx, prefix, limit)
}
func (s *Store) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	return s.next.CountAlerts(ctx, q)
}
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	return s.next.SearchAlerts(ctx, q)
}
func (s *Store) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	return s.next.AlertInvestigations(ctx, ids)
}
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	return s.next.SearchText(ctx, q)
}
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	return s.next.SearchVector(ctx, v, alertID, limit)
}
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (bool, error) {
	return s.next.PutEmbedding(ctx, id, from, to, v)
}
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	return s.next.EmbeddedCount(ctx, id)
}
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	return s.next.Unindexed(ctx, after, limit)
}
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.next.Reindex(ctx, id)
}
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.next.PutBatchJob(ctx, j)
}
func (s *Store) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	return s.next.GetBatchJob(ctx, id)
}
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (*record.BatchJob, error) {
	return s.next.FindBatchJob(ctx, inputSHA256, model)
}
func (s *Store) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	return s.next.ListBatchJobs(ctx, limit)
}
func (s *Store) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (*record.BatchReservation, error) {
	return s.next.PutBatchReservation(ctx, r, prev)
}
func (s *Store) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	return s.next.PutKnowledge(ctx, e)
}
func (s *Store) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	return s.next.GetKnowledge(ctx, id)
}
func (s *Store) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	return s.next.ListKnowledge(ctx, q)
}
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	return s.next.MatchKnowledge(ctx, keys, limit)
}
func (s *Store) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	return s.next.ListObjects(ctx)
}
func (s *Store) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	return s.next.ListHistoryIDs(ctx)
}
func (s *Store) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	return s.next.MetadataExists(ctx, id)
}
func (s *Store) ReadObject(ctx context.Context, key string) ([]byte, error) {
	return s.next.ReadObject(ctx, key)
}
func (s *Store) MoveAside(ctx context.Context, key string) (string, error) {
	return s.next.MoveAside(ctx, key)
}
func (s *Store) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	return s.next.DropMetadata(ctx, id, reason)
}

func (s *Store) MaxAlertSize() int { return s.next.MaxAlertSize() }

func (s *Store) PendingHistories(ctx context.Context) map[record.HistoryID]*record.History {
	return s.next.PendingHistories(ctx)
}

func (s *Store) WorkspaceKey(ctx context.Context) ([]byte, error) { return s.next.WorkspaceKey(ctx) }

func (s *Store) Close() error { return s.next.Close() }
