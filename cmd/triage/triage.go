// Package triage is "alertchat triage": the first look at new alerts. Each selected alert is
// investigated as chat -q would, asked for a verdict with a confidence and the evidence it
// rests on, and the proposal is recorded on its history and on the alert (pkg/triage).
package triage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/evidence"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/triage"
)

// Options are triage's.
type Options struct {
	factory.SessionDeps

	IDs         []string
	Open        bool
	Since       string
	Limit       int
	Concurrency int
	Output      string
	Retriage    bool
	MaxCost     int64
	Tools       sessionutil.ToolOptions
	Remote      cmdutil.RemoteOptions
	Now         func() time.Time
}

// Limits of the selection and of the work at once.
const (
	defaultLimit = 50
	maxLimit     = store.MaxLimit
	maxWorkers   = 64
)

// NewCmdTriage is "alertchat triage [ALERT_ID...]".
func NewCmdTriage(f *factory.Factory, runF func(context.Context, *Options) error) *cli.Command {
	opts := &Options{SessionDeps: f.SessionDeps(), Now: time.Now}
	return &cli.Command{
		Name:  "triage",
		Usage: "investigate new alerts before an analyst opens them: a proposed verdict, its confidence and evidence",
		Description: `Investigates each alert as chat -q would (the same system instruction, tools, evidence and
limits, with a question asking for a triage), then asks for a verdict with a confidence (0 to 1)
and the evidence it rests on, as history resolve --suggest does. Each investigation is saved as a
history (titled, redacted) carrying the proposal, "triage"; the alert shows it in alert list
(TRIAGE) and alert show. A proposal is never a resolution: the history and the alert stay open
until an analyst resolves them (history resolve records whether they agreed: "triage_agreed").

Without IDs it takes the open alerts that have no triage yet, newest first (--limit, --since).
--open takes every open alert; one already triaged is skipped unless --retriage (it prints no
line; the summary on stderr counts it). When two runs triage one alert at once, one proposal
is kept: the other run keeps its investigation as an ordinary history and says so.

Output: one line per alert, as each finishes when piped, a table sorted by proposed verdict and
confidence on a terminal (with progress on stderr); -o json prints one object a line:
{"alert_id","history_id","verdict","confidence","evidence","error","usage"}. A summary line on
stderr counts the verdicts, the skipped and failed alerts and the tokens spent.

Examples:
  alertchat triage                            # the newest 50 open alerts without a triage
  alertchat triage --since 24h --concurrency 8 -o json
  alertchat triage 3f2a9c1e --retriage --evidence ./logs
  alertchat alert list --triage false_positive

--remote --no-tools asks every alert's investigation through one Gemini Batch API job (about
half the price, answered within hours), as eval --remote does: the same first request a local
triage --no-tools sends. The job is recorded: the same command run again waits for it, or
triages from it when it is done, instead of submitting again (--resubmit asks again, --no-wait
submits and exits). The verdicts are asked directly once the job is done.

Exit status: 3 for an unknown alert ID (before anything runs); 1 when an alert's investigation
failed (its line says why; the others go on); 130 when interrupted (the finished alerts are kept
and reported).`,
		UsageText: "alertchat triage [ALERT_ID...] [--open] [--since D] [--limit N] [--concurrency N] [--evidence DIR]... [--no-knowledge] [--retriage] [--max-cost-tokens N] [-o table|json]\n" +
			"alertchat triage --no-tools --remote [--no-wait] [--resubmit] [--poll-interval D]   (through the Batch API)",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "open", Usage: "every open alert, not only those without a triage (a triaged one is skipped unless --retriage)", Destination: &opts.Open},
			&cli.StringFlag{Name: "since", Usage: "only alerts stored within this long (24h, 7d, ...)", Destination: &opts.Since},
			&cli.IntFlag{Name: "limit", Usage: "at most N alerts", Value: defaultLimit, Destination: &opts.Limit},
			&cli.IntFlag{Name: "concurrency", Usage: "investigations at once", Value: 4, Destination: &opts.Concurrency},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format", Value: "table", Destination: &opts.Output}, "table", "json"),
			&cli.BoolFlag{Name: "retriage", Usage: "triage alerts that have a triage again (the new proposal replaces the old one on the alert)", Destination: &opts.Retriage},
			&cli.Int64Flag{Name: "max-cost-tokens", Usage: "start no new investigation once the tokens spent pass N (the finished ones are kept)", Destination: &opts.MaxCost},
			&cli.BoolFlag{Name: "no-knowledge", Usage: "give the investigations none of the team's knowledge", Destination: &opts.Tools.NoKnowledge},
			&cli.BoolFlag{Name: "no-tools", Usage: "declare no tools", Destination: &opts.Tools.NoTools},
			&cli.IntFlag{Name: "max-tool-calls", Usage: "most tool calls per investigation", Value: session.DefaultMaxToolCalls, Destination: &opts.Tools.MaxCalls},
			&cli.IntFlag{Name: "max-tool-result", Usage: "largest tool result sent to Gemini, in bytes of JSON", Value: session.DefaultMaxToolResult, Destination: &opts.Tools.MaxResult},
			&cli.StringSliceFlag{Name: "evidence", Usage: "a folder of collected logs, a Cloud Storage prefix gs://BUCKET/PREFIX or a BigQuery dataset bq://PROJECT.DATASET, Gemini may list, grep and query in every investigation, read only (repeatable)", Destination: &opts.Tools.Evidence},
			sessionutil.BQMaxBytesFlag(&opts.Tools, false),
		}, opts.Remote.Flags(remote.DefaultPollInterval, cmdutil.RemoteUsage{
			Remote:       "investigate through one Gemini Batch API job (about half the price, answered within hours; needs --no-tools)",
			Resubmit:     "with --remote: submit a new job even when one for these alerts is recorded",
			NoWait:       `with --remote: record the job, print {"job": NAME} and exit`,
			PollInterval: "with --remote: pause between two looks at the job (backing off on errors)",
		})...),
		Action: func(ctx context.Context, c *cli.Command) error {
			opts.IDs = c.Args().Slice()
			if err := check(opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return triageRun(ctx, opts)
		},
	}
}

// check refuses flags that make no sense.
func check(opts *Options) error {
	switch {
	case opts.Limit < 1 || opts.Limit > maxLimit:
		return cmdutil.UsageErrorf("invalid --limit %d: 1 to %d", opts.Limit, maxLimit)
	case opts.Concurrency < 1 || opts.Concurrency > maxWorkers:
		return cmdutil.UsageErrorf("invalid --concurrency %d: 1 to %d", opts.Concurrency, maxWorkers)
	case opts.MaxCost < 0:
		return cmdutil.UsageErrorf("invalid --max-cost-tokens %d: a number of tokens, 0 for no bound", opts.MaxCost)
	case len(opts.IDs) > 0 && (opts.Open || opts.Since != ""):
		return cmdutil.UsageErrorf("--open and --since select alerts: give them or alert IDs, not both")
	}
	if opts.Since != "" {
		if _, err := cmdutil.ParseAge(opts.Since); err != nil {
			return cmdutil.UsageErrorf("invalid --since: %v", err)
		}
	}
	if err := cmdutil.CheckFormat(opts.Output, "table", "json"); err != nil {
		return err
	}
	if err := checkRemote(opts); err != nil {
		return err
	}
	return opts.Tools.Check()
}

func triageRun(ctx context.Context, opts *Options) error {
	cfg := opts.Config()
	if err := sessionutil.CheckThinking(cfg); err != nil {
		return err
	}
	closeEvidence, err := opts.Tools.OpenEvidence(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	defer closeEvidence()

	ctx, stop := cmdutil.StopOnSignal(ctx)
	defer stop()

	s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	sel, err := selectAlerts(ctx, opts, s)
	if err != nil {
		return err
	}
	if len(sel.items) == 0 {
		if len(opts.IDs) == 0 && sel.skipped == 0 {
			fmt.Fprintln(opts.IO.ErrOut, "No open alerts without a triage.")
		}
		fmt.Fprintln(opts.IO.ErrOut, (&triage.Summary{}).Line(sel.skipped, opts.MaxCost))
		return nil
	}
	client, err := opts.LLM(ctx, factory.LLMOptions{})
	if err != nil {
		return err
	}
	base, err := sessionutil.WithTools(sessionutil.SessionOptions(cfg, client, s, opts.Logger(), true), s, opts.Tools)
	if err != nil {
		return err
	}
	base = sessionutil.WithKnowledge(base, s, opts.Tools.NoKnowledge)
	investigate := sessionutil.NewInvestigator(base, cfg.Thinking)
	if opts.Remote.Enabled {
		var done bool
		if investigate, done, err = remoteInvestigator(ctx, opts, cfg, client, s, base, sel.items); err != nil || done {
			return err
		}
	}
	return run(ctx, opts, sessionutil.TriageOptions(cfg, client, s, investigate), sel)
}

// run triages sel through to and prints what it did.
func run(ctx context.Context, opts *Options, to triage.Options, sel *selection) error {
	to.Concurrency, to.MaxCostTokens, to.Describe = opts.Concurrency, opts.MaxCost, describe
	out := newPrinter(opts.IO, opts.Output, len(sel.items))
	to.OnResult = out.result
	sum := triage.Run(ctx, sel.items, to)
	if err := out.finish(sum); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.ErrOut, sum.Line(sel.skipped, opts.MaxCost))
	if set := opts.Tools.EvidenceSet(); set != nil && len(set.Datasets()) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "BigQuery: %s.\n", evidence.BQCost(set.BigQueryBytes()))
	}
	return outcome(sum)
}

// describe is an alert's error for a person: a model's error as chat says it.
func describe(err error) string { return cmdutil.Message(report.DescribeModelError(err)) }

// outcome is the exit: 130 when interrupted, 1 when an alert failed.
func outcome(sum *triage.Summary) error {
	if sum.Interrupted {
		return goerr.Wrap(context.Canceled, "interrupted: the alerts that finished are kept")
	}
	failed := 0
	for _, r := range sum.Results {
		if r.Error != nil {
			failed++
		}
	}
	if failed > 0 {
		return goerr.New(fmt.Sprintf("%d of %d alerts could not be triaged (see their lines)", failed, len(sum.Results)))
	}
	return nil
}

// selection is what a run triages, and how many chosen alerts it skips as already triaged.
type selection struct {
	items   []triage.Item
	skipped int
}

// selectAlerts reads the alerts named on the command line (an unknown one is exit 3 before
// anything runs) or, by default, the open alerts without a triage, newest first: one query on
// the store's index of the triage state.
func selectAlerts(ctx context.Context, opts *Options, s store.Store) (*selection, error) {
	sel := &selection{}
	if len(opts.IDs) > 0 {
		seen := map[record.AlertID]bool{}
		for _, arg := range opts.IDs {
			id, err := lookup.AlertID(ctx, s, arg)
			if err != nil {
				return nil, err
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			a, err := s.GetAlert(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				return nil, lookup.AlertNotFound(arg)
			} else if err != nil {
				return nil, err
			}
			t, err := s.AlertTriage(ctx, id)
			if err != nil {
				return nil, err
			}
			sel.add(a, t, opts.Retriage)
		}
		return sel, nil
	}
	q := store.AlertQuery{Open: true, Untriaged: !opts.Open}
	var since time.Time
	if opts.Since != "" {
		age, _ := cmdutil.ParseAge(opts.Since) // checked
		since = opts.Now().Add(-age)
	}
	listed := 0
	for listed < opts.Limit {
		q.Limit = opts.Limit - listed
		page, err := s.ListAlerts(ctx, q)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list alerts")
		}
		for _, a := range page.Alerts {
			if !since.IsZero() && a.CreatedAt.Before(since) {
				return sel, nil // newest first: the rest are older still
			}
			listed++
			sel.add(a, a.Triage, opts.Retriage)
		}
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			break
		}
	}
	return sel, nil
}

// add chooses a, whose triage is t: skipped when it has one, unless retriage.
func (sel *selection) add(a *record.Alert, t *record.AlertTriage, retriage bool) {
	switch {
	case t == nil:
		sel.items = append(sel.items, triage.Item{Alert: a})
	case retriage:
		sel.items = append(sel.items, triage.Item{Alert: a, Prev: t.HistoryID})
	default:
		sel.skipped++
	}
}
