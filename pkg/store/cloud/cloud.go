// Package cloud implements store.Store on Firestore (metadata) and Cloud Storage (transcripts).
//
// Layout:
//   - Firestore collection "histories": one document per history, document ID = history ID
//     (a UUID), fields id, workspace, alert_id, title, title_source, parent_id, fork_point, created_at,
//     updated_at, message_count, usage {input_tokens, output_tokens, thought_tokens}, redactions,
//     redacted_count, revision, object_generation, summary {text, covers_count, created_at}
//     (absent until a conversation is summarised), pending_write (only while a save that replaces
//     a transcript its metadata does not describe yet is under way, see SaveHistory), questions
//     [{content, analyst, at}], analysts, verdict ("" while open) and resolution {verdict, note,
//     resolved_by, resolved_at, suggested} (absent while open), see verdicts.go.
//   - Firestore collection "alerts": one document per alert and workspace, document ID =
//     "{workspace}:{alert ID}" (see alertDocID), fields workspace, id, title, data (the alert
//     JSON as a string, exactly as given), created_at.
//   - Firestore collection "batch_jobs": one document per Gemini Batch API job and workspace,
//     document ID = "{workspace}:{job name}" with '%' and '/' percent-escaped (see
//     batchJobDocID), fields id (the full job name, "batches/..."), workspace, model,
//     input_sha256, state, requests, succeeded, failed, collected, created_at, updated_at.
//   - Firestore collection "knowledge": one document per team knowledge entry and workspace,
//     document ID = "{workspace}:{entry ID}", fields id, workspace, text, indicators,
//     alert_types, source {history_id, verdict} (null for an entry added by hand), author,
//     created_at, expires_at, retired_at (null when unset), retired, keys
//     (store.KnowledgeKeys), see knowledge.go.
//   - Cloud Storage object {prefix}histories/{history ID}.json: the transcript, a JSON array of
//     genai.Content (store.ObjectKey), content type application/json.
//
// Every query is a bounded, indexed query scoped to the workspace; the composite indexes real
// Firestore needs are in firestore.indexes.json at the repository root.
//
// Writes go content first, metadata second: a history's document never points at a transcript
// object that is missing. Concurrent writers are serialised by the object generation
// (storage.Conditions) and the document's update time (a firestore.LastUpdateTime
// precondition), both remembered from the load or the previous save, so a turn's save is two
// requests and a load reads the document and the object at once.
package cloud

import (
	"context"
	"errors"
	"net/http"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

const (
	historiesCollection = "histories"
	alertsCollection    = "alerts"
	batchJobsCollection = "batch_jobs"
	// reservationsCollection holds the reservations of batch jobs being submitted.
	reservationsCollection = "batch_reservations"
)

// Config wires a Store onto clients the caller owns: Close does not close them.
type Config struct {
	// Firestore is a client of any project and database (a named database is the caller's
	// firestore.NewClientWithDatabase).
	Firestore *firestore.Client
	// Bucket holds the transcript objects. The storage client should be created with
	// storage.WithJSONReads().
	Bucket *storage.BucketHandle
	// Prefix is prepended to every object key, e.g. "alertchat/". It is used as given and may
	// be empty.
	Prefix string
	// Workspace scopes every read and write (store.ValidWorkspace).
	Workspace string
	// Calls, when set, counts every request to Firestore and Cloud Storage.
	Calls *store.CallCounter
}

// Options are what Open needs to build its own clients.
type Options struct {
	Project   string // Google Cloud project of the Firestore database (required)
	Database  string // Firestore database ID; empty means "(default)"
	Bucket    string // Cloud Storage bucket of the transcripts (required)
	Prefix    string // object key prefix, used as given
	Workspace string // required, store.ValidWorkspace

	// Extra client options (endpoints, credentials); appended after the defaults.
	FirestoreOptions []option.ClientOption
	StorageOptions   []option.ClientOption

	// Calls, when set, counts every request to Firestore and Cloud Storage.
	Calls *store.CallCounter
}

// Store is a store.Store of one workspace on Firestore and Cloud Storage. It is safe for
// concurrent use.
type Store struct {
	fs        *firestore.Client
	bucket    *storage.BucketHandle
	prefix    string
	workspace string
	calls     *store.CallCounter
	states    states
	closers   []func() error

	// afterObjectWrite, when set (by tests), runs between a save's object write and its
	// metadata write.
	afterObjectWrite func(id record.HistoryID)
}

var _ store.Store = (*Store)(nil)

// New returns a Store on clients the caller owns.
func New(cfg Config) (*Store, error) {
	if cfg.Firestore == nil {
		return nil, goerr.Wrap(store.ErrInvalid, "firestore client is required")
	}
	if cfg.Bucket == nil {
		return nil, goerr.Wrap(store.ErrInvalid, "bucket is required")
	}
	if !store.ValidWorkspace(cfg.Workspace) {
		return nil, goerr.Wrap(store.ErrInvalid, "invalid workspace name", goerr.V("workspace", cfg.Workspace))
	}
	return &Store{fs: cfg.Firestore, bucket: cfg.Bucket, prefix: cfg.Prefix, workspace: cfg.Workspace, calls: cfg.Calls}, nil
}

// Open creates a Firestore client (project, database) and a Cloud Storage client, and returns a
// Store on them; Close closes both. FIRESTORE_EMULATOR_HOST and STORAGE_EMULATOR_HOST are
// honoured by the SDKs. The storage client reads through the JSON API
// (storage.WithJSONReads), which the emulators and real Cloud Storage both serve.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Project == "" {
		return nil, goerr.Wrap(store.ErrInvalid, "firestore project is required")
	}
	if o.Bucket == "" {
		return nil, goerr.Wrap(store.ErrInvalid, "bucket is required")
	}
	if !store.ValidWorkspace(o.Workspace) {
		return nil, goerr.Wrap(store.ErrInvalid, "invalid workspace name", goerr.V("workspace", o.Workspace))
	}
	db := o.Database
	if db == "" {
		db = firestore.DefaultDatabaseID
	}
	fs, err := firestore.NewClientWithDatabase(ctx, o.Project, db, o.FirestoreOptions...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to create firestore client",
			goerr.V("project", o.Project), goerr.V("database", db))
	}
	sopts := append([]option.ClientOption{storage.WithJSONReads()}, o.StorageOptions...)
	sc, err := storage.NewClient(ctx, sopts...)
	if err != nil {
		_ = fs.Close()
		return nil, goerr.Wrap(err, "failed to create storage client", goerr.V("bucket", o.Bucket))
	}
	s, err := New(Config{Firestore: fs, Bucket: sc.Bucket(o.Bucket), Prefix: o.Prefix, Workspace: o.Workspace, Calls: o.Calls})
	if err != nil {
		_ = fs.Close()
		_ = sc.Close()
		return nil, err
	}
	s.closers = []func() error{fs.Close, sc.Close}
	return s, nil
}

// Workspace returns the workspace the store is scoped to.
func (s *Store) Workspace() string { return s.workspace }

// Close closes the clients Open created; a Store from New has nothing to close.
func (s *Store) Close() error {
	var errs []error
	for _, c := range s.closers {
		if err := c(); err != nil {
			errs = append(errs, err)
		}
	}
	s.closers = nil
	if err := errors.Join(errs...); err != nil {
		return goerr.Wrap(err, "failed to close cloud store clients")
	}
	return nil
}

func (s *Store) histories() *firestore.CollectionRef { return s.fs.Collection(historiesCollection) }
func (s *Store) alerts() *firestore.CollectionRef    { return s.fs.Collection(alertsCollection) }
func (s *Store) batchJobs() *firestore.CollectionRef { return s.fs.Collection(batchJobsCollection) }
func (s *Store) reservations() *firestore.CollectionRef {
	return s.fs.Collection(reservationsCollection)
}

func isCode(err error, c codes.Code) bool { return status.Code(err) == c }

// isPreconditionFailed reports a failed storage write condition (HTTP 412, or gRPC
// FailedPrecondition).
func isPreconditionFailed(err error) bool {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code == http.StatusPreconditionFailed
	}
	return isCode(err, codes.FailedPrecondition)
}
