// Package eval is "alertchat eval": how well the model, with alertchat's prompts and tools,
// triages labelled alerts (cases from a JSONL file or the workspace's resolved
// investigations), one or several models side by side.
package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// Options are eval's.
type Options struct {
	factory.SessionDeps

	File        string
	FromHistory bool
	Repeat      int
	Concurrency int
	Output      string
	MinAccuracy float64
	Save        bool
	Tools       sessionutil.ToolOptions
	Remote      cmdutil.RemoteOptions
}

// NewCmdEval is "alertchat eval -f CASES.jsonl | --from-history".
func NewCmdEval(f *factory.Factory, runF func(context.Context, *Options) error) *cli.Command {
	opts := &Options{SessionDeps: f.SessionDeps()}
	return &cli.Command{
		Name:  "eval",
		Usage: "measure how well the model triages labelled alerts: accuracy, consistency, evidence, tokens",
		Description: `Investigates each labelled case afresh as a one-shot chat would (the same system instruction and
tools), asks for a verdict with the evidence it rests on (as history resolve --suggest does), and
reports per model: accuracy, the confusion matrix, consistency across --repeat runs, recall of the
case's must_mention indicators, evidence cited that appears in neither the alert nor any tool
result, tokens and seconds. Cases come from a JSONL file or from the workspace's resolved
investigations (their verdicts as labels). Nothing is saved as a history unless --save.

--remote --no-tools asks every run's investigation through the Gemini Batch API, one job per
model (about half the price, answered within hours): the same first request a local eval
--no-tools sends; a job cannot run tool calls, so --remote needs --no-tools. The jobs are
recorded: the same command run again waits for them, or scores them when they are done,
instead of submitting again (--resubmit asks again, --no-wait submits and exits). The verdict
requests are asked directly once the job is done, and a run the job did not answer is an error.

Examples:
  alertchat eval --from-history --model gemini-3.8-flash,gemini-3.7-flash
  alertchat eval -f testdata/eval/cases.jsonl --repeat 3 -o json --min-accuracy 0.8
  alertchat eval -f cases.jsonl --no-tools --remote --no-wait   # later: the same command without --no-wait

Exit status: 2 for a line that is not a case, an unknown verdict or alert (naming the line);
1 when a model cannot be used or falls below --min-accuracy, or a --remote job failed, expired
or was cancelled (the report of what it answered is printed first); 130 when interrupted (the
report of the finished runs is printed first; a --remote job goes on).`,
		UsageText: "alertchat eval -f cases.jsonl [--model A,B] [--repeat N] [--concurrency N] [-o json] [--min-accuracy X]\n" +
			"alertchat eval --from-history [--model A,B] ...   (the workspace's resolved investigations, their verdicts as labels)\n" +
			"alertchat eval -f cases.jsonl --no-tools --remote [--no-wait] [--resubmit] [--poll-interval D]   (through the Batch API)\n" +
			`case lines:  {"id", "alert": {...} | "alert_id": ID, "verdict": V, "must_mention": [...], "question": "..."}`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "JSONL file of cases, - for stdin", Destination: &opts.File},
			&cli.BoolFlag{Name: "from-history", Usage: "take the cases from the workspace's resolved investigations", Destination: &opts.FromHistory},
			&cli.IntFlag{Name: "repeat", Usage: "investigate each case N times (consistency)", Value: 1, Destination: &opts.Repeat},
			&cli.IntFlag{Name: "concurrency", Usage: "investigations at once", Value: 4, Destination: &opts.Concurrency},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format", Value: "table", Destination: &opts.Output}, "table", "json"),
			&cli.FloatFlag{Name: "min-accuracy", Usage: "exit 1 when a model's accuracy is below X (0 to 1)", Destination: &opts.MinAccuracy},
			&cli.BoolFlag{Name: "save", Usage: "keep each investigation as a history (titled, redacted)", Destination: &opts.Save},
			&cli.BoolFlag{Name: "no-tools", Usage: "declare no tools", Destination: &opts.Tools.NoTools},
			&cli.BoolFlag{Name: "no-knowledge", Usage: "give Gemini none of the team's knowledge (no notes, no search_knowledge)", Destination: &opts.Tools.NoKnowledge},
			&cli.IntFlag{Name: "max-tool-calls", Usage: "most tool calls per investigation", Value: session.DefaultMaxToolCalls, Destination: &opts.Tools.MaxCalls},
			&cli.IntFlag{Name: "max-tool-result", Usage: "largest tool result sent to Gemini, in bytes of JSON", Value: session.DefaultMaxToolResult, Destination: &opts.Tools.MaxResult},
			&cli.StringSliceFlag{Name: "evidence", Usage: "a folder of collected logs, a Cloud Storage prefix gs://BUCKET/PREFIX or a BigQuery dataset bq://PROJECT.DATASET, Gemini may list, grep and query in every investigation, read only (repeatable)", Destination: &opts.Tools.Evidence},
			sessionutil.BQMaxBytesFlag(&opts.Tools, false),
		}, opts.Remote.Flags(remote.DefaultPollInterval, cmdutil.RemoteUsage{
			Remote:       "investigate through one Gemini Batch API job per model (about half the price, answered within hours; needs --no-tools)",
			Resubmit:     "with --remote: submit new jobs even when jobs for these cases are recorded",
			NoWait:       `with --remote: record the jobs, print {"job": NAME} for each and exit`,
			PollInterval: "with --remote: pause between two looks at a job (backing off on errors)",
		})...),
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), "the cases come from -f FILE or --from-history"); err != nil {
				return err
			}
			if err := check(opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return evalRun(ctx, opts)
		},
	}
}

// check refuses flags that make no sense together or alone.
func check(opts *Options) error {
	switch {
	case (opts.File == "") == !opts.FromHistory:
		return cmdutil.UsageErrorf("say where the cases come from: -f FILE or --from-history (one of them)")
	case opts.Repeat < 1 || opts.Repeat > 100:
		return cmdutil.UsageErrorf("invalid --repeat %d: 1 to 100", opts.Repeat)
	case opts.Concurrency < 1 || opts.Concurrency > 64:
		return cmdutil.UsageErrorf("invalid --concurrency %d: 1 to 64", opts.Concurrency)
	case opts.MinAccuracy < 0 || opts.MinAccuracy > 1:
		return cmdutil.UsageErrorf("invalid --min-accuracy %v: a share from 0 to 1", opts.MinAccuracy)
	}
	if err := cmdutil.CheckFormat(opts.Output, "table", "json"); err != nil {
		return err
	}
	if err := checkRemote(opts); err != nil {
		return err
	}
	return opts.Tools.Check()
}

// Models reads --model as a comma-separated list ("a,b"), each once, in order.
func Models(value string) ([]string, error) {
	var ms []string
	for _, m := range strings.Split(value, ",") {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		if !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, cmdutil.UsageErrorf("--model names no model")
	}
	return ms, nil
}

func evalRun(ctx context.Context, opts *Options) error {
	cfg := opts.Config()
	models, err := Models(cfg.Model)
	if err != nil {
		return err
	}
	for _, m := range models {
		if _, err := modelcfg.For(m).ParseLevel(cfg.Thinking); err != nil {
			return cmdutil.UsageErrorf("invalid --thinking: %v", err)
		}
	}
	var cases []eval.Case
	if opts.File != "" {
		data, err := cmdutil.ReadInput(opts.IO, opts.File, 64<<20)
		if err != nil {
			return err
		}
		if cases, err = eval.ParseCases(data); err != nil {
			return cmdutil.UsageErrorf("%s: %v", cmdutil.InputName(opts.File), err)
		}
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
	var items []eval.Item
	if opts.FromHistory {
		items, err = fromHistory(ctx, opts, s)
	} else {
		items, err = itemsOf(ctx, opts, s, cases)
	}
	if err != nil {
		return err
	}
	if len(items) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "No cases to evaluate: resolve investigations first (history resolve), or give -f FILE.")
		return nil
	}

	client, err := opts.LLM(ctx, factory.LLMOptions{})
	if err != nil {
		return err
	}
	eo := eval.Options{Models: models, Repeat: opts.Repeat, Concurrency: opts.Concurrency, Knowledge: !opts.Tools.NoKnowledge}
	var jobsEnded []string
	if opts.Remote.Enabled {
		var done bool
		eo.Investigated, jobsEnded, done, err = remoteInvestigations(ctx, opts, cfg, client, s, models, items)
		if err != nil || done {
			return err
		}
	} else if eo.Investigate, err = investigator(opts, cfg, client, s); err != nil {
		return err
	}
	bar := newProgress(opts.IO)
	eo.Conclude = func(ctx context.Context, model string, a *record.Alert, contents []*genai.Content) (*conclude.Suggestion, error) {
		return conclude.Suggest(ctx, client, model, a, &record.History{AlertID: a.ID, Contents: contents})
	}
	eo.Fatal = func(err error) bool {
		_, unavailable := errors.AsType[*modelcfg.UnavailableError](err)
		_, stopped := errors.AsType[*jobStoppedError](err)
		return unavailable || stopped
	}
	eo.Describe, eo.Progress = describe, bar.update
	res := eval.Evaluate(ctx, items, eo)
	bar.stop()
	rep := eval.Summarize(items, models, res, describe)
	if opts.Output == "json" {
		if err := cmdutil.PrintJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		printTable(opts.IO, rep)
	}
	return outcome(rep, opts.MinAccuracy, res.Interrupted, jobsEnded...)
}

// describe is a run's error for a person: a model's error as chat says it.
func describe(err error) string {
	if js, ok := errors.AsType[*jobStoppedError](err); ok {
		return js.msg
	}
	return cmdutil.Message(report.DescribeModelError(err))
}

// outcome is the exit: 130 when interrupted (the partial report printed), 1 when a model could
// not be used or falls below --min-accuracy, or a remote job did not succeed (jobsEnded, its
// answered runs in the report).
func outcome(rep *eval.Report, minAccuracy float64, interrupted bool, jobsEnded ...string) error {
	if interrupted {
		return goerr.Wrap(context.Canceled, "interrupted: the report holds the runs that finished")
	}
	failed := slices.Clone(jobsEnded)
	for _, m := range rep.Models {
		switch {
		case m.Stopped != "":
			failed = append(failed, m.Stopped)
		case minAccuracy > 0 && m.Accuracy < minAccuracy:
			failed = append(failed, fmt.Sprintf("%s: accuracy %.3f is below --min-accuracy %v", m.Model, m.Accuracy, minAccuracy))
		}
	}
	if len(failed) > 0 {
		return goerr.New(strings.Join(failed, "; "))
	}
	return nil
}

// itemsOf reads each case's alert: its own JSON, stored as any added alert is (the tools of
// the investigation read it from the store), or a stored one named by ID or unique prefix. A
// case whose alert cannot be had is bad input naming its line.
func itemsOf(ctx context.Context, opts *Options, s *factory.Store, cases []eval.Case) ([]eval.Item, error) {
	items := make([]eval.Item, 0, len(cases))
	for _, c := range cases {
		var a *record.Alert
		if len(c.Alert) > 0 {
			var err error
			if a, err = oneAlert(c.Alert); err != nil {
				return nil, cmdutil.UsageErrorf("%s: line %d: %v", cmdutil.InputName(opts.File), c.Line, err)
			}
			if err := alert.Put(ctx, s, a, store.Now()); err != nil {
				return nil, err
			}
		} else {
			id, err := lookup.AlertID(ctx, s, c.AlertID)
			if err == nil {
				a, err = s.GetAlert(ctx, id)
			}
			switch {
			case errors.Is(err, store.ErrNotFound):
				return nil, cmdutil.UsageErrorf("%s: line %d: no alert %q in this workspace", cmdutil.InputName(opts.File), c.Line, cmdutil.OneLine(c.AlertID))
			case err != nil:
				return nil, err
			}
		}
		items = append(items, eval.Item{Case: c, Alert: a})
	}
	return items, nil
}

// oneAlert reads a case's alert JSON: exactly one finding.
func oneAlert(raw []byte) (*record.Alert, error) {
	var one *record.Alert
	for f, err := range alert.Read(bytes.NewReader(raw), alert.MaxSize) {
		if err != nil {
			return nil, err
		}
		if one != nil && f.Alert.ID != one.ID {
			return nil, errors.New("the alert holds several findings; a case is about one")
		}
		one = f.Alert
	}
	if one == nil {
		return nil, errors.New("the alert holds no finding")
	}
	return one, nil
}

// fromHistory makes a case of every resolved investigation of the workspace: its alert and the
// analyst's verdict (a suggested verdict the analyst confirmed counts too). Investigations
// whose alert is gone are left out, said once.
func fromHistory(ctx context.Context, opts *Options, s *factory.Store) ([]eval.Item, error) {
	var items []eval.Item
	alerts := map[record.AlertID]*record.Alert{}
	missing := 0
	cursor := ""
	for {
		page, err := s.ListHistories(ctx, store.HistoryQuery{Limit: store.MaxLimit, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, h := range page.Histories {
			if h.Resolution == nil {
				continue
			}
			a, ok := alerts[h.AlertID]
			if !ok {
				a, err = s.GetAlert(ctx, h.AlertID)
				switch {
				case errors.Is(err, store.ErrNotFound):
					a = nil
				case err != nil:
					return nil, err
				}
				alerts[h.AlertID] = a
			}
			if a == nil {
				missing++
				continue
			}
			items = append(items, eval.Item{Case: eval.Case{ID: string(h.ID), AlertID: string(h.AlertID), Verdict: h.Resolution.Verdict}, Alert: a})
			if len(items) == eval.MaxCases {
				return items, nil
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	if missing > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Left out %d resolved investigations whose alert is no longer stored.\n", missing)
	}
	return items, nil
}

// investigator investigates a case as a one-shot chat does: the same system instruction,
// built-in tools and limits, one question; the transcript is saved (redacted, titled) only
// with --save.
func investigator(opts *Options, cfg cmdutil.Config, client *llm.Client, s *factory.Store) (eval.Investigator, error) {
	base, err := sessionutil.WithTools(sessionutil.SessionOptions(cfg, client, s, opts.Logger(), opts.Save), s, opts.Tools)
	if err != nil {
		return nil, err
	}
	base = sessionutil.WithKnowledge(base, s, opts.Tools.NoKnowledge)
	if !opts.Save {
		base.Store, base.Spool = discard{}, nil
	}
	investigate := sessionutil.NewInvestigator(base, cfg.Thinking)
	return func(ctx context.Context, model string, a *record.Alert, question string) (*eval.Investigation, error) {
		one, err := investigate(ctx, model, a, question)
		if one == nil {
			return nil, err
		}
		inv := &eval.Investigation{Answer: one.Answer, Contents: one.Contents, Usage: one.Usage, KnowledgeIDs: one.History.KnowledgeIDs}
		if err == nil && one.SaveErr != nil && opts.Save {
			fmt.Fprintf(opts.IO.ErrOut, "Warning: an investigation of alert %s could not be saved: %s\n", a.ID, cmdutil.OneLine(cmdutil.Message(one.SaveErr)))
		}
		return inv, err
	}, nil
}

// discard is the store of investigations that are not kept.
type discard struct{}

func (discard) SaveHistory(context.Context, *record.History) error { return nil }

// progress shows, on a terminal's stderr, how far the evaluation is.
type progress struct{ ios *cmdutil.IOStreams }

func newProgress(ios *cmdutil.IOStreams) *progress {
	if !ios.StderrTTY {
		return &progress{}
	}
	ios.StartProgressIndicatorWithLabel("evaluating…")
	return &progress{ios: ios}
}

func (p *progress) update(pr eval.Progress) {
	if p.ios == nil {
		return
	}
	p.ios.ShowProgressLine(fmt.Sprintf("evaluating: %d of %d runs done, %d errors, %s tokens", pr.Done, pr.Total, pr.Errors, strconv.FormatInt(pr.Tokens, 10)))
}

func (p *progress) stop() {
	if p.ios != nil {
		p.ios.StopProgressIndicator()
	}
}
