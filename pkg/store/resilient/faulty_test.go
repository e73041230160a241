package resilient_test

import (
	"context"
	"sync"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// faulty sits between the resilient layer and a backend: it counts the calls of each method
// and fails the calls of the armed method with its error before they reach the backend. It
// implements store.Store method by method (no embedding), so the compiler keeps it complete.
type faulty struct {
	inner store.Store

	mu     sync.Mutex
	method string
	left   int // failures still to inject; < 0: every call fails
	err    error
	calls  map[string]int
}

var _ store.Store = (*faulty)(nil)

func newFaulty(inner store.Store) *faulty {
	return &faulty{inner: inner, calls: map[string]int{}}
}

// arm makes the next n calls of method fail with err (n < 0: all of them).
func (f *faulty) arm(method string, n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.method, f.left, f.err = method, n, err
}

// count is how many calls of method reached f.
func (f *faulty) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func (f *faulty) fault(method string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[method]++
	if method != f.method || f.left == 0 {
		return nil
	}
	if f.left > 0 {
		f.left--
	}
	return f.err
}

// Close is counted, and does not close the backend: the test that opened it does.
func (f *faulty) Close() error { return f.fault("Close") }

func (f *faulty) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	if err := f.fault("GetHistory"); err != nil {
		var zero *record.History
		return zero, err
	}
	return f.inner.GetHistory(ctx, id)
}

func (f *faulty) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	if err := f.fault("GetHistoryMeta"); err != nil {
		var zero *record.History
		return zero, err
	}
	return f.inner.GetHistoryMeta(ctx, id)
}

func (f *faulty) SaveHistory(ctx context.Context, h *record.History) error {
	if err := f.fault("SaveHistory"); err != nil {
		return err
	}
	return f.inner.SaveHistory(ctx, h)
}

func (f *faulty) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	if err := f.fault("DeleteHistory"); err != nil {
		return err
	}
	return f.inner.DeleteHistory(ctx, id)
}

func (f *faulty) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	if err := f.fault("ListHistories"); err != nil {
		var zero *store.HistoryPage
		return zero, err
	}
	return f.inner.ListHistories(ctx, q)
}

func (f *faulty) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	if err := f.fault("FindHistories"); err != nil {
		var zero []record.HistoryID
		return zero, err
	}
	return f.inner.FindHistories(ctx, prefix, limit)
}

func (f *faulty) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	if err := f.fault("CountHistories"); err != nil {
		var zero int
		return zero, err
	}
	return f.inner.CountHistories(ctx, q)
}

func (f *faulty) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	if err := f.fault("PutAlert"); err != nil {
		var zero bool
		return zero, err
	}
	return f.inner.PutAlert(ctx, a)
}

func (f *faulty) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	if err := f.fault("PutAlerts"); err != nil {
		var zero int
		return zero, err
	}
	return f.inner.PutAlerts(ctx, as)
}

func (f *faulty) TriageAlert(ctx context.Context, id record.AlertID, t *record.AlertTriage, prev record.HistoryID) error {
	if err := f.fault("TriageAlert"); err != nil {
		return err
	}
	return f.inner.TriageAlert(ctx, id, t, prev)
}

func (f *faulty) AlertTriage(ctx context.Context, id record.AlertID) (*record.AlertTriage, error) {
	if err := f.fault("AlertTriage"); err != nil {
		return nil, err
	}
	return f.inner.AlertTriage(ctx, id)
}

func (f *faulty) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	if err := f.fault("GetAlert"); err != nil {
		var zero *record.Alert
		return zero, err
	}
	return f.inner.GetAlert(ctx, id)
}

func (f *faulty) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	if err := f.fault("ListAlerts"); err != nil {
		var zero *store.AlertPage
		return zero, err
	}
	return f.inner.ListAlerts(ctx, q)
}

func (f *faulty) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	if err := f.fault("FindAlerts"); err != nil {
		var zero []record.AlertID
		return zero, err
	}
	return f.inner.FindAlerts(ctx, prefix, limit)
}

func (f *faulty) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	if err := f.fault("CountAlerts"); err != nil {
		var zero int
		return zero, err
	}
	return f.inner.CountAlerts(ctx, q)
}

func (f *faulty) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	if err := f.fault("SearchAlerts"); err != nil {
		var zero []store.AlertHit
		return zero, err
	}
	return f.inner.SearchAlerts(ctx, q)
}

func (f *faulty) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	if err := f.fault("AlertInvestigations"); err != nil {
		var zero map[record.AlertID]store.AlertInvestigations
		return zero, err
	}
	return f.inner.AlertInvestigations(ctx, ids)
}

func (f *faulty) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	if err := f.fault("SearchText"); err != nil {
		var zero []store.SearchHit
		return zero, err
	}
	return f.inner.SearchText(ctx, q)
}

func (f *faulty) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	if err := f.fault("SearchVector"); err != nil {
		var zero []store.SearchHit
		return zero, err
	}
	return f.inner.SearchVector(ctx, v, alertID, limit)
}

func (f *faulty) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (bool, error) {
	if err := f.fault("PutEmbedding"); err != nil {
		var zero bool
		return zero, err
	}
	return f.inner.PutEmbedding(ctx, id, from, to, v)
}

func (f *faulty) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	if err := f.fault("EmbeddedCount"); err != nil {
		var zero int
		return zero, err
	}
	return f.inner.EmbeddedCount(ctx, id)
}

func (f *faulty) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	if err := f.fault("Unindexed"); err != nil {
		var zero []record.HistoryID
		return zero, err
	}
	return f.inner.Unindexed(ctx, after, limit)
}

func (f *faulty) Reindex(ctx context.Context, id record.HistoryID) error {
	if err := f.fault("Reindex"); err != nil {
		return err
	}
	return f.inner.Reindex(ctx, id)
}

func (f *faulty) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	if err := f.fault("PutBatchJob"); err != nil {
		return err
	}
	return f.inner.PutBatchJob(ctx, j)
}

func (f *faulty) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	if err := f.fault("GetBatchJob"); err != nil {
		var zero *record.BatchJob
		return zero, err
	}
	return f.inner.GetBatchJob(ctx, id)
}

func (f *faulty) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (*record.BatchJob, error) {
	if err := f.fault("FindBatchJob"); err != nil {
		var zero *record.BatchJob
		return zero, err
	}
	return f.inner.FindBatchJob(ctx, inputSHA256, model)
}

func (f *faulty) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	if err := f.fault("ListBatchJobs"); err != nil {
		var zero []*record.BatchJob
		return zero, err
	}
	return f.inner.ListBatchJobs(ctx, limit)
}

func (f *faulty) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (*record.BatchReservation, error) {
	if err := f.fault("PutBatchReservation"); err != nil {
		var zero *record.BatchReservation
		return zero, err
	}
	return f.inner.PutBatchReservation(ctx, r, prev)
}

func (f *faulty) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	if err := f.fault("PutKnowledge"); err != nil {
		return err
	}
	return f.inner.PutKnowledge(ctx, e)
}

func (f *faulty) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	if err := f.fault("GetKnowledge"); err != nil {
		return nil, err
	}
	return f.inner.GetKnowledge(ctx, id)
}

func (f *faulty) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	if err := f.fault("ListKnowledge"); err != nil {
		return nil, err
	}
	return f.inner.ListKnowledge(ctx, q)
}

func (f *faulty) NearestKnowledge(ctx context.Context, v []float32, limit int) ([]store.KnowledgeHit, error) {
	if err := f.fault("NearestKnowledge"); err != nil {
		return nil, err
	}
	return f.inner.NearestKnowledge(ctx, v, limit)
}

func (f *faulty) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	if err := f.fault("MatchKnowledge"); err != nil {
		return nil, err
	}
	return f.inner.MatchKnowledge(ctx, keys, limit)
}

func (f *faulty) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	if err := f.fault("ListObjects"); err != nil {
		var zero []store.ObjectInfo
		return zero, err
	}
	return f.inner.ListObjects(ctx)
}

func (f *faulty) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	if err := f.fault("ListHistoryIDs"); err != nil {
		var zero []record.HistoryID
		return zero, err
	}
	return f.inner.ListHistoryIDs(ctx)
}

func (f *faulty) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	if err := f.fault("MetadataExists"); err != nil {
		var zero bool
		return zero, err
	}
	return f.inner.MetadataExists(ctx, id)
}

func (f *faulty) ReadObject(ctx context.Context, key string) ([]byte, error) {
	if err := f.fault("ReadObject"); err != nil {
		var zero []byte
		return zero, err
	}
	return f.inner.ReadObject(ctx, key)
}

func (f *faulty) MoveAside(ctx context.Context, key string) (string, error) {
	if err := f.fault("MoveAside"); err != nil {
		var zero string
		return zero, err
	}
	return f.inner.MoveAside(ctx, key)
}

func (f *faulty) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	if err := f.fault("DropMetadata"); err != nil {
		var zero string
		return zero, err
	}
	return f.inner.DropMetadata(ctx, id, reason)
}

func (f *faulty) WorkspaceKey(ctx context.Context) ([]byte, error) {
	if err := f.fault("WorkspaceKey"); err != nil {
		var zero []byte
		return zero, err
	}
	return f.inner.WorkspaceKey(ctx)
}
