// Package sessionutil holds what the commands that start sessions (chat, batch, eval) share:
// the settings of every session (SessionOptions, CheckThinking), the call loop's tools and
// limits (ToolOptions, WithTools) and the evidence folders Gemini may read (EvidenceDirs,
// ToolOptions.OpenEvidence). It prints nothing; what a session did is told by cmd/report.
package sessionutil

import (
	"log/slog"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
	"github.com/alertchat/alertchat/pkg/tool/builtin"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// SessionOptions are the settings of every session the command line starts (chat, batch and
// eval build their sessions from them): the model client, the store below the redaction layer
// (a session redacts its own writes, keeping its alert's values), the workspace's keyed
// redaction, the spool, the context budget and who asks.
func SessionOptions(cfg cmdutil.Config, m llm.Generator, st *workspace.Store, logger *slog.Logger, titles bool) session.Options {
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

// ToolOptions are the call loop's settings of chat, batch and eval: --no-tools,
// --max-tool-calls, --max-tool-result.
type ToolOptions struct {
	NoTools   bool
	MaxCalls  int
	MaxResult int
	// NoKnowledge is --no-knowledge: the team's notes are neither given (WithKnowledge) nor
	// searchable (search_knowledge is left out).
	NoKnowledge bool
	// Evidence are the folders of --evidence (evidence.go); set is them opened.
	Evidence []string
	// BQMaxBytes is --bq-max-bytes: what one BigQuery query may scan ("" for the default).
	BQMaxBytes string
	set        *evidence.Set
}

// WithTools adds to o the built-in tools over st (the workspace's own store, read only) and the
// loop's limits; with NoTools it declares none.
func WithTools(o session.Options, st *workspace.Store, to ToolOptions) (session.Options, error) {
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
	if !to.NoKnowledge {
		deps.Knowledge = Retriever(st, o.Logger)
	}
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

// Retriever is the team knowledge of st: the notes of an alert and the search of the
// search_knowledge tool, by meaning too when st embeds (--embeddings). The workspace's key is
// fetched when a lookup first needs it. A failure to look up by meaning is logged once, as a
// warning, on logger: the investigations go on with the notes found by indicator and alert type.
func Retriever(st *workspace.Store, logger *slog.Logger) *knowledge.Retriever {
	r := &knowledge.Retriever{Store: st, Engine: st.Redactor.Engine, Now: time.Now}
	if st.Embedder != nil {
		if logger == nil {
			logger = slog.New(slog.DiscardHandler)
		}
		r.Meaning = &knowledge.Meaning{Store: st, Embedder: st.Embedder, Warn: func(err error) {
			logger.Warn("team notes by meaning unavailable; the notes found by indicator and alert type are given", "error", cmdutil.OneLine(cmdutil.Message(err)))
		}}
	}
	return r
}

// WithKnowledge gives every new investigation of o the team's notes on its alert (the path
// every command that starts investigations takes: chat, batch, eval); off (--no-knowledge)
// gives none.
func WithKnowledge(o session.Options, st *workspace.Store, off bool) session.Options {
	o.Knowledge = nil
	if !off {
		o.Knowledge = Retriever(st, o.Logger)
	}
	return o
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
