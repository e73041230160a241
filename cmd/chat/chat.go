// Package chat is "alertchat chat": an interactive conversation on a terminal, or one question
// (-q, or a piped stdin) whose answer goes to stdout, as text or as one JSON object.
package chat

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/ergochat/readline"
	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	alertpkg "github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/tool"
)

// maxQuestionSize bounds a question read from stdin.
const maxQuestionSize = 1 << 20

// minContextTokens is the smallest --max-context-tokens accepted.
const minContextTokens = 1000

// Options are chat's.
type Options struct {
	factory.SessionDeps

	AlertID   string
	File      string
	Query     string
	HistoryID string
	Continue  bool
	Title     string
	Raw       bool
	Output    string
	NoTitles  bool
	// AutoContinue is --continue=auto; JudgeModel is --judge-model (see samechat.go).
	AutoContinue bool
	JudgeModel   string
	// NoRelated turns off the related conversations shown when an alert has none yet.
	NoRelated bool
	// Tools are --no-tools, --max-tool-calls and --max-tool-result.
	Tools sessionutil.ToolOptions
	// MCPConfig is --mcp-config: the MCP servers whose tools the chat offers.
	MCPConfig string
	// Getenv is the factory's seam on the environment, which the MCP wiring reads (the
	// config's default path, the variables the config names, where sign-ins are kept); nil
	// reads none.
	Getenv func(string) string
	// mcpHooks, in tests, replace the servers' transports and the first question's wait.
	mcpHooks *mcpHooks
}

// getenv reads the environment through Getenv; without it, none.
func (o *Options) getenv(key string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(key)
}

// clip keeps a title on one line of reasonable length.
func (o *Options) clip(title string) string {
	return format.Truncate(cmdutil.OneLine(title), 60, format.Ellipsis)
}

// NewCmdChat is "alertchat chat". Its defaults (-a, --raw, --no-title-generation, --continue,
// --judge-model) have ALERTCHAT_ variables; the question, files and IDs do not.
func NewCmdChat(f *factory.Factory, runF func(context.Context, *Options) error) *cli.Command {
	opts := &Options{SessionDeps: f.SessionDeps(), Getenv: f.Getenv}
	return &cli.Command{
		Name:  "chat",
		Usage: "chat with Gemini about an alert (interactive on a terminal, one question with -q or piped stdin)",
		Description: `Chats with Gemini about one alert. On a terminal it is interactive (Markdown rendered, /help
lists the chat's commands); with -q, or with stdin not a terminal, it answers one question and exits.
Gemini may call read-only tools over the store (and MCP servers' tools, asking you first unless the
server is trusted). Each conversation is saved, titled and redacted, as a history; --history or
--continue resumes one.

Examples:
  alertchat chat -a 514c60ac
  alertchat chat -f finding.json
  alertchat chat -a 514c60ac -q 'What happened, in two sentences?' -o json
  alertchat chat -a 514c60ac --continue

Exit status: 1 when Gemini or the store fails (the question is kept, its reply marked cut short),
2 for invalid flags, 3 for an unknown alert or history, 130 for Ctrl-C in a one-shot chat (what
arrived is saved first).`,
		UsageText: "alertchat chat -a ALERT_ID                 interactive\n" +
			"alertchat chat -f alert.json               add the alert, then chat\n" +
			"alertchat chat -a ALERT_ID -q TEXT [-o json] one question\n" +
			"echo TEXT | alertchat chat -a ALERT_ID     the whole stdin is the question\n" +
			"alertchat chat --history ID | -a ALERT_ID --continue   resume",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "alert", Aliases: []string{"a"}, Usage: "alert ID (full, or a unique prefix of 8+ characters)", Sources: cmdutil.EnvVar("ALERT"), Destination: &opts.AlertID},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "add this alert JSON file (- for stdin) and chat about it", Destination: &opts.File},
			&cli.StringFlag{Name: "query", Aliases: []string{"q"}, Usage: "ask one question, print the answer and exit", Destination: &opts.Query},
			&cli.StringFlag{Name: "history", Usage: "resume this history (full ID or a unique prefix of 8+ characters)", Destination: &opts.HistoryID},
			continueFlag(opts),
			&cli.StringFlag{Name: "judge-model", Usage: "model that tells whether a new chat's first question continues an earlier conversation (default: --model)", Sources: cmdutil.EnvVar("JUDGE_MODEL"), Destination: &opts.JudgeModel},
			&cli.StringFlag{Name: "title", Usage: "title the conversation yourself (never replaced by a generated one)", Destination: &opts.Title},
			&cli.BoolFlag{Name: "raw", Usage: "print the answer as raw text, without Markdown rendering", Sources: cmdutil.EnvVar("RAW"), Destination: &opts.Raw},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format (json: one question only)", Destination: &opts.Output}, "text", "json"),
			&cli.BoolFlag{Name: "no-related", Usage: "do not show related conversations of other alerts when this alert has none yet", Sources: cmdutil.EnvVar("NO_RELATED"), Destination: &opts.NoRelated},
			&cli.BoolFlag{Name: "no-title-generation", Usage: "title new conversations from their first line instead of asking Gemini", Sources: cmdutil.EnvVar("NO_TITLE_GENERATION"), Destination: &opts.NoTitles},
			&cli.StringFlag{Name: "mcp-config", Usage: "MCP servers' config file (default $XDG_CONFIG_HOME/alertchat/mcp.json when it exists)", Sources: cmdutil.EnvVar("MCP_CONFIG"), Destination: &opts.MCPConfig},
			&cli.BoolFlag{Name: "no-tools", Usage: "declare no tools: Gemini answers from the alert and the conversation only", Sources: cmdutil.EnvVar("NO_TOOLS"), Destination: &opts.Tools.NoTools},
			&cli.BoolFlag{Name: "no-knowledge", Usage: "give Gemini none of the team's knowledge (no notes, no search_knowledge)", Destination: &opts.Tools.NoKnowledge},
			&cli.IntFlag{Name: "max-tool-calls", Usage: "most tool calls per question; past it Gemini is asked to answer without tools", Value: session.DefaultMaxToolCalls, Sources: cmdutil.EnvVar("MAX_TOOL_CALLS"), Destination: &opts.Tools.MaxCalls},
			&cli.IntFlag{Name: "max-tool-result", Usage: "largest tool result sent to Gemini, in bytes of JSON; a larger one is cut and says so", Value: session.DefaultMaxToolResult, Sources: cmdutil.EnvVar("MAX_TOOL_RESULT"), Destination: &opts.Tools.MaxResult},
			// ALERTCHAT_EVIDENCE is read below, from the real environment only, split like PATH.
			&cli.StringSliceFlag{Name: "evidence", Usage: "a folder of collected logs, a Cloud Storage prefix gs://BUCKET/PREFIX or a BigQuery dataset bq://PROJECT.DATASET, Gemini may list, grep and query, read only (repeatable; default $" + sessionutil.EvidenceEnv + ", separated like PATH)", Destination: &opts.Tools.Evidence},
			sessionutil.BQMaxBytesFlag(&opts.Tools, true),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), `quote the question: -q "..."`); err != nil {
				return err
			}
			project := "" // no environment: a resource name is in no configured project
			if f.Getenv != nil {
				project = f.Getenv("GOOGLE_CLOUD_PROJECT")
			}
			if err := cmdutil.CheckModel("--judge-model", opts.JudgeModel, project); err != nil {
				return err
			}
			opts.Tools.Evidence = sessionutil.EvidenceDirs(opts.Tools.Evidence, c.IsSet("evidence"), f.Getenv)
			if runF != nil {
				return runF(ctx, opts)
			}
			return chatRun(ctx, opts)
		},
	}
}

func (o *Options) interactive() bool {
	return o.Query == "" && o.IO.StdinTTY && o.File != "-"
}

func (o *Options) validate() error {
	if err := cmdutil.CheckFormat(o.Output, "text", "json"); err != nil {
		return err
	}
	if err := o.Tools.Check(); err != nil {
		return err
	}
	if err := sessionutil.CheckThinking(o.Config()); err != nil {
		return err
	}
	switch {
	case o.AlertID != "" && o.File != "":
		return cmdutil.UsageErrorf("use -a ALERT_ID or -f FILE, not both")
	case o.AlertID == "" && o.File == "" && o.HistoryID == "":
		return cmdutil.UsageErrorf("say which alert: -a ALERT_ID, -f FILE, or --history ID")
	case o.HistoryID != "" && (o.Continue || o.AutoContinue):
		return cmdutil.UsageErrorf("use --history or --continue, not both")
	case o.File == "-" && o.Query == "":
		return cmdutil.UsageErrorf("with -f - the alert comes from stdin, so the question must be given with -q")
	case o.interactive() && o.Output == "json":
		return cmdutil.UsageErrorf("-o json needs one question: -q TEXT or a question on stdin")
	}
	if n := o.Config().MaxContextTokens; n < minContextTokens {
		return cmdutil.UsageErrorf("invalid --max-context-tokens %d: at least %d", n, minContextTokens)
	}
	return nil
}

// chatRun is chat's work: validate, read a piped question, open the conversation, then talk.
func chatRun(ctx context.Context, opts *Options) error {
	if err := opts.validate(); err != nil {
		return err
	}
	ios := opts.IO
	interactive := opts.interactive()
	// Read a piped question before anything else can fail, so bad input is reported first.
	question := opts.Query
	if !interactive && question == "" {
		data, err := cmdutil.ReadInput(ios, "-", maxQuestionSize)
		if err != nil {
			return err
		}
		question = string(data)
	}
	if !interactive && isBlank(question) {
		if opts.Query == "" && !ios.StdinTTY {
			// Nothing piped and no -q: most likely run where stdin is not a terminal (make, an
			// editor's task runner, a script), not an empty question on purpose.
			return cmdutil.UsageErrorf("the question is empty: stdin is not a terminal and held nothing; ask with -q \"...\", pipe the question in, or run the chat in a terminal")
		}
		return cmdutil.UsageErrorf("the question is empty")
	}
	cfg := opts.Config()
	cmdutil.WarnIfRedactionOff(ios.ErrOut, cfg.Redact)
	out := &oneShotJSON{opts: opts}
	err := run(ctx, opts, interactive, question, out)
	if err != nil && opts.Output == "json" && !out.printed {
		out.fail(err)
	}
	return err
}

func run(ctx context.Context, opts *Options, interactive bool, question string, out *oneShotJSON) error {
	if !interactive {
		// Ctrl-C cancels a one-shot's turn rather than killing the process: what arrived is
		// saved at a content boundary, -o json still prints its object, the terminal is
		// restored, and the exit status is 130. (An interactive chat handles it per answer.)
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		// A second Ctrl-C, while the turn is being saved, ends the process at once.
		go func() { <-ctx.Done(); stop() }()
	}
	s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	// An alert read from a file is stored first: its notes are looked up meanwhile, from its
	// content, so that writing it and looking them up cost one round trip, not two.
	var ahead *sessionutil.KnowledgeAhead
	defer func() {
		if ahead != nil {
			ahead.Stop()
		}
	}()
	read := func(a *record.Alert) {
		if !opts.Tools.NoKnowledge && opts.HistoryID == "" {
			ahead = sessionutil.LookUpAhead(ctx, sessionutil.Retriever(s, opts.Logger()), a)
		}
	}
	a, h, err := openConversation(ctx, opts, s, read)
	if err != nil {
		return err
	}
	out.alertID = a.ID
	if h != nil {
		out.historyID = h.ID
	}
	client, err := opts.LLM(ctx, factory.LLMOptions{})
	if err != nil {
		return err
	}
	cfg := opts.Config()
	closeEvidence, err := opts.Tools.OpenEvidence(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	defer closeEvidence()
	sessOpts, err := sessionutil.WithTools(sessionutil.SessionOptions(cfg, client, s, opts.Logger(), !opts.NoTitles), s, opts.Tools)
	if err != nil {
		return err
	}
	sessOpts = sessionutil.WithKnowledge(sessOpts, s, opts.Tools.NoKnowledge)
	if ahead != nil && sessOpts.Knowledge != nil {
		sessOpts.Knowledge = ahead
	}
	// MCP servers start now, in the background; the first question waits for them briefly, later
	// ones take the servers ready since.
	servers, err := startMCP(ctx, opts.IO, opts.getenv, mcpConfigPath(opts.MCPConfig, opts.getenv), sessOpts.Tools, opts.mcpHooks)
	if err != nil {
		return err
	}
	defer servers.close()
	// A question typed here exists nowhere else: a turn that ends without an answer, whatever
	// ended it, is saved with its reply marked cut short.
	sessOpts.KeepUnanswered = true
	conv := &conversation{opts: opts, cfg: cfg, store: s, llm: client, mcp: servers, tools: sessOpts.Tools, evidence: opts.Tools.EvidenceSet()}
	sessOpts.Approver = newApprover(opts.IO, conv.readApproval, conv.interruptTurn)
	servers.askWith(conv.readApproval)
	newSession := func(h *record.History) (*session.Session, error) { return session.New(sessOpts, a, h) }
	sess, err := newSession(h)
	if err != nil {
		return err
	}
	if opts.Title != "" {
		if err := sess.SetTitle(ctx, opts.Title); err != nil {
			return cmdutil.UsageErrorf("invalid --title: %v", err)
		}
	}
	conv.newSession = newSession
	if interactive {
		return runInteractive(ctx, conv, sess)
	}
	return conv.oneShot(ctx, sess, question, out)
}

// conversation is what a chat keeps to open sessions about its alert.
type conversation struct {
	opts       *Options
	cfg        cmdutil.Config
	store      *factory.Store
	llm        llm.Generator
	newSession func(*record.History) (*session.Session, error)
	// tools are the chat's tools (nil with --no-tools); mcp its MCP servers (nil without).
	tools *tool.Registry
	mcp   *mcpTools
	// evidence are the folders of --evidence (nil without).
	evidence *evidence.Set
	// lineReader, in an interactive chat, asks the approval questions through the line
	// editor; nil reads stdin.
	lineReader func(prompt string) (string, error)
	in         *lineFeed
	// interrupt, when set, cancels the turn in flight (Ctrl-C at an approval question).
	interrupt func()
}

// stdin is the one reader of stdin the one-shot questions (approvals, the judge's offer)
// share, so that no answer typed ahead is lost between them.
func (c *conversation) stdin() *lineFeed {
	if c.in == nil {
		c.in = &lineFeed{r: bufio.NewReader(c.opts.IO.In)}
	}
	return c.in
}

// readApproval reads the answer to an approval question from the terminal. Ctrl-C is
// errInterrupted: at the line editor's prompt it is a key; in a one-shot it cancels ctx.
func (c *conversation) readApproval(ctx context.Context, prompt string) (string, error) {
	if c.lineReader != nil {
		line, err := c.lineReader(prompt)
		if errors.Is(err, readline.ErrInterrupt) {
			return "", errInterrupted
		}
		return line, err
	}
	fmt.Fprint(c.opts.IO.ErrOut, prompt)
	line, err := c.stdin().next(ctx)
	if ctx.Err() != nil {
		fmt.Fprintln(c.opts.IO.ErrOut) // the question's line is left for the notices after it
		return "", errInterrupted
	}
	return line, err
}

// interruptTurn cancels the turn in flight, as Ctrl-C during an answer does.
func (c *conversation) interruptTurn() {
	if c.interrupt != nil {
		c.interrupt()
	}
}

// lineFeed reads stdin a line at a time for questions that may be given up (the turn was
// cancelled while waiting): a read given up is kept, and the next question takes its line.
type lineFeed struct {
	r       *bufio.Reader
	pending chan lineRead
}

type lineRead struct {
	line string
	err  error
}

// next returns the next line, or ctx's error when ctx ends first.
func (f *lineFeed) next(ctx context.Context) (string, error) {
	if f.pending == nil {
		ch := make(chan lineRead, 1)
		f.pending = ch
		go func() {
			line, err := f.r.ReadString('\n')
			ch <- lineRead{line, err}
		}()
	}
	select {
	case got := <-f.pending:
		f.pending = nil
		return got.line, got.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// openConversation finds the alert and, when resuming, the history. read is told of an alert
// read from a file before it is stored.
func openConversation(ctx context.Context, opts *Options, s store.Store, read func(*record.Alert)) (*record.Alert, *record.History, error) {
	var alertArg string
	switch {
	case opts.File != "":
		a, err := lookup.AlertFile(opts.IO, opts.File)
		if err != nil {
			return nil, nil, err
		}
		read(a)
		if err := alertpkg.Put(ctx, s, a, store.Now()); err != nil {
			return nil, nil, err
		}
		alertArg = string(a.ID)
	case opts.AlertID != "":
		alertArg = opts.AlertID
	}
	var h *record.History
	var a *record.Alert
	switch {
	case opts.HistoryID != "":
		id, err := lookup.HistoryID(ctx, s, opts.HistoryID)
		if err != nil {
			return nil, nil, err
		}
		if alertArg == "" {
			if h, err = lookup.LoadHistory(ctx, s, id, true); err != nil {
				return nil, nil, err
			}
			alertArg = string(h.AlertID)
			break
		}
		// Both are known: read them at once.
		var herr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			h, herr = lookup.LoadHistory(ctx, s, id, true)
		}()
		a, err = lookup.LoadAlert(ctx, s, alertArg)
		<-done
		if herr != nil {
			return nil, nil, herr
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if a == nil {
		var err error
		if a, err = lookup.LoadAlert(ctx, s, alertArg); err != nil {
			return nil, nil, err
		}
	}
	if h != nil && h.AlertID != a.ID {
		return nil, nil, cmdutil.UsageErrorf("history %s is about alert %s, not %s", h.ID, h.AlertID, a.ID)
	}
	if opts.Continue {
		page, err := s.ListHistories(ctx, store.HistoryQuery{AlertID: a.ID, Limit: 1})
		if err != nil {
			return nil, nil, goerr.Wrap(err, "failed to find the latest history", goerr.V("alert_id", a.ID))
		}
		if len(page.Histories) == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "No earlier conversation about alert %s: starting a new one.\n", a.ID)
			return a, nil, nil
		}
		if h, err = lookup.LoadHistory(ctx, s, page.Histories[0].ID, true); err != nil {
			return nil, nil, goerr.Wrap(err, "cannot resume the latest history")
		}
	}
	return a, h, nil
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}
