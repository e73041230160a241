// Package batch is "alertchat batch": many one-shot questions from JSONL, one JSON line per
// question on stdout, in input order.
package batch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
)

// Options are batch's.
type Options struct {
	factory.SessionDeps

	File        string
	Concurrency int
	RPM         int
	NoTitles    bool
	Tools       sessionutil.ToolOptions
	Remote      cmdutil.RemoteOptions
}

// NewCmdBatch is "alertchat batch -f FILE". Its flags have no ALERTCHAT_ variables: a run's
// input and pace are said on its command line.
func NewCmdBatch(f *factory.Factory, runF func(context.Context, *Options) error) *cli.Command {
	opts := &Options{SessionDeps: f.SessionDeps()}
	return &cli.Command{
		Name:  "batch",
		Usage: "ask many one-shot questions from a JSONL file; one JSON line per question on stdout, in input order",
		Description: `Asks many one-shot questions from a JSONL file (one {"alert_id","query"} object a line, with
"history_id" to continue a history and "id" to name the line) and prints one JSON line per question,
in input order, each saved as a history. Questions run --concurrency at a time, under --rpm.
--remote sends them as one Gemini Batch API job (about half the price, answered within hours):
running the same command again finds the recorded job instead of submitting twice.

Examples:
  alertchat batch -f questions.jsonl > answers.jsonl
  alertchat batch -f questions.jsonl --remote --no-wait

Exit status: 2 for a malformed line (with --remote, before anything is submitted), 1 when a
remote job fails, expires or is cancelled, 130 for Ctrl-C.`,
		UsageText: "alertchat batch -f questions.jsonl [--concurrency N] [--rpm N] > answers.jsonl\n" +
			`input lines:  {"alert_id": "...", "query": "...", "history_id": "...", "id": "..."}` + "\n" +
			`output lines: {"id", "line", "alert_id", "history_id", "title", "answer", "usage": {"input_tokens", "output_tokens", "thought_tokens"}, "error"}`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "JSONL file of questions, - for stdin (required)", Destination: &opts.File},
			&cli.IntFlag{Name: "concurrency", Usage: "questions asked at once", Value: 4, Destination: &opts.Concurrency},
			&cli.IntFlag{Name: "rpm", Usage: "at most N Gemini requests a minute, answers, titles and retries together (0: no limit)", Destination: &opts.RPM},
			&cli.BoolFlag{Name: "no-tools", Usage: "declare no tools", Destination: &opts.Tools.NoTools},
			&cli.BoolFlag{Name: "no-knowledge", Usage: "give Gemini none of the team's knowledge (no notes, no search_knowledge)", Destination: &opts.Tools.NoKnowledge},
			&cli.IntFlag{Name: "max-tool-calls", Usage: "most tool calls per question", Value: session.DefaultMaxToolCalls, Destination: &opts.Tools.MaxCalls},
			&cli.IntFlag{Name: "max-tool-result", Usage: "largest tool result sent to Gemini, in bytes of JSON", Value: session.DefaultMaxToolResult, Destination: &opts.Tools.MaxResult},
			&cli.StringSliceFlag{Name: "evidence", Usage: "a folder of collected logs, a Cloud Storage prefix gs://BUCKET/PREFIX or a BigQuery dataset bq://PROJECT.DATASET, Gemini may list, grep and query, read only (repeatable)", Destination: &opts.Tools.Evidence},
			sessionutil.BQMaxBytesFlag(&opts.Tools, false),
			&cli.BoolFlag{Name: "no-title-generation", Usage: "title new conversations from their first line instead of asking Gemini", Destination: &opts.NoTitles},
		}, opts.Remote.Flags(remote.DefaultPollInterval, cmdutil.RemoteUsage{
			Remote:       "answer through one Gemini Batch API job (about half the price, answered within hours; no tools)",
			Resubmit:     "with --remote: submit a new job even when one for this input is recorded",
			NoWait:       `with --remote: record the job, print {"job": NAME} and exit`,
			PollInterval: "with --remote: pause between two looks at the job (backing off on errors)",
		})...),
		Commands: []*cli.Command{newCmdJobs(f, nil), newCmdCancel(f, nil)},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), "the questions come from -f FILE"); err != nil {
				return err
			}
			// Not a required flag of the parser's: it would be required of "batch jobs" too.
			if opts.File == "" {
				return cmdutil.UsageErrorf("batch needs a file of questions: -f FILE (JSONL, - for stdin)")
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return batchRun(ctx, opts)
		},
	}
}

// batchRun asks every question of the input and writes the answers in order.
func batchRun(ctx context.Context, opts *Options) error {
	cfg := opts.Config()
	switch {
	case opts.Concurrency < 1:
		return cmdutil.UsageErrorf("invalid --concurrency %d: at least 1", opts.Concurrency)
	case opts.Tools.Check() != nil:
		return opts.Tools.Check()
	case sessionutil.CheckThinking(cfg) != nil:
		return sessionutil.CheckThinking(cfg)
	case opts.RPM < 0:
		return cmdutil.UsageErrorf("invalid --rpm %d: 0 (no limit) or more", opts.RPM)
	case opts.Remote.Check() != nil:
		return opts.Remote.Check()
	case opts.Remote.Enabled && len(opts.Tools.Evidence) > 0:
		return cmdutil.UsageErrorf("--evidence needs the answers made here: a --remote job cannot call tools")
	}
	data, err := cmdutil.ReadInput(opts.IO, opts.File, batch.MaxInputBytes)
	if err != nil {
		return err
	}
	qs, err := batch.Parse(data)
	if err != nil {
		return cmdutil.UsageErrorf("%s: %v", cmdutil.InputName(opts.File), err)
	}
	if len(qs) == 0 {
		return nil
	}
	if opts.Remote.Enabled {
		return remoteRun(ctx, opts, data, qs)
	}

	// Ctrl-C or SIGTERM: stop starting questions, cancel those in flight, write what finished.
	ctx, stop := cmdutil.StopOnSignal(ctx)
	defer stop()

	cmdutil.WarnIfRedactionOff(opts.IO.ErrOut, cfg.Redact)
	s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	var retries atomic.Int64
	client, err := opts.LLM(ctx, factory.LLMOptions{Limiter: llm.NewLimiter(opts.RPM, 1), OnRetry: func(llm.Retry) { retries.Add(1) }})
	if err != nil {
		return err
	}
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
	bar := startProgressBar(opts.IO, len(qs), &retries)
	var unavailable unavailableModel
	sum, err := batch.Run(ctx, qs, opts.IO.Out, batch.Options{
		Store: s,
		NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
			return session.New(sessOpts, a, h)
		},
		Concurrency:   opts.Concurrency,
		DescribeError: unavailable.describe,
		Progress:      bar.update,
	})
	bar.stop()
	return batchOutcome(opts.IO, sum, err, unavailable.line())
}

// unavailableModel describes the questions' errors and keeps the first that says the model
// cannot be used: the run's error line then says it too (which model, what to use instead),
// not only how many questions failed.
type unavailableModel struct{ msg atomic.Pointer[string] }

func (u *unavailableModel) describe(err error) string {
	msg := cmdutil.Message(report.DescribeModelError(err))
	if _, ok := errors.AsType[*modelcfg.UnavailableError](err); ok {
		u.msg.CompareAndSwap(nil, &msg)
	}
	return msg
}

func (u *unavailableModel) line() string {
	if m := u.msg.Load(); m != nil {
		return *m
	}
	return ""
}

// batchOutcome reports a finished run on stderr and turns it into the exit code: 0 when every
// question succeeded, 1 when any failed, 130 when interrupted. cause, when set, says why
// questions failed (the model cannot be used), in the error line itself.
func batchOutcome(ios *cmdutil.IOStreams, sum *batch.Summary, err error, cause string) error {
	if sum == nil {
		return err
	}
	if len(sum.Unfinished) > 0 && errors.Is(err, context.Canceled) {
		written := sum.Succeeded + sum.Failed
		for _, k := range sum.Kept {
			fmt.Fprintf(ios.ErrOut, "Line %d was cancelled mid-answer; its partial answer was kept in history %s.\n", k.Line, k.HistoryID)
		}
		return goerr.Wrap(err, fmt.Sprintf("interrupted: %d of %d questions written; not answered: lines %s",
			written, sum.Total, lineRanges(sum.Unfinished, 20)))
	}
	if err != nil {
		return err
	}
	if ios.StderrTTY {
		fmt.Fprintf(ios.ErrOut, "%d answered, %d failed.\n", sum.Succeeded, sum.Failed)
	}
	if sum.Failed > 0 && cause != "" {
		return goerr.New(fmt.Sprintf("%d of %d questions failed: %s", sum.Failed, sum.Total, cause))
	}
	if sum.Failed > 0 {
		return goerr.New(fmt.Sprintf("%d of %d questions failed (see the \"error\" of their lines)", sum.Failed, sum.Total))
	}
	return nil
}

// lineRanges compresses sorted line numbers: "3, 7-12, 15", at most max ranges.
func lineRanges(lines []int, max int) string {
	var parts []string
	for i := 0; i < len(lines); {
		j := i
		for j+1 < len(lines) && lines[j+1] == lines[j]+1 {
			j++
		}
		if len(parts) == max {
			parts = append(parts, "...")
			break
		}
		if i == j {
			parts = append(parts, strconv.Itoa(lines[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lines[i], lines[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// progressBar keeps the status line on stderr showing, for a person, done/total, failures,
// retries, rate and ETA; the last state stays on the screen. Nothing is drawn unless stderr is
// a terminal.
type progressBar struct {
	ios     *cmdutil.IOStreams
	start   time.Time
	retries *atomic.Int64

	mu sync.Mutex
	p  batch.Progress

	quit chan struct{}
	done chan struct{}
}

// progressInterval keeps redraws to about ten a second.
const progressInterval = 100 * time.Millisecond

func startProgressBar(ios *cmdutil.IOStreams, total int, retries *atomic.Int64) *progressBar {
	if !ios.StderrTTY {
		return nil
	}
	b := &progressBar{ios: ios, start: time.Now(), retries: retries,
		p: batch.Progress{Total: total}, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.ios.ShowProgressLine(b.line())
			case <-b.quit:
				return
			}
		}
	}()
	return b
}

func (b *progressBar) update(p batch.Progress) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.p = p
	b.mu.Unlock()
}

func (b *progressBar) stop() {
	if b == nil {
		return
	}
	close(b.quit)
	<-b.done
	b.ios.StopProgressIndicator()
	b.ios.Notice(b.line())
}

func (b *progressBar) line() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return progressLine(b.p, b.retries.Load(), time.Since(b.start))
}

// progressLine is the text of the bar.
func progressLine(p batch.Progress, retries int64, elapsed time.Duration) string {
	const width = 20
	filled := 0
	if p.Total > 0 {
		filled = p.Done * width / p.Total
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat(".", width-filled), p.Done, p.Total)
	if p.Failed > 0 {
		fmt.Fprintf(&b, "  %d failed", p.Failed)
	}
	if retries > 0 {
		fmt.Fprintf(&b, "  %d retries", retries)
	}
	if p.Done == 0 || elapsed <= 0 {
		b.WriteString("  --/min  ETA --")
		return b.String()
	}
	perMinute := float64(p.Done) / elapsed.Minutes()
	eta := time.Duration(float64(p.Total-p.Done) / perMinute * float64(time.Minute))
	fmt.Fprintf(&b, "  %.0f/min  ETA %s", perMinute, eta.Round(time.Second))
	return b.String()
}
