// Package factory builds what the commands need from the run's configuration, lazily: the
// workspace's store (pkg/workspace), the Gemini client, the settings of the sessions they
// start, and the messages and exit codes of store and model errors. Making a Factory does no
// I/O, and opening its store prints and uploads nothing: a command uploads the spool's
// pending turns with UploadSpool. Only commands that use a store or the model import it, so a
// command that needs neither (redact) links none of Firestore, SQLite or genai.
package factory

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/spool"
	"github.com/alertchat/alertchat/pkg/tool"
	"github.com/alertchat/alertchat/pkg/tool/builtin"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// Factory is cmdutil.Factory with the constructors of the store stack and the model
// client: lazy functions a command calls only when it needs them.
type Factory struct {
	*cmdutil.Factory
	// Getenv reads the real environment (variables a .env may not set, ALERTCHAT_EVIDENCE).
	Getenv func(string) string
	// OpenStore opens the configured backend inside the stack every command uses (see
	// workspace.Stack). It uploads nothing and prints nothing: a command that uploads the
	// spool's pending turns calls UploadSpool.
	OpenStore func(ctx context.Context, o StoreOptions) (*Store, error)
	// LLM returns the Gemini client every model call of a command goes through, with the
	// retries and timeouts of the flags.
	LLM func(ctx context.Context, o LLMOptions) (*llm.Client, error)
	// Embedder returns the embedding model of --embeddings, nil when embeddings are off.
	Embedder func(ctx context.Context) (search.Embedder, error)
	// Batches returns the Gemini Batch API (batch --remote).
	Batches func(ctx context.Context) (*remote.Gemini, error)
	// Models returns the Gemini model list of the configured credentials (alertchat models).
	Models func(ctx context.Context) (modelcfg.Lister, error)
}

// SessionDeps are what a command that starts sessions (chat, batch) takes from the factory.
type SessionDeps struct {
	IO        *cmdutil.IOStreams
	Config    func() cmdutil.Config
	Logger    func() *slog.Logger
	OpenStore func(ctx context.Context, o StoreOptions) (*Store, error)
	LLM       func(ctx context.Context, o LLMOptions) (*llm.Client, error)
	Batches   func(ctx context.Context) (*remote.Gemini, error)
}

// SessionDeps returns the factory's parts for a command that starts sessions.
func (f *Factory) SessionDeps() SessionDeps {
	return SessionDeps{IO: f.IO, Config: f.Config, Logger: f.Logger, OpenStore: f.OpenStore, LLM: f.LLM, Batches: f.Batches}
}

// StoreOptions tune OpenStore for one command.
type StoreOptions struct {
	// IgnoreRecordedOutage tries the backend even when an earlier command recorded it down
	// (history sync: the user asks for the attempt).
	IgnoreRecordedOutage bool
	// Embedder, when set, embeds what each save adds (OpenStore sets it with --embeddings).
	Embedder search.Embedder
}

// LLMOptions tune LLM for one command.
type LLMOptions struct {
	// Limiter caps the request rate (nil: no limit).
	Limiter *llm.Limiter
	// OnRetry is told of every retry.
	OnRetry func(llm.Retry)
}

// NewFactory returns the factory of a run on ios. getenv reads the process environment for
// the Gemini SDK's own variables; cfg is filled by the root command once the flags are
// parsed, and must not change after.
func NewFactory(ios *cmdutil.IOStreams, getenv func(string) string, cfg *cmdutil.Config, logger **slog.Logger) *Factory {
	f := &Factory{Factory: cmdutil.NewFactory(ios, cfg, logger), Getenv: getenv}
	f.OpenStore = func(ctx context.Context, o StoreOptions) (*Store, error) {
		types, err := redact.ParseTypes(cfg.Redact)
		if err != nil {
			return nil, cmdutil.UsageErrorf("invalid --redact: %v", err)
		}
		if o.Embedder == nil {
			// Without a usable embedding model the store works as without --embeddings: the
			// embeddings of what is saved now catch up with a later save or a reindex.
			if o.Embedder, err = f.Embedder(ctx); err != nil {
				f.Logger().Warn("embeddings unavailable", "error", err)
				o.Embedder = nil
			}
		}
		calls := &store.CallCounter{}
		backend, err := workspace.OpenBackend(ctx, Settings(*cfg), calls)
		if err != nil {
			return nil, err
		}
		wo := stackOptions(f.IO, f.Logger(), o)
		wo.Calls, wo.Analyst = calls, newAnalyst(*cfg, getenv)
		return workspace.Stack(backend, Settings(*cfg), types, wo), nil
	}
	f.Embedder = func(ctx context.Context) (search.Embedder, error) {
		if !cfg.Embeddings {
			return nil, nil
		}
		client, err := geminiClient(ctx, getenv)
		if err != nil {
			return nil, err
		}
		return &search.GeminiEmbedder{Models: client.Models}, nil
	}
	f.LLM = func(ctx context.Context, o LLMOptions) (*llm.Client, error) {
		gc, err := GeminiConfig(getenv)
		if err != nil {
			return nil, err
		}
		return NewLLM(ctx, gc, cfg.Retry, f.Logger(), o)
	}
	f.Batches = func(ctx context.Context) (*remote.Gemini, error) {
		return newBatchService(ctx, getenv, *cfg)
	}
	f.Models = func(ctx context.Context) (modelcfg.Lister, error) {
		client, err := geminiClient(ctx, getenv)
		if err != nil {
			return nil, err
		}
		return client.Models, nil
	}
	return f
}

// Stack wraps an opened backend in the store stack of the run's settings (see
// workspace.Stack), with the warning of a missing token key on ios.ErrOut. It uploads nothing:
// the commands call UploadSpool.
func Stack(ios *cmdutil.IOStreams, cfg cmdutil.Config, logger *slog.Logger, backend store.Store, types []redact.Type, o StoreOptions) *Store {
	return workspace.Stack(backend, Settings(cfg), types, stackOptions(ios, logger, o))
}

func stackOptions(ios *cmdutil.IOStreams, logger *slog.Logger, o StoreOptions) workspace.Options {
	return workspace.Options{
		Logger: logger, IgnoreRecordedOutage: o.IgnoreRecordedOutage, Embedder: o.Embedder,
		OnKeyMissing: func(err error) {
			fmt.Fprintf(ios.ErrOut, "Warning: the workspace's token key is unavailable (%s): this command writes plain [REDACTED_TYPE] placeholders.\n", cmdutil.OneLine(cmdutil.Message(err)))
		},
	}
}

// Settings are the storage settings of cfg, as the workspace's store takes them.
func Settings(cfg cmdutil.Config) workspace.Settings {
	reads, writes := cfg.BreakerFiles()
	return workspace.Settings{
		DataDir: cfg.DataDir, FirestoreProject: cfg.FirestoreProject, FirestoreDatabase: cfg.FirestoreDatabase,
		Bucket: cfg.Bucket, Prefix: cfg.Prefix, Workspace: cfg.Workspace, TokenKeyFile: cfg.TokenKeyFile,
		StoreTimeout: cfg.StoreTimeout, BackendID: cfg.BackendID(), BreakerReads: reads, BreakerWrites: writes,
		SpoolRoot: cfg.SpoolRoot(),
	}
}

// UploadSpool uploads the turns the spool keeps (kept by an earlier command during an outage)
// and tells the user on w what it did. A failed upload leaves them there and warns: the
// command still runs.
func UploadSpool(ctx context.Context, w io.Writer, st *Store) {
	sp := st.Spool()
	if sp == nil {
		return
	}
	rep, err := st.Flush(ctx)
	ReportFlush(w, sp.Dir(), rep, err, false)
}

// WarnIfRedactionOff says out loud, before anything is written, that nothing will be redacted.
func WarnIfRedactionOff(w io.Writer, types string) {
	if ts, err := redact.ParseTypes(types); err == nil && len(ts) == 0 {
		fmt.Fprintln(w, "Warning: redaction is off (--redact none): personal data and secrets will be stored as typed.")
	}
}

// geminiClient makes a Gemini client from the SDK's standard variables.
func geminiClient(ctx context.Context, getenv func(string) string) (*genai.Client, error) {
	gc, err := GeminiConfig(getenv)
	if err != nil {
		return nil, err
	}
	return newGeminiClient(ctx, gc)
}

func newGeminiClient(ctx context.Context, gc *genai.ClientConfig) (*genai.Client, error) {
	client, err := genai.NewClient(ctx, gc)
	if err != nil {
		// The configuration holds the API key: never print it.
		return nil, goerr.Wrap(err, "failed to create the Gemini client", goerr.V("backend", gc.Backend.String()))
	}
	return client, nil
}

// NewLLM makes a Gemini client from gc and wraps its models with the retries of rc.
func NewLLM(ctx context.Context, gc *genai.ClientConfig, rc cmdutil.RetryConfig, logger *slog.Logger, o LLMOptions) (*llm.Client, error) {
	client, err := newGeminiClient(ctx, gc)
	if err != nil {
		return nil, err
	}
	// A request for a model that is not served names the models that can be used instead
	// (the list read once, on the first such refusal); 404s are never retried.
	return llm.New(modelcfg.NewExplainer(client.Models, client.Models), llm.Options{
		MaxAttempts: rc.MaxAttempts,
		MaxWait:     rc.MaxWait,
		CallTimeout: rc.CallTimeout,
		Limiter:     o.Limiter,
		OnRetry: func(r llm.Retry) {
			logger.Info("retrying a Gemini call", "attempt", r.Attempt, "wait", r.Wait.Round(time.Millisecond), "error", r.Err)
			if o.OnRetry != nil {
				o.OnRetry(r)
			}
		},
	}), nil
}

// SessionOptions are the settings of every session the command line starts (chat and batch
// build their sessions from them): the model client, the store below the redaction layer (a
// session redacts its own writes, keeping its alert's values), the workspace's keyed
// redaction, the spool, the context budget and who asks.
func SessionOptions(cfg cmdutil.Config, m llm.Generator, st *Store, logger *slog.Logger, titles bool) session.Options {
	// --thinking was checked (CheckThinking) before anything started.
	level, _ := modelcfg.For(cfg.Model).ParseLevel(cfg.Thinking)
	o := session.Options{
		LLM: m, Store: st.Sessions, Redactor: st.Redactor, Model: cfg.Model, Thinking: level, Titles: titles,
		MaxContextTokens: cfg.MaxContextTokens, Logger: logger,
	}
	// Looked up from now, while the first question is answered; each question's save names it.
	o.Analyst = st.AnalystName()
	if sp := st.Spool(); sp != nil {
		o.Spool = sp
	}
	return o
}

// CheckThinking refuses a --thinking level the model does not offer (or a word that is no
// level) as a usage error naming the levels it offers.
func CheckThinking(cfg cmdutil.Config) error {
	if _, err := modelcfg.For(cfg.Model).ParseLevel(cfg.Thinking); err != nil {
		return cmdutil.UsageErrorf("invalid --thinking: %v", err)
	}
	return nil
}

// ReportFlush tells the user, on stderr, what a spool flush did; verbose (history sync) also
// reports entries found already uploaded and an empty spool.
func ReportFlush(w io.Writer, dir string, rep *spool.Report, err error, verbose bool) {
	for _, u := range rep.Uploaded {
		switch {
		case u.ForkedFrom != "":
			fmt.Fprintf(w, "Uploaded turns kept locally: history %s was changed or removed meanwhile, so they went to a new history %s (a fork of it).\n", u.ForkedFrom, u.HistoryID)
		case u.AlreadySaved:
			if verbose {
				fmt.Fprintf(w, "History %s already held the turns kept locally.\n", u.HistoryID)
			}
		default:
			fmt.Fprintf(w, "Uploaded turns kept locally to history %s (%d messages).\n", u.HistoryID, u.Messages)
		}
	}
	for _, r := range rep.Rejected {
		fmt.Fprintf(w, "Warning: the store refused a conversation kept locally; it was moved to %s.\n", r)
	}
	if err != nil {
		fmt.Fprintf(w, "Warning: %s kept locally in %s could not be uploaded yet: %s\nThey stay there; a later command, or 'alertchat history sync', uploads them.\n",
			format.Plural(max(rep.Pending, 1), "conversation", "conversations"), dir, cmdutil.OneLine(cmdutil.Message(err)))
		return
	}
	if verbose && len(rep.Uploaded) == 0 && rep.Pending == 0 {
		fmt.Fprintln(w, "Nothing to upload: no turns are kept locally.")
	}
}

// ReportSave tells the user, on stderr, where a turn went when it is not simply saved: to a
// fork (another writer saved the history meanwhile) or to the local spool (the store failed).
func ReportSave(w io.Writer, turn *session.Turn, h *record.History) {
	if turn == nil {
		return
	}
	if turn.ForkedFrom != "" {
		fmt.Fprintf(w, "Note: history %s was changed by another writer since it was loaded; this turn was saved to a new history %s (a fork of it). Continue with: alertchat chat --history %s\n",
			turn.ForkedFrom, h.ID, h.ID)
	}
	if turn.Spooled {
		fmt.Fprintf(w, "Warning: the store is unavailable (%s); this turn of history %s is kept locally (in the spool of the data directory) and will be uploaded by the next command that reaches the store, or by 'alertchat history sync'.\n",
			cmdutil.OneLine(cmdutil.Message(turn.SpoolCause)), h.ID)
	}
}

// ToolOptions are the call loop's settings of chat and batch: --no-tools, --max-tool-calls,
// --max-tool-result.
type ToolOptions struct {
	NoTools   bool
	MaxCalls  int
	MaxResult int
	// Evidence are the folders of --evidence (evidence.go); set is them opened.
	Evidence []string
	set      *evidence.Set
}

// WithTools adds to o the built-in tools over st (the workspace's own store, read only) and the
// loop's limits; with NoTools it declares none.
func WithTools(o session.Options, st *Store, to ToolOptions) (session.Options, error) {
	o.MaxToolCalls, o.MaxToolResult = to.MaxCalls, to.MaxResult
	if to.NoTools {
		return o, nil
	}
	deps := builtin.Deps{Store: st, SearchStore: st, Alerts: st, Searcher: search.New(search.Options{
		// The workspace's key is fetched when a search first needs it, not when the chat starts.
		IndicatorTokens: func(q string) []string {
			if f := search.IndicatorTokens(st.Redactor.Engine()); f != nil {
				return f(q)
			}
			return nil
		},
	})}
	tools := builtin.Tools(deps)
	if to.set != nil {
		tools = append(tools, to.set.Tools()...)
	}
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		return o, err
	}
	o.Tools = reg
	return o, nil
}

// Check reports a limit that makes no sense as a usage error (0 means the default).
func (to ToolOptions) Check() error {
	switch {
	case to.MaxCalls < 0:
		return cmdutil.UsageErrorf("invalid --max-tool-calls %d: at least 1", to.MaxCalls)
	case to.MaxResult < 0 || to.MaxResult > 0 && to.MaxResult < 256:
		return cmdutil.UsageErrorf("invalid --max-tool-result %d: at least 256 bytes", to.MaxResult)
	}
	return to.checkEvidence()
}
