// Package cmd is alertchat's command line: one file per command, each parsing its flags into an
// options struct and calling a plain function with the IO streams and a store.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// Version is set at build time.
var Version = "dev"

// globalOptions are the flags every command shares.
type globalOptions struct {
	DataDir           string
	FirestoreProject  string
	FirestoreDatabase string
	Bucket            string
	Prefix            string
	Workspace         string
	Model             string
	LogLevel          string
	Verbose           bool
	Redact            string
	// MaxContextTokens is the token budget of one Gemini request (see pkg/convo).
	MaxContextTokens int

	io     *IOStreams
	logger *slog.Logger
	retry  retryOptions
	res    resilience // retries, circuit breaker and spool of the store (spool.go)
}

func envVar(name string) cli.ValueSourceChain { return cli.EnvVars("ALERTCHAT_" + name) }

func globalFlags(g *globalOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "data-dir", Usage: "directory of the embedded local store", Value: defaultDataDir(), Sources: envVar("DATA_DIR"), Destination: &g.DataDir},
		&cli.StringFlag{Name: "firestore-project", Usage: "Google Cloud project of Firestore (with --bucket: use the cloud store)", Sources: envVar("FIRESTORE_PROJECT"), Destination: &g.FirestoreProject},
		&cli.StringFlag{Name: "firestore-database", Usage: "Firestore database ID", Value: "(default)", Sources: envVar("FIRESTORE_DATABASE"), Destination: &g.FirestoreDatabase},
		&cli.StringFlag{Name: "bucket", Usage: "Cloud Storage bucket for transcripts (with --firestore-project: use the cloud store)", Sources: envVar("BUCKET"), Destination: &g.Bucket},
		&cli.StringFlag{Name: "prefix", Usage: "object key prefix, e.g. alertchat/", Sources: envVar("PREFIX"), Destination: &g.Prefix},
		&cli.StringFlag{Name: "workspace", Usage: "workspace: histories and alerts of other workspaces are invisible", Value: "default", Sources: envVar("WORKSPACE"), Destination: &g.Workspace},
		&cli.StringFlag{Name: "model", Usage: "Gemini model", Value: "gemini-2.5-flash", Sources: envVar("MODEL"), Destination: &g.Model},
		&cli.IntFlag{Name: "max-context-tokens", Usage: "token budget of one request (alert, summary, recent turns, question); older turns are summarised and left out, never deleted", Value: defaultMaxContextTokens, Sources: envVar("MAX_CONTEXT_TOKENS"), Destination: &g.MaxContextTokens},
		&cli.StringFlag{Name: "log-level", Usage: "debug, info, warn or error (logs go to stderr)", Value: "warn", Sources: envVar("LOG_LEVEL"), Destination: &g.LogLevel},
		&cli.StringFlag{Name: "redact", Usage: "what to redact before anything is stored: all, none, or a list of email,phone,cc,ssn,ip,api_key,secret", Value: "all", Sources: envVar("REDACT"), Destination: &g.Redact},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "debug logs and error details", Sources: envVar("VERBOSE"), Destination: &g.Verbose},
		&cli.DurationFlag{Name: "store-timeout", Usage: "how long a storage call retries a failing backend; a turn that still cannot be saved is kept locally and uploaded later", Value: defaultStoreTimeout, Sources: envVar("STORE_TIMEOUT"), Destination: &g.res.Timeout},
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

func (g *globalOptions) setup() error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.LogLevel)); err != nil {
		return usageErrorf("invalid --log-level %q: use debug, info, warn or error", g.LogLevel)
	}
	if g.Verbose {
		level = slog.LevelDebug
	}
	g.logger = slog.New(slog.NewTextHandler(g.io.ErrOut, &slog.HandlerOptions{Level: level}))
	if !store.ValidWorkspace(g.Workspace) {
		return usageErrorf("invalid --workspace %q: letters, digits, '.', '_' and '-', at most 64", g.Workspace)
	}
	if err := g.retry.validate(); err != nil {
		return err
	}
	if (g.FirestoreProject == "") != (g.Bucket == "") {
		return usageErrorf("the cloud store needs both --firestore-project and --bucket; set both, or neither for the local store")
	}
	if g.Prefix != "" && (strings.HasPrefix(g.Prefix, "/") || strings.Contains(g.Prefix, "..")) {
		return usageErrorf("invalid --prefix %q", g.Prefix)
	}
	return nil
}

// openStore opens the cloud store when a Firestore project and a bucket are set, else the
// embedded local store.
func (g *globalOptions) openStore(ctx context.Context) (store.Store, error) {
	if g.FirestoreProject != "" {
		return openCloudStore(ctx, g)
	}
	s, err := local.Open(ctx, local.Options{Dir: g.DataDir, Prefix: g.Prefix, Workspace: g.Workspace})
	if err != nil {
		return nil, goerr.Wrap(err, "failed to open the local store", goerr.V("dir", g.DataDir))
	}
	return s, nil
}

// withStore runs fn with an opened store, whose history writes all pass the redaction step,
// and closes it after.
func (g *globalOptions) withStore(ctx context.Context, fn func(store.Store) error) error {
	red, err := g.redactor()
	if err != nil {
		return err
	}
	s, err := g.openStore(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil {
			g.logger.Warn("failed to close store", "error", cerr)
		}
	}()
	return fn(g.prepareStore(ctx, s, red))
}

func newRoot(ios *IOStreams) (*cli.Command, *globalOptions) {
	g := &globalOptions{io: ios}
	root := &cli.Command{
		Name:    "alertchat",
		Usage:   "chat with Gemini about security alerts",
		Version: Version,
		Flags:   append(globalFlags(g), retryFlags(&g.retry)...),
		Reader:  ios.In, Writer: ios.Out, ErrWriter: ios.ErrOut,
		Before: func(ctx context.Context, c *cli.Command) (context.Context, error) {
			return ctx, g.setup()
		},
		Commands: []*cli.Command{
			alertCommand(g),
			chatCommand(g),
			historyCommand(g),
			redactCommand(g),
			batchCommand(g),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unknown command %q; see 'alertchat --help'", c.Args().First())
			}
			return cli.ShowRootCommandHelp(c)
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
	}
	markUsageErrors(root)
	bindEnvVars(root)
	return root, g
}

// markUsageErrors makes flag parsing errors of every command exit with ExitUsage.
func markUsageErrors(c *cli.Command) {
	c.OnUsageError = func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		return goerr.Wrap(errUsage, err.Error())
	}
	for _, sub := range c.Commands {
		markUsageErrors(sub)
	}
}

// Run runs the command line and returns the process's exit code.
func Run(ctx context.Context, args []string, ios *IOStreams) int {
	// The Gemini SDK reports some conditions (a cancelled stream, non-text parts) through the
	// standard logger; they are not for the user's terminal.
	log.SetOutput(io.Discard)
	root, g := newRoot(ios)
	err := root.Run(ctx, args)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if code == ExitFailure && isFlagError(err) {
		code = ExitUsage
	}
	printError(ios.ErrOut, err, g.Verbose)
	return code
}

// isFlagError recognises the parser's own errors that bypass OnUsageError.
func isFlagError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"flag provided but not defined", "Required flag", "invalid value", "flag needs an argument", "No help topic"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// readInput reads a file, or stdin for "-", refusing more than max bytes.
func readInput(ios *IOStreams, path string, max int64) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		r = ios.In
	} else {
		f, err := os.Open(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usageErrorf("cannot read %s: no such file", path)
			}
			return nil, usageErrorf("cannot read %s: %v", path, err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, usageErrorf("cannot read %s: it is a directory", path)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, usageErrorf("cannot read %s: %v", path, err)
	}
	if int64(len(data)) > max {
		return nil, usageErrorf("%s is larger than the limit of %d bytes", path, max)
	}
	return data, nil
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := jsonEncoder(w)
	if err := enc.Encode(v); err != nil {
		return goerr.Wrap(err, "failed to write JSON")
	}
	return nil
}

func outputFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErrorf("invalid output format %q: use %s", format, strings.Join(allowed, ", "))
}

var _ = fmt.Sprint
