// Package workspace is the store of one workspace as the command line uses it: the configured
// backend (cloud or local) inside the layers every command writes through (retries and circuit
// breaker, the workspace's keyed redaction), and beside that stack the outage spool and who
// asks. Opening it uploads nothing and prints nothing: the spool's pending turns are uploaded
// by an explicit Flush of the command that wants it.
package workspace

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/analyst"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/alertcache"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/embedding"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/redacting"
	"github.com/alertchat/alertchat/pkg/store/resilient"
	"github.com/alertchat/alertchat/pkg/store/spool"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// Settings are the run's storage settings, as plain values (the command line derives them
// from its flags).
type Settings struct {
	DataDir           string
	FirestoreProject  string
	FirestoreDatabase string
	Bucket            string
	Prefix            string
	Workspace         string
	// TokenKeyFile, when set, holds the operator's token key instead of the workspace's own.
	TokenKeyFile string
	// StoreTimeout bounds a storage call, retries included (pkg/store/resilient).
	StoreTimeout time.Duration
	// BackendID names the backend the settings select, so a spool is only ever flushed into
	// the store it was written for.
	BackendID string
	// BreakerReads and BreakerWrites are where the circuit breakers record an outage for the
	// commands that follow.
	BreakerReads, BreakerWrites string
	// SpoolRoot is where spools live.
	SpoolRoot string
}

// Cloud reports whether the cloud store is configured.
func (s Settings) Cloud() bool { return s.FirestoreProject != "" }

// Options tune the stack for one command.
type Options struct {
	// Logger receives the breaker's state changes, an unavailable spool, the calls count.
	Logger *slog.Logger
	// IgnoreRecordedOutage tries the backend even when an earlier command recorded it down
	// (history sync: the user asks for the attempt).
	IgnoreRecordedOutage bool
	// Embedder, when set, embeds what each save adds and each knowledge entry written.
	Embedder embedding.Embedder
	// OnKeyMissing is told, once, that the workspace's token key could not be had and plain
	// placeholders are written instead (the command line warns the user).
	OnKeyMissing func(error)
	// Analyst, when set, starts the lookup of who asks; it is called once, on first need.
	Analyst func(context.Context) *analyst.Naming
	// Calls (may be nil) counts the backend's requests, logged at debug level on Close.
	Calls *store.CallCounter
}

// Store is a command's opened store.
type Store struct {
	// Store is the stack every command writes through: the redaction of every history write,
	// over the embedding of what is saved, the local copies of alerts (cloud) and the retries
	// and circuit breakers, over the backend (see Stack).
	store.Store
	// spool keeps the turns the backend could not take during an outage (nil when it could not
	// be opened). Sessions put turns into it themselves (Spool); Flush uploads them through
	// the stack, and PendingHistories shows them in listings.
	spool *spool.Spool
	// Redactor is the workspace's keyed redaction: the redaction layer applies it to every
	// history write; sessions apply it themselves, keeping their alert's values.
	Redactor *KeyedRedactor
	// Sessions is the stack below the redaction layer. Sessions write into it: they redact
	// their writes themselves, with their alert's evidence, which a second pass without it
	// would undo.
	Sessions store.Store
	// MaxAlertSize is the size of the largest alert's JSON the backend stores, 0 when it has
	// no limit of its own (alert.MaxSize applies): a property of the backend the settings
	// select, known without asking it.
	MaxAlertSize int
	// Embedder is the embedding model of the stack (Options.Embedder; nil with embeddings
	// off): what finds the team's notes by meaning embeds an alert or a query with it.
	Embedder embedding.Embedder
	// Calls counts the backend's requests (logged at debug level on Close).
	Calls  *store.CallCounter
	logger *slog.Logger
	// analyst names who asks (see Analyst).
	analyst *analystSource
}

// Open opens the backend of s and wraps it in the stack (see Stack).
func Open(ctx context.Context, s Settings, types []redact.Type, o Options) (*Store, error) {
	backend, err := OpenBackend(ctx, s, o.Calls)
	if err != nil {
		return nil, err
	}
	return Stack(backend, s, types, o), nil
}

// OpenBackend opens the cloud store when a Firestore project and a bucket are set, else the
// embedded local store; calls (may be nil) counts its requests.
func OpenBackend(ctx context.Context, cfg Settings, calls *store.CallCounter) (store.Store, error) {
	if cfg.Cloud() {
		s, err := cloud.Open(ctx, cloud.Options{
			Project: cfg.FirestoreProject, Database: cfg.FirestoreDatabase,
			Bucket: cfg.Bucket, Prefix: cfg.Prefix, Workspace: cfg.Workspace, Calls: calls,
		})
		if err != nil {
			return nil, goerr.Wrap(err, "failed to open the cloud store",
				goerr.V("project", cfg.FirestoreProject), goerr.V("database", cfg.FirestoreDatabase), goerr.V("bucket", cfg.Bucket))
		}
		return s, nil
	}
	s, err := local.Open(ctx, local.Options{Dir: cfg.DataDir, Prefix: cfg.Prefix, Workspace: cfg.Workspace, Calls: calls})
	if err != nil {
		return nil, goerr.Wrap(err, "failed to open the local store", goerr.V("dir", cfg.DataDir))
	}
	return s, nil
}

// Stack wraps an opened backend in the layers every command uses, from the backend up:
// retries and circuit breaker (resilient), the local copies of alerts (alertcache, cloud only),
// the embedding of what is saved (with o.Embedder), and the redaction of every history write
// with the workspace's keyed tokens (redacting), redacting types; the local spool sits beside
// the stack. A spool that cannot be opened is logged: the command still runs, without it. Its
// pending turns stay where they are (see Flush).
func Stack(backend store.Store, cfg Settings, types []redact.Type, o Options) *Store {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ro := resilient.Options{
		Budget: cfg.StoreTimeout,
		OnStateChange: func(from, to resilient.State) {
			logger.Info("storage circuit breaker", "from", from.String(), "to", to.String())
		},
	}
	// A backend found down is recorded in the data dir for the breaker's cool-down, so the next
	// one-shot commands keep their turns locally at once instead of each waiting --store-timeout.
	ro.ReadMemory = resilient.NewFileMemory(cfg.BreakerReads, cfg.BackendID)
	ro.WriteMemory = resilient.NewFileMemory(cfg.BreakerWrites, cfg.BackendID)
	if o.IgnoreRecordedOutage {
		ro.ReadMemory.Closed()
		ro.WriteMemory.Closed()
	}
	rs := resilient.New(backend, ro)
	var below store.Store = rs
	if cfg.Cloud() {
		// Alerts never change once stored (their ID is their content's): a local copy saves the
		// read of a continuation's alert. Above the retries, a copy answers without a request,
		// so during an outage too, and never counts for or against the breaker (a copy says
		// nothing about the backend); a missing copy is read through the retries.
		below = alertcache.New(rs, cfg.DataDir, cfg.Workspace)
	}
	// The key is asked of the retries and the breaker like every other call (a backend recorded
	// down answers at once, and the copy below takes over).
	var src tokenkey.Source = rs
	if cfg.Cloud() {
		// The key never changes once made: a copy saves a Firestore read per command.
		src = tokenkey.CopyFirst(rs, keyCachePath(cfg))
	}
	red := NewKeyedRedactor(types, src, cfg.TokenKeyFile, o.OnKeyMissing, logger, max(cfg.StoreTimeout, resilient.DefaultBudget/10))
	sp, err := spool.Open(spool.Options{Root: cfg.SpoolRoot, Backend: cfg.BackendID, Workspace: cfg.Workspace, Redactor: red, Alerts: below})
	if err != nil {
		logger.Warn("local spool unavailable: turns the store cannot take will not be kept", "error", err)
		sp = nil
	}
	// Embedding goes below redaction: only what is stored is embedded.
	inner := embedding.New(below, o.Embedder, logger)
	st := &Store{Store: redacting.New(inner, red), spool: sp, Redactor: red, Sessions: inner, Embedder: o.Embedder, Calls: o.Calls, logger: logger}
	if cfg.Cloud() {
		st.MaxAlertSize = cloud.MaxAlertSize
	}
	if o.Analyst != nil {
		st.analyst = &analystSource{start: o.Analyst}
	}
	return st
}

// Close closes the stack and logs how many requests the command made to the backend.
func (s *Store) Close() error {
	if s.Calls != nil && s.logger != nil {
		s.logger.Debug("storage calls", "total", s.Calls.Total(), "calls", s.Calls.String())
	}
	return s.Store.Close()
}

// Spool returns the spool, or nil when there is none.
func (s *Store) Spool() *spool.Spool { return s.spool }

// Flush uploads the spool's pending turns through the stack (so through redaction).
func (s *Store) Flush(ctx context.Context) (*spool.Report, error) {
	if s.spool == nil {
		return &spool.Report{}, nil
	}
	return s.spool.Flush(ctx, s.Store)
}

// PendingHistories returns the newest spooled state of each history with turns not yet
// uploaded (nil without a spool). An unreadable spool shows what could be read.
func (s *Store) PendingHistories(context.Context) map[record.HistoryID]*record.History {
	if s.spool == nil {
		return nil
	}
	p, _ := s.spool.Pending()
	return p
}

// analystSource starts the lookup of who asks once, at the first call (it may run in the
// background while the first question is answered).
type analystSource struct {
	once   sync.Once
	start  func(ctx context.Context) *analyst.Naming
	result *analyst.Naming
}

func (a *analystSource) resolver(ctx context.Context) *analyst.Naming {
	a.once.Do(func() { a.result = a.start(ctx) })
	return a.result
}

// Analyst is who asks in this run, waiting for a lookup still under way (never longer than
// the lookup's own timeout). A stack opened without Options.Analyst has none: "".
func (s *Store) Analyst(ctx context.Context) string {
	if s.analyst == nil {
		return ""
	}
	return s.analyst.resolver(ctx).Name()
}

// AnalystName returns the function that names who asks, its lookup started now (nil without
// Options.Analyst): a session calls it at each question's save.
func (s *Store) AnalystName() func() string {
	if s.analyst == nil {
		return nil
	}
	return s.analyst.resolver(context.Background()).Name
}
