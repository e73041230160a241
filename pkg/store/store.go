// Package store defines how alerts and conversation histories are kept. Two implementations
// satisfy it: store/local (an embedded database and files, the default) and store/cloud
// (Firestore and Cloud Storage). Both enforce workspace isolation, optimistic concurrency and
// content-before-metadata ordering themselves, so no caller can get them wrong.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/sentinel"
)

var (
	// ErrNotFound is returned for a missing record and, identically, for a record of another
	// workspace.
	ErrNotFound = sentinel.NotFound
	// ErrConflict is returned when a history was saved by another writer since it was loaded.
	// Nothing is written.
	ErrConflict = errors.New("history was changed by another writer")
	// ErrInvalid is returned for a request the store refuses (bad ID, bad cursor, ...).
	ErrInvalid = sentinel.InvalidRequest
	// ErrNoSpace is returned when the backend's storage is full. Nothing was written: the
	// previous transcript and metadata are intact.
	ErrNoSpace = errors.New("disk full")
)

// HistoryQuery selects a page of histories, newest update first.
type HistoryQuery struct {
	AlertID record.AlertID // optional filter
	Limit   int            // <= 0 means DefaultLimit
	Cursor  string         // from a previous page's NextCursor; empty for the first page
	// UpdatedBefore, when set, keeps only histories last updated strictly before it.
	UpdatedBefore time.Time
	// Verdict, when set, keeps only histories resolved with it; Open keeps only histories
	// without a verdict (the two do not go together). Analyst keeps only histories in which
	// that analyst asked a question (record.History.Analysts, as stored).
	Verdict record.Verdict
	Open    bool
	Analyst string
}

// DefaultLimit is the page size when none is given; MaxLimit caps every page.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// HistoryPage is one page of history metadata (Contents is nil).
type HistoryPage struct {
	Histories  []*record.History
	NextCursor string // empty on the last page
}

// Histories keeps conversation histories of one workspace.
type Histories interface {
	// GetHistory returns the metadata and the transcript (read at once where they are apart).
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
	// GetHistoryMeta returns the metadata only.
	GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error)
	// SaveHistory writes the transcript, then the metadata, conditional on h.Revision (0 =
	// create). On success h.Revision, h.ContentVersion and h.Workspace are updated. A stale
	// revision returns ErrConflict and writes nothing.
	//
	// A store may remember what it last read or wrote of a history (a version of its metadata)
	// so that the next save of the revision it saw is conditional on that memory instead of a
	// fresh read: callers save the very history they loaded or last saved, carrying its
	// Revision and ContentVersion, and get the fewest requests. Anything written by someone
	// else in between still makes the save ErrConflict.
	SaveHistory(ctx context.Context, h *record.History) error
	// DeleteHistory removes the metadata and the transcript.
	DeleteHistory(ctx context.Context, id record.HistoryID) error
	// ListHistories returns a page of metadata, newest update first.
	ListHistories(ctx context.Context, q HistoryQuery) (*HistoryPage, error)
	// FindHistories returns the IDs of histories whose ID starts with prefix (at most limit).
	FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error)
}

// AlertQuery selects a page of alerts, newest first.
type AlertQuery struct {
	Limit  int
	Cursor string
	// Open leaves out the alerts whose tool closed them (record.Alert.Status set).
	Open bool
	// Severities, when set, keeps the alerts of these severities; Source, when set, the
	// alerts of that source.
	Severities []string
	Source     string
	// Untriaged keeps the alerts that have no triage yet (record.Alert.Triage nil); Triage,
	// when set, the alerts whose triage proposed that verdict (the two do not go together).
	// Both are served by an index on the triage's verdict, "" while untriaged.
	Untriaged bool
	Triage    record.Verdict
}

// AlertPage is one page of alerts (Data is nil in listings).
type AlertPage struct {
	Alerts     []*record.Alert
	NextCursor string
}

// Alerts keeps the alerts of one workspace.
type Alerts interface {
	// PutAlert stores a. When an alert with the same ID exists it is left untouched and
	// created is false.
	PutAlert(ctx context.Context, a *record.Alert) (created bool, err error)
	GetAlert(ctx context.Context, id record.AlertID) (*record.Alert, error)
	ListAlerts(ctx context.Context, q AlertQuery) (*AlertPage, error)
	// FindAlerts returns the IDs of alerts whose ID starts with prefix (at most limit), in ID
	// order.
	FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error)
}

// AlertsPutter stores many alerts in one exchange (a transaction where the backend has
// them): alert add and alert pull write thousands.
type AlertsPutter interface {
	// PutAlerts stores each alert as PutAlert does (one already stored is left untouched) and
	// returns how many were new. An error may leave some stored: putting them again is safe.
	PutAlerts(ctx context.Context, as []*record.Alert) (created int, err error)
}

// AlertTriager keeps the alerts' triage: the first look alertchat triage gave each (the
// alert's side of it; the investigation and its evidence are a history's, record.Triage).
type AlertTriager interface {
	// TriageAlert records t as alert id's triage, conditional on the triage the alert has: it
	// writes only when that is the one of history prev ("" for an alert without a triage), so
	// that of two runs triaging one alert at once only one wins. When the alert's triage is
	// already t's (t.HistoryID: a retry of a write that went through) it succeeds without
	// writing, so the write can be retried. Any other triage is ErrConflict and nothing is
	// written; a missing alert is ErrNotFound.
	TriageAlert(ctx context.Context, id record.AlertID, t *record.AlertTriage, prev record.HistoryID) error
	// AlertTriage returns alert id's triage, nil when it has none; a missing alert is
	// ErrNotFound.
	AlertTriage(ctx context.Context, id record.AlertID) (*record.AlertTriage, error)
}

// KeyStore keeps the workspace's secret key, from which its redaction tokens are derived
// (pkg/tokenkey, redact.Tokenizer).
type KeyStore interface {
	// WorkspaceKey returns the workspace's key, creating a random one on first use (once:
	// writers racing on a new workspace all get the same key).
	WorkspaceKey(ctx context.Context) ([]byte, error)
}

// Store is the whole storage contract: everything any command, tool or search asks of a
// store, typed. Both backends (store/local, store/cloud) implement all of it; the contract
// table (contract.go) says what each method is. Of the layers of the command line's stack
// (see layers.go) the retries implement every method explicitly, so no call can reach the
// backend around the retries and the breaker; the others embed the store below and declare
// only what they change. The named method sets it is made of (Histories, Alerts, BatchJobs,
// Checker, ...) are for code that needs only a part: ask for the smallest one where it is
// used.
type Store interface {
	Histories
	Counter
	Alerts
	AlertsPutter
	AlertTriager
	AlertCounter
	AlertSearcher
	InvestigationCounter
	Searcher
	VectorSearcher
	Indexer
	BatchJobs
	KnowledgeBase
	Checker
	KeyStore
	Close() error
}

// ObjectKey is the key of a history's transcript object, the same in every backend.
func ObjectKey(prefix string, id record.HistoryID) string {
	return prefix + "histories/" + string(id) + ".json"
}

// ClampLimit applies DefaultLimit and MaxLimit.
func ClampLimit(n int) int {
	switch {
	case n <= 0:
		return DefaultLimit
	case n > MaxLimit:
		return MaxLimit
	}
	return n
}
