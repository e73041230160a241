// Package cmd is alertchat's command line. The root command parses the global flags into one
// cmdutil.Config and builds one factory.Factory; each command lives in a package of its own
// (cmd/alert, cmd/chat, cmd/history, cmd/batch, cmd/redact, cmd/mcp, cmd/models), copies from the factory what it
// needs into its options, and does its work in a plain function that tests call with fakes.
package cmd

import (
	"context"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/alert"
	"github.com/alertchat/alertchat/cmd/batch"
	"github.com/alertchat/alertchat/cmd/chat"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	evalcmd "github.com/alertchat/alertchat/cmd/eval"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/history"
	knowledgecmd "github.com/alertchat/alertchat/cmd/knowledge"
	mcpcmd "github.com/alertchat/alertchat/cmd/mcp"
	"github.com/alertchat/alertchat/cmd/models"
	"github.com/alertchat/alertchat/cmd/redact"
	triagecmd "github.com/alertchat/alertchat/cmd/triage"
	"github.com/alertchat/alertchat/pkg/analyst"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// Version is set at build time.
var Version = "dev"

// RunOptions customise a run; the zero value is the real program.
type RunOptions struct {
	// Getenv reads the environment for the Gemini SDK's variables and the emulator hosts
	// (default os.Getenv). Flags' ALERTCHAT_* variables are read by the flag parser.
	Getenv func(string) string
	// Customize, when set, may replace the factory's constructors (tests give a fake model
	// client or store here) before any command runs.
	Customize func(f *factory.Factory)
}

// Run runs the command line and returns the process's exit code.
func Run(ctx context.Context, args []string, ios *cmdutil.IOStreams) int {
	return RunWith(ctx, args, ios, RunOptions{})
}

// RunWith is Run with options.
func RunWith(ctx context.Context, args []string, ios *cmdutil.IOStreams, o RunOptions) int {
	// The Gemini SDK reports some conditions (a cancelled stream, non-text parts) through the
	// standard logger; they are not for the user's terminal.
	log.SetOutput(io.Discard)
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	root, cfg := newRoot(ios, o)
	enableCompletion(root, cfg, args)
	err := cmdutil.EnvValueError(root.Run(ctx, args))
	// Whatever a command left on the status line goes, and the cursor is shown again.
	ios.StopProgressIndicator()
	if err == nil {
		return cmdutil.ExitOK
	}
	code := cmdutil.ExitCode(err)
	cmdutil.PrintError(ios.ErrOut, err, cfg.Verbose)
	return code
}

// globalFlags are the flags every command shares; each has an ALERTCHAT_ variable.
func globalFlags(cfg *cmdutil.Config, logLevel *string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "data-dir", Usage: "directory of the embedded local store", Value: defaultDataDir(), DefaultText: "$XDG_DATA_HOME/alertchat, else ~/.local/share/alertchat", Sources: cmdutil.EnvVar("DATA_DIR"), Destination: &cfg.DataDir},
		&cli.StringFlag{Name: "firestore-project", Usage: "Google Cloud project of Firestore (with --bucket: use the cloud store)", Sources: cmdutil.EnvVar("FIRESTORE_PROJECT"), Destination: &cfg.FirestoreProject},
		&cli.StringFlag{Name: "firestore-database", Usage: "Firestore database ID", Value: "(default)", Sources: cmdutil.EnvVar("FIRESTORE_DATABASE"), Destination: &cfg.FirestoreDatabase},
		&cli.StringFlag{Name: "bucket", Usage: "Cloud Storage bucket for transcripts (with --firestore-project: use the cloud store)", Sources: cmdutil.EnvVar("BUCKET"), Destination: &cfg.Bucket},
		&cli.StringFlag{Name: "prefix", Usage: "object key prefix, e.g. alertchat/", Sources: cmdutil.EnvVar("PREFIX"), Destination: &cfg.Prefix},
		&cli.StringFlag{Name: "workspace", Usage: "workspace: histories and alerts of other workspaces are invisible", Value: "default", Sources: cmdutil.EnvVar("WORKSPACE"), Destination: &cfg.Workspace},
		&cli.StringFlag{Name: "model", Usage: "Gemini model ('alertchat models' lists those the credentials can use)", Value: modelcfg.DefaultModel, Sources: cmdutil.EnvVar("MODEL"), Destination: &cfg.Model},
		cmdutil.StringEnumFlag(&cli.StringFlag{Name: "thinking", Usage: "how much the model thinks before it answers, as the model offers the levels", DefaultText: "the model's own", Sources: cmdutil.EnvVar("THINKING"), Destination: &cfg.Thinking}, modelcfg.LevelValues()...),
		&cli.IntFlag{Name: "max-context-tokens", Usage: "token budget of one request (alert, summary, recent turns, question); older turns are summarised and left out, never deleted", Value: session.DefaultMaxContextTokens, Sources: cmdutil.EnvVar("MAX_CONTEXT_TOKENS"), Destination: &cfg.MaxContextTokens},
		&cli.BoolFlag{Name: "embeddings", Usage: "embed each history's and team knowledge entry's redacted text with Gemini as it is written, and search and give notes by meaning too", Sources: cmdutil.EnvVar("EMBEDDINGS"), Destination: &cfg.Embeddings},
		&cli.StringFlag{Name: "analyst", Usage: "who asks, recorded beside each question and on a verdict (default: the cloud store's Google identity, else user@host)", Sources: cmdutil.EnvVar("ANALYST"), Destination: &cfg.Analyst},
		cmdutil.StringEnumFlag(&cli.StringFlag{Name: "log-level", Usage: "what is logged (to stderr)", Value: "warn", Sources: cmdutil.EnvVar("LOG_LEVEL"), Destination: logLevel}, "debug", "info", "warn", "error"),
		&cli.StringFlag{Name: "redact", Usage: "what to redact before anything is stored: all, none, or a list of email,phone,cc,ssn,ip,api_key,secret,my_number", Value: "all", Sources: cmdutil.EnvVar("REDACT"), Destination: &cfg.Redact},
		&cli.StringFlag{Name: "token-key-file", Usage: "file holding the workspace's token key (64 hex characters), instead of the key kept with the workspace's records", Sources: cmdutil.EnvVar("TOKEN_KEY_FILE"), Destination: &cfg.TokenKeyFile},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logs and error details", Sources: cmdutil.EnvVar("VERBOSE"), Destination: &cfg.Verbose},
		&cli.DurationFlag{Name: "store-timeout", Usage: "how long a storage call retries a failing backend; a turn that still cannot be saved is kept locally and uploaded later", Value: resilient.DefaultBudget, Sources: cmdutil.EnvVar("STORE_TIMEOUT"), Destination: &cfg.StoreTimeout},
		&cli.IntFlag{Name: "max-attempts", Usage: "tries of one Gemini call on rate limits (429), server errors (5xx), timeouts and network errors", Value: llm.DefaultMaxAttempts, Sources: cmdutil.EnvVar("MAX_ATTEMPTS"), Destination: &cfg.Retry.MaxAttempts},
		&cli.DurationFlag{Name: "max-wait", Usage: "longest wait between two tries, a retry delay asked by the server included", Value: llm.DefaultMaxWait, Sources: cmdutil.EnvVar("MAX_WAIT"), Destination: &cfg.Retry.MaxWait},
		&cli.DurationFlag{Name: "call-timeout", Usage: "give up a try of a Gemini call after this long without a response (streamed answers: without a new chunk), and retry", Value: llm.DefaultCallTimeout, Sources: cmdutil.EnvVar("CALL_TIMEOUT"), Destination: &cfg.Retry.CallTimeout},
	}
}

// defaultDataDir is $XDG_DATA_HOME/alertchat, else ~/.local/share/alertchat.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "alertchat")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "alertchat")
	}
	return "alertchat-data"
}

// validate checks the global settings and returns the logger they ask for.
func validate(cfg *cmdutil.Config, logLevel string, errOut io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		return nil, cmdutil.UsageErrorf("invalid --log-level %q: use debug, info, warn or error", logLevel)
	}
	if cfg.Verbose {
		level = slog.LevelDebug
	}
	switch r := cfg.Retry; {
	case r.MaxAttempts < 1:
		return nil, cmdutil.UsageErrorf("invalid --max-attempts %d: at least 1 (1 means no retries)", r.MaxAttempts)
	case r.MaxWait <= 0:
		return nil, cmdutil.UsageErrorf("invalid --max-wait %s: it must be positive", r.MaxWait)
	case r.CallTimeout <= 0:
		return nil, cmdutil.UsageErrorf("invalid --call-timeout %s: it must be positive", r.CallTimeout)
	}
	if given := cfg.Analyst; given != "" {
		if cfg.Analyst = analyst.Clean(given); cfg.Analyst == "" {
			return nil, cmdutil.UsageErrorf("invalid --analyst: nothing is left of it once control characters are removed")
		}
	}
	if !store.ValidWorkspace(cfg.Workspace) {
		return nil, cmdutil.UsageErrorf("invalid --workspace %q: letters, digits, '.', '_' and '-', at most 64", cfg.Workspace)
	}
	if (cfg.FirestoreProject == "") != (cfg.Bucket == "") {
		return nil, cmdutil.UsageErrorf("the cloud store needs both --firestore-project and --bucket; set both, or neither for the local store")
	}
	if cfg.Prefix != "" && (strings.HasPrefix(cfg.Prefix, "/") || strings.Contains(cfg.Prefix, "..")) {
		return nil, cmdutil.UsageErrorf("invalid --prefix %q", cfg.Prefix)
	}
	opts := &slog.HandlerOptions{Level: level}
	if !cfg.Verbose {
		opts.ReplaceAttr = plainErrors
	}
	return slog.New(slog.NewTextHandler(errOut, opts)), nil
}

// plainErrors leaves out the stack trace (and empty tags) of a logged goerr error: a warning line
// says what failed, not where in the code (-v keeps them, for a bug report).
func plainErrors(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 && (a.Key == "stacktrace" || a.Key == "tags") {
		return slog.Attr{}
	}
	return a
}

func newRoot(ios *cmdutil.IOStreams, o RunOptions) (*cli.Command, *cmdutil.Config) {
	cfg := &cmdutil.Config{}
	var logger *slog.Logger
	var logLevel string
	f := factory.NewFactory(ios, o.Getenv, cfg, &logger)
	if o.Customize != nil {
		o.Customize(f)
	}
	root := &cli.Command{
		Name:  "alertchat",
		Usage: "chat with Gemini about security alerts",
		Description: `alertchat loads security alerts (GuardDuty, Security Hub, Security Command Center, Suricata, any JSON),
lets you ask Gemini about them, and keeps each conversation as a titled, redacted history you can list,
search, resume, resolve with a verdict and script. Without Google Cloud settings everything stays in an
embedded local store; with --firestore-project and --bucket, in Firestore and Cloud Storage.

Every global flag has an ALERTCHAT_ variable; .env in the working directory is read (see docs/configuration.md).

Examples:
  alertchat alert add -f finding.json
  alertchat chat -a ALERT_ID
  alertchat history search 203.0.113.7

Exit status: 0 success, 1 failure (Gemini, storage), 2 usage or invalid input, 3 not found,
130 interrupted.`,
		Version: Version,
		Flags:   globalFlags(cfg, &logLevel),
		Reader:  ios.In, Writer: ios.Out, ErrWriter: ios.ErrOut,
		Before: func(ctx context.Context, c *cli.Command) (context.Context, error) {
			cfg.EmulatorHosts = o.Getenv("FIRESTORE_EMULATOR_HOST") + "|" + o.Getenv("STORAGE_EMULATOR_HOST")
			cfg.Pager = o.Getenv("PAGER")
			l, err := validate(cfg, logLevel, ios.ErrOut)
			logger = l
			if err == nil {
				err = cmdutil.CheckModel("--model", cfg.Model, o.Getenv("GOOGLE_CLOUD_PROJECT"))
			}
			return ctx, err
		},
		Commands: []*cli.Command{
			alert.NewCmdAlert(f),
			chat.NewCmdChat(f, nil),
			history.NewCmdHistory(f),
			knowledgecmd.NewCmdKnowledge(f),
			redact.NewCmdRedact(f.Factory, nil),
			batch.NewCmdBatch(f, nil),
			mcpcmd.NewCmdMCP(f.Factory, o.Getenv),
			models.NewCmdModels(f, nil),
			evalcmd.NewCmdEval(f, nil),
			triagecmd.NewCmdTriage(f, nil),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return cmdutil.UsageErrorf("unknown command %q; see 'alertchat --help'", c.Args().First())
			}
			return cli.ShowRootCommandHelp(c)
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	markUsageErrors(root)
	return root, cfg
}

// markUsageErrors makes flag parsing errors of every command exit with ExitUsage.
func markUsageErrors(c *cli.Command) {
	c.OnUsageError = cmdutil.MarkUsage
	for _, sub := range c.Commands {
		markUsageErrors(sub)
	}
}
