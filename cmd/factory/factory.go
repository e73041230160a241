// Package factory builds what the commands need from the run's configuration, lazily, as
// GitHub CLI's factory does: the workspace's store stack (pkg/workspace), the Gemini client and
// its retries, the Batch API, the model list, the embedder and who asks. Making a Factory does
// no I/O, and opening its store uploads and prints nothing (the store warns only when a write
// finds the workspace's token key unavailable): the messages a command prints are in
// cmd/cmdutil and cmd/report, the settings of the sessions it starts in cmd/sessionutil. Only
// commands that use a store or the model import it, so a command that needs neither (redact)
// links none of Firestore, SQLite or genai.
package factory

import (
	"context"
	"log/slog"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// Factory is cmdutil.Factory with the constructors of the store stack and the model
// client: lazy functions a command calls only when it needs them.
type Factory struct {
	*cmdutil.Factory
	// Getenv reads the real environment (variables a .env may not set, ALERTCHAT_EVIDENCE).
	Getenv func(string) string
	// OpenStore opens the configured backend inside the stack every command uses (see
	// workspace.Stack). It uploads nothing and prints nothing: commands open through
	// report.OpenAndUpload, which also uploads the spool's pending turns and says so.
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

// SessionDeps are what a command that starts sessions (chat, batch, eval) takes from the factory.
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
		backend, err := workspace.OpenBackend(ctx, settings(*cfg), calls)
		if err != nil {
			return nil, err
		}
		wo := stackOptions(f.IO, f.Logger(), o)
		wo.Calls, wo.Analyst = calls, newAnalyst(*cfg, getenv)
		return workspace.Stack(backend, settings(*cfg), types, wo), nil
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
		gc, err := geminiConfig(getenv)
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
