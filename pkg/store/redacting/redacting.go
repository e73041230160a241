// Package redacting is the store layer through which every history write of the command line
// that is not a session's passes: it redacts a history (title, transcript, summary) before the
// next layer sees it.
//
// Where redaction runs: a session redacts what it saves itself (pkg/session, with the values of
// its alert kept) and writes below this layer (workspace.Store.Sessions); every other write
// (history rename, spool uploads, anything a command writes directly) passes through here, so
// no command can write a history unredacted. It keeps the values of a history's alert as the
// session does (redacthist.ForHistory), so both paths write alike. Redaction is idempotent and
// a history's redacted prefix (record.History.RedactedCount) is not scanned again.
//
// The write paths of store.Store and what this layer does with each:
//   - SaveHistory: redacted here.
//   - PutAlert, PutAlerts: written as given: alerts are the evidence under analysis.
//   - PutEmbedding, Reindex: computed from what is stored, already redacted.
//   - PutBatchJob, PutBatchReservation: job names, models, hashes, states and counts: no text of
//     an alert or a conversation.
//   - PutKnowledge: redacted here, text and indicators, with the workspace's keyed tokens and
//     without any alert's values kept, so an indicator that redaction replaces is stored as its
//     token and the same raw value in any alert still finds it (pkg/knowledge). Alert types
//     are rule names, written as given (they are matched against the alerts' own).
//   - DeleteHistory, MoveAside, DropMetadata: remove or move what is stored; a drop's reason is
//     the checker's own words.
//
// Reads pass through, and so does WorkspaceKey: the key is the redaction's own secret (it
// derives the tokens), created on first use by the backend; it is no text to redact, and
// changing it would change every token.
package redacting

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
)

// layer redacts every history it is asked to save, then saves it in the store it wraps. It
// implements every method of store.Store itself: a method added to the contract does not
// compile here until it is decided whether it writes text that needs redacting.
type layer struct {
	next     store.Store
	redactor redacthist.Redactor
}

var _ store.Store = (*layer)(nil)

// New wraps next so that every SaveHistory is redacted by r first.
func New(next store.Store, r redacthist.Redactor) store.Store {
	return &layer{next: next, redactor: r}
}

// SaveHistory redacts h in place and saves it. With a redactor that keeps an alert's values
// (redacthist.AlertRedactor), the values of h's alert are written as they are, as a session
// writes them; an alert that cannot be read keeps nothing.
func (s *layer) SaveHistory(ctx context.Context, h *record.History) error {
	red := redacthist.ForHistory(ctx, s.redactor, s.next, h)
	redacthist.History(red, h)
	return s.next.SaveHistory(ctx, h)
}

// PutKnowledge redacts the entry's text and indicators in place, then writes it.
func (s *layer) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	e.Text, _ = s.redactor.RedactString(e.Text)
	for i, v := range e.Indicators {
		e.Indicators[i], _ = s.redactor.RedactString(v)
	}
	return s.next.PutKnowledge(ctx, e)
}

// The rest passes through (see the package doc for why each write needs nothing).

func (s *layer) GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistory(ctx, id)
}
func (s *layer) GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error) {
	return s.next.GetHistoryMeta(ctx, id)
}
func (s *layer) DeleteHistory(ctx context.Context, id record.HistoryID) error {
	return s.next.DeleteHistory(ctx, id)
}
func (s *layer) ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error) {
	return s.next.ListHistories(ctx, q)
}
func (s *layer) FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error) {
	return s.next.FindHistories(ctx, prefix, limit)
}
func (s *layer) CountHistories(ctx context.Context, q store.HistoryQuery) (int, error) {
	return s.next.CountHistories(ctx, q)
}
func (s *layer) PutAlert(ctx context.Context, a *record.Alert) (bool, error) {
	return s.next.PutAlert(ctx, a)
}
func (s *layer) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	return s.next.PutAlerts(ctx, as)
}
func (s *layer) GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error) {
	return s.next.GetAlert(ctx, id)
}
func (s *layer) ListAlerts(ctx context.Context, q store.AlertQuery) (*store.AlertPage, error) {
	return s.next.ListAlerts(ctx, q)
}
func (s *layer) FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error) {
	return s.next.FindAlerts(ctx, prefix, limit)
}
func (s *layer) CountAlerts(ctx context.Context, q store.AlertQuery) (int, error) {
	return s.next.CountAlerts(ctx, q)
}
func (s *layer) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	return s.next.SearchAlerts(ctx, q)
}
func (s *layer) AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]store.AlertInvestigations, error) {
	return s.next.AlertInvestigations(ctx, ids)
}
func (s *layer) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	return s.next.SearchText(ctx, q)
}
func (s *layer) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	return s.next.SearchVector(ctx, v, alertID, limit)
}
func (s *layer) PutEmbedding(ctx context.Context, id record.HistoryID, from int, to int, v []float32) (bool, error) {
	return s.next.PutEmbedding(ctx, id, from, to, v)
}
func (s *layer) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	return s.next.EmbeddedCount(ctx, id)
}
func (s *layer) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	return s.next.Unindexed(ctx, after, limit)
}
func (s *layer) Reindex(ctx context.Context, id record.HistoryID) error {
	return s.next.Reindex(ctx, id)
}
func (s *layer) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	return s.next.PutBatchJob(ctx, j)
}
func (s *layer) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	return s.next.GetBatchJob(ctx, id)
}
func (s *layer) FindBatchJob(ctx context.Context, inputSHA256 string, model string) (*record.BatchJob, error) {
	return s.next.FindBatchJob(ctx, inputSHA256, model)
}
func (s *layer) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	return s.next.ListBatchJobs(ctx, limit)
}
func (s *layer) PutBatchReservation(ctx context.Context, r *record.BatchReservation, prev *record.BatchReservation) (*record.BatchReservation, error) {
	return s.next.PutBatchReservation(ctx, r, prev)
}
func (s *layer) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	return s.next.GetKnowledge(ctx, id)
}
func (s *layer) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	return s.next.ListKnowledge(ctx, q)
}
func (s *layer) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	return s.next.MatchKnowledge(ctx, keys, limit)
}
func (s *layer) ListObjects(ctx context.Context) ([]store.ObjectInfo, error) {
	return s.next.ListObjects(ctx)
}
func (s *layer) ListHistoryIDs(ctx context.Context) ([]record.HistoryID, error) {
	return s.next.ListHistoryIDs(ctx)
}
func (s *layer) MetadataExists(ctx context.Context, id record.HistoryID) (bool, error) {
	return s.next.MetadataExists(ctx, id)
}
func (s *layer) ReadObject(ctx context.Context, key string) ([]byte, error) {
	return s.next.ReadObject(ctx, key)
}
func (s *layer) MoveAside(ctx context.Context, key string) (string, error) {
	return s.next.MoveAside(ctx, key)
}
func (s *layer) DropMetadata(ctx context.Context, id record.HistoryID, reason string) (string, error) {
	return s.next.DropMetadata(ctx, id, reason)
}

func (s *layer) MaxAlertSize() int { return s.next.MaxAlertSize() }

func (s *layer) PendingHistories(ctx context.Context) map[record.HistoryID]*record.History {
	return s.next.PendingHistories(ctx)
}

func (s *layer) WorkspaceKey(ctx context.Context) ([]byte, error) { return s.next.WorkspaceKey(ctx) }

func (s *layer) Close() error { return s.next.Close() }
