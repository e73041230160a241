package spool

// The layer: the top store layer of the command line, the store below it (redaction,
// retries and circuit breaker, the backend) plus the spool that keeps the turns the backend
// could not take during an outage. Sessions put turns into the spool themselves
// (session.Options.Spool); this layer uploads them (Flush) and shows them in listings
// (PendingHistories). Every other method of store.Store passes through, each one written out
// so that a method added to the contract is placed here on purpose.

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Layer is a store with a spool; a nil spool (none could be opened) keeps nothing.
type Layer struct {
	next  store.Store
	spool *Spool
}

var _ store.Store = (*Layer)(nil)

// NewLayer wraps next, whose writes must already pass redaction, with sp (may be nil).
func NewLayer(next store.Store, sp *Spool) *Layer {
	return &Layer{next: next, spool: sp}
}

// Spool returns the spool, or nil when there is none.
func (s *Layer) Spool() *Spool { return s.spool }

// Flush uploads the spool's pending turns through the layers below.
func (s *Layer) Flush(ctx context.Context) (*Report, error) {
	if s.spool == nil {
		return &Report{}, nil
	}
	return s.spool.Flush(ctx, s.next)
}

// PendingHistories returns the newest spooled state of each history with turns not yet
// uploaded.
func (s *Layer) PendingHistories(context.Context) map[record.HistoryID]*record.History {
	if s.spool == nil {
		return nil
	}
	p, _ := s.spool.Pending()
	return p
}

// MaxAlertSize passes through.
func (s *Layer) MaxAlertSize() int { return s.next.MaxAlertSize() }

// WorkspaceKey passes through: the spool keeps no key.
func (s *Layer) WorkspaceKey(ctx context.Context) ([]byte, error) { return s.next.WorkspaceKey(ctx) }

// Close closes the store below.
func (s *Layer) Close() error { return s.next.Close() }

// The rest passes through.

func (s *Layer) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistory(ctx, id)
}
func (s *Layer) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistoryMeta(ctx, id)
}
func (s *Layer) SaveHistory(ctx context.Context, h *record.History) error {
	return s.next.SaveHistory(ctx, h)
}
func (s *Layer) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.next.DeleteHistory(ctx, id)
}
func (s *Layer) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	return s.next.ListHistories(ctx, q)
}
func (s *Layer) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	return s.next.FindHistories(ctx, prefix, limit)
}
func (s *Layer) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	return s.next.CountHistories(ctx, q)
}
func (s *Layer) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	return s.next.PutAlert(ctx, a)
}
func (s *Layer) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	return s.next.PutAlerts(ctx, as)
}
func (s *Layer) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	return s.next.GetAlert(ctx, id)
}
func (s *Layer) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	return s.next.ListAlerts(ctx, q)
}
func (s *Layer) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	return s.next.FindAlerts(ctx, prefix, limit)
}
func (s *Layer) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	return s.next.CountAlerts(ctx, q)
}
func (s *Layer) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	return s.next.SearchAlerts(ctx, q)
}
func (s *Layer) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	return s.next.AlertInvestigations(ctx, ids)
}
func (s *Layer) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	return s.next.SearchText(ctx, q)
}
func (s *Layer) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	return s.next.SearchVector(ctx, v, alertID, limit)
}
func (s *Layer) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (bool, error) {
	return s.next.PutEmbedding(ctx, id, from, to, v)
}
func (s *Layer) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	return s.next.EmbeddedCount(ctx, id)
}
func (s *Layer) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	return s.next.Unindexed(ctx, after, limit)
}
func (s *Layer) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.next.Reindex(ctx, id)
}
func (s *Layer) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.next.PutBatchJob(ctx, j)
}
func (s *Layer) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	return s.next.GetBatchJob(ctx, id)
}
func (s *Layer) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (*record.BatchJob, error) {
	return s.next.FindBatchJob(ctx, inputSHA256, model)
}
func (s *Layer) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	return s.next.ListBatchJobs(ctx, limit)
}
func (s *Layer) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (*record.BatchReservation, error) {
	return s.next.PutBatchReservation(ctx, r, prev)
}
func (s *Layer) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	return s.next.PutKnowledge(ctx, e)
}
func (s *Layer) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	return s.next.GetKnowledge(ctx, id)
}
func (s *Layer) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	return s.next.ListKnowledge(ctx, q)
}
func (s *Layer) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	return s.next.MatchKnowledge(ctx, keys, limit)
}
func (s *Layer) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	return s.next.ListObjects(ctx)
}
func (s *Layer) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	return s.next.ListHistoryIDs(ctx)
}
func (s *Layer) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	return s.next.MetadataExists(ctx, id)
}
func (s *Layer) ReadObject(ctx context.Context, key string) ([]byte, error) {
	return s.next.ReadObject(ctx, key)
}
func (s *Layer) MoveAside(ctx context.Context, key string) (string, error) {
	return s.next.MoveAside(ctx, key)
}
func (s *Layer) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	return s.next.DropMetadata(ctx, id, reason)
}
