package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// remoteRun answers qs through a Batch API job: found recorded for this input, or submitted.
func remoteRun(ctx context.Context, opts *Options, data []byte, qs []batch.Question) error {
	cfg := opts.Config()
	if opts.Tools.NoTools || opts.RPM > 0 {
		// Harmless, but say it: a job declares no tools and paces itself.
		fmt.Fprintln(opts.IO.ErrOut, "Note: a remote batch declares no tools and is paced by the service; --no-tools and --rpm change nothing.")
	}
	// Ctrl-C or SIGTERM while waiting leaves the job running; while collecting, what is saved
	// stays saved and the same command collects the rest.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	svc, err := opts.Batches(ctx)
	if err != nil {
		return err
	}
	client, err := opts.LLM(ctx, factory.LLMOptions{})
	if err != nil {
		return err
	}
	cmdutil.WarnIfRedactionOff(opts.IO.ErrOut, cfg.Redact)
	s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	var jobs store.BatchJobs = s
	vertex := svc.Client.ClientConfig().Backend == genai.BackendVertexAI
	sessOpts := sessionutil.WithKnowledge(sessionutil.SessionOptions(cfg, client, s, opts.Logger(), !opts.NoTitles), s, opts.Tools.NoKnowledge)
	sessOpts.CompactAt = -1 // a summary would be one more request, which a job cannot make
	// The job's last state stays on a terminal when the wait ends.
	bar := cmdutil.NewProgressLine(opts.IO, true)
	oc, err := remote.Run(ctx, data, qs, opts.IO.Out, remote.Options{
		Service: svc, Jobs: jobs, Store: s, Model: cfg.Model,
		NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
			return session.New(sessOpts, a, h)
		},
		Resubmit: opts.Remote.Resubmit, NoWait: opts.Remote.NoWait, PollInterval: opts.Remote.PollInterval,
		Concurrency:   opts.Concurrency,
		DescribeError: func(err error) string { return cmdutil.Message(report.DescribeModelError(err)) },
		OnState: func(j *record.BatchJob, elapsed time.Duration) {
			bar.Show(remote.ProgressText(j, elapsed, "questions", false))
		},
		OnRecorded: func(oc *remote.Outcome) {
			// Said at once: a wait of hours may be cut short, and the job is what remains.
			if oc.Submitted {
				opts.IO.Notice(fmt.Sprintf("Submitted batch job %s: %d questions, sent %s.", oc.Job.ID, oc.Job.Requests, oc.SentAs()))
			} else {
				opts.IO.Notice(fmt.Sprintf("Found batch job %s for this input (%s); --resubmit asks again.", oc.Job.ID, oc.Job.State))
			}
		},
		OnWaiting: func(*record.BatchReservation) {
			opts.IO.Notice(fmt.Sprintf("Another run is submitting the job of this input; waiting for its job (a run silent for %s is taken over).", remote.DefaultReservationTimeout))
		},
		FileOnly:  vertex,
		KeyLabels: vertex,
	})
	bar.Stop()
	if oc != nil && oc.CleanErr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "Warning: the batch job's files could not be deleted (they hold the questions and answers unredacted): %s\n", cmdutil.Message(oc.CleanErr))
	}
	switch {
	case errors.Is(err, remote.ErrInvalidInput):
		return cmdutil.UsageErrorf("%s: %s", cmdutil.InputName(opts.File), cmdutil.Message(err))
	case errors.Is(err, remote.ErrDetached):
		return goerr.Wrap(context.Canceled, fmt.Sprintf("stopped waiting; batch job %s goes on: run the same command again to wait for it and collect its answers", oc.Job.ID))
	case err != nil && oc != nil && oc.Summary != nil:
		return batchOutcome(opts.IO, oc.Summary, err, "")
	case modelcfg.IsModelNotFound(err):
		// The service refused the job's model (retired, or unknown): the line a chat gives.
		return report.DescribeModelError(modelcfg.Explain(ctx, svc.Client.Models, cfg.Model, err))
	case err != nil:
		return err
	}
	if opts.Remote.NoWait {
		line, err := remote.JobLine(oc.Job.ID)
		if err != nil {
			return err
		}
		_, err = opts.IO.Out.Write(line)
		return err
	}
	return batchOutcome(opts.IO, oc.Summary, nil, "")
}

// JobsOptions are "batch jobs"'s.
type JobsOptions struct {
	factory.SessionDeps
	Format string
	Limit  int
}

func newCmdJobs(f *factory.Factory, runF func(context.Context, *JobsOptions) error) *cli.Command {
	opts := &JobsOptions{SessionDeps: f.SessionDeps()}
	return &cli.Command{
		Name:  "jobs",
		Usage: "list the workspace's recorded Batch API jobs, newest first",
		Description: `Lists the Batch API jobs recorded in the workspace, newest first, with their state and counts.

Example:
  alertchat batch jobs -o json`,
		UsageText: "alertchat batch jobs [-o json] [--limit N]",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output format", Value: "text", Destination: &opts.Format}, "text", "json"),
			&cli.IntFlag{Name: "limit", Usage: "at most N jobs", Value: store.DefaultLimit, Destination: &opts.Limit},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return jobsRun(ctx, opts)
		},
	}
}

// jobJSON is a job as `batch jobs -o json` prints it.
type jobJSON struct {
	ID          string    `json:"id"`
	State       string    `json:"state"`
	Model       string    `json:"model"`
	InputSHA256 string    `json:"input_sha256"`
	Requests    int       `json:"requests"`
	Succeeded   int       `json:"succeeded"`
	Failed      int       `json:"failed"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func jobsRun(ctx context.Context, opts *JobsOptions) error {
	if err := cmdutil.CheckFormat(opts.Format, "text", "json"); err != nil {
		return err
	}
	if opts.Limit < 1 {
		return cmdutil.UsageErrorf("invalid --limit %d: at least 1", opts.Limit)
	}
	var list []*record.BatchJob
	err := withJobs(ctx, opts.SessionDeps, func(jobs store.BatchJobs) (err error) {
		list, err = jobs.ListBatchJobs(ctx, opts.Limit)
		return err
	})
	if err != nil {
		return goerr.Wrap(err, "failed to list batch jobs")
	}
	if opts.Format == "json" {
		out := make([]jobJSON, len(list))
		for i, j := range list {
			out[i] = jobJSON{ID: j.ID, State: j.State, Model: j.Model, InputSHA256: j.InputSHA256, Requests: j.Requests,
				Succeeded: j.Succeeded, Failed: j.Failed, CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC()}
		}
		return cmdutil.PrintJSON(opts.IO.Out, out)
	}
	if len(list) == 0 {
		if opts.IO.StdoutTTY {
			fmt.Fprintln(opts.IO.ErrOut, "No batch jobs recorded in this workspace.")
		}
		return nil
	}
	t := cmdutil.NewTable(opts.IO.Out, opts.IO.StdoutTTY, "JOB", "STATE", "QUESTIONS", "ANSWERED", "FAILED", "MODEL", "CREATED")
	for _, j := range list {
		t.Row(j.ID, strings.TrimPrefix(j.State, "JOB_STATE_"), strconv.Itoa(j.Requests), strconv.Itoa(j.Succeeded), strconv.Itoa(j.Failed),
			j.Model, j.CreatedAt.Local().Format(time.DateTime))
	}
	t.Flush()
	return nil
}

// CancelOptions are "batch cancel"'s.
type CancelOptions struct {
	factory.SessionDeps
	Job string
}

func newCmdCancel(f *factory.Factory, runF func(context.Context, *CancelOptions) error) *cli.Command {
	opts := &CancelOptions{SessionDeps: f.SessionDeps()}
	return &cli.Command{
		Name:  "cancel",
		Usage: "cancel a recorded Batch API job (JOB: its name or a unique prefix)",
		Description: `Cancels a recorded Batch API job by its name or a unique prefix of it.

Example:
  alertchat batch cancel batches/abc123

Exit status: 3 when no recorded job matches.`,
		UsageText: "alertchat batch cancel JOB",
		Action: func(ctx context.Context, c *cli.Command) error {
			args := c.Args().Slice()
			if len(args) != 1 {
				return cmdutil.UsageErrorf("batch cancel takes one job name (see `alertchat batch jobs`)")
			}
			opts.Job = args[0]
			if runF != nil {
				return runF(ctx, opts)
			}
			return cancelRun(ctx, opts)
		},
	}
}

func cancelRun(ctx context.Context, opts *CancelOptions) error {
	return withJobs(ctx, opts.SessionDeps, func(jobs store.BatchJobs) error {
		rec, err := jobs.GetBatchJob(ctx, opts.Job)
		if errors.Is(err, store.ErrNotFound) {
			return cmdutil.NotFoundf("no batch job %q in this workspace", opts.Job)
		}
		if err != nil {
			return err
		}
		svc, err := opts.Batches(ctx)
		if err != nil {
			return err
		}
		if err := svc.Cancel(ctx, rec.ID); err != nil {
			return goerr.Wrap(report.DescribeModelError(err), "failed to cancel batch job "+rec.ID)
		}
		if job, err := svc.Get(ctx, rec.ID); err == nil {
			rec.State = string(job.State)
		}
		rec.UpdatedAt = time.Now()
		if err := jobs.PutBatchJob(ctx, rec); err != nil {
			return goerr.Wrap(err, "the job was cancelled but its state could not be recorded", goerr.V("job", rec.ID))
		}
		fmt.Fprintf(opts.IO.ErrOut, "Cancelled batch job %s (%s).\n", rec.ID, strings.TrimPrefix(rec.State, "JOB_STATE_"))
		return nil
	})
}

// withJobs runs fn on the store's batch job records.
func withJobs(ctx context.Context, deps factory.SessionDeps, fn func(store.BatchJobs) error) error {
	return report.WithUploadedStore(ctx, deps.IO.ErrOut, deps.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
		return fn(s)
	})
}
