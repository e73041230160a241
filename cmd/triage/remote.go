package triage

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/triage"
)

// jobKind keeps triage's jobs apart from batch inputs and evaluations in the job records.
const jobKind = "alertchat triage v1"

// checkRemote refuses the remote flags as batch and eval do, and what a job cannot do: run
// tool calls (so --remote needs --no-tools, and takes no --evidence).
func checkRemote(opts *Options) error {
	o := opts.Remote
	if err := o.Check(); err != nil || !o.Enabled {
		return err
	}
	switch {
	case len(opts.Tools.Evidence) > 0:
		return cmdutil.UsageErrorf("--evidence needs investigations made here: a --remote job cannot call tools")
	case !opts.Tools.NoTools:
		return cmdutil.UsageErrorf("a Batch API job cannot run tool calls: say --no-tools with --remote")
	}
	return nil
}

// remoteInvestigator asks every selected alert's investigation (its first request, and its
// title's) through one Batch API job, as eval --remote does: found recorded for the same
// requests or submitted, then waited for and collected. Each answer then ends its alert's
// session here (saved, titled, redacted) as a local investigation's would; the verdict
// requests are asked directly. done is set when there is nothing more to do (--no-wait).
func remoteInvestigator(ctx context.Context, opts *Options, cfg cmdutil.Config, client *llm.Client, s *factory.Store, base session.Options,
	items []triage.Item,
) (investigate sessionutil.Investigator, done bool, err error) {
	svc, err := opts.Batches(ctx)
	if err != nil {
		return nil, false, err
	}
	vertex := svc.Client.ClientConfig().Backend == genai.BackendVertexAI
	base.Thinking, _ = modelcfg.For(cfg.Model).ParseLevel(cfg.Thinking)
	// A summary would be one more request, which a job cannot make.
	base.CompactAt = -1

	// Each alert's answer request, then its title's: 2i and 2i+1.
	var reqs []session.Request
	index := map[record.AlertID]int{}
	for i := range items {
		a := items[i].Alert
		if a.Data == nil {
			if a, err = s.GetAlert(ctx, a.ID); err != nil {
				return nil, false, err
			}
			items[i].Alert = a
		}
		sess, err := session.New(base, a, nil)
		if err != nil {
			return nil, false, err
		}
		answer, title, err := sess.Prepare(triage.Question(a))
		if err != nil {
			return nil, false, goerr.Wrap(err, "failed to prepare an alert's request", goerr.V("alert_id", a.ID))
		}
		if title == nil {
			return nil, false, goerr.New("an investigation of a new history asks for its title")
		}
		index[a.ID] = len(reqs)
		reqs = append(reqs, answer, *title)
	}
	sha, err := remote.RequestsSHA256(jobKind, reqs)
	if err != nil {
		return nil, false, err
	}
	bar := cmdutil.NewProgressLine(opts.IO, false)
	defer bar.Stop()
	ro := remote.Options{
		Service: svc, Jobs: s, Model: cfg.Model,
		Resubmit: opts.Remote.Resubmit, PollInterval: opts.Remote.PollInterval,
		OnState: func(j *record.BatchJob, elapsed time.Duration) {
			bar.Show(remote.ProgressText(j, elapsed, "requests", false))
		},
		OnRecorded: func(oc *remote.Outcome) {
			if oc.Submitted {
				opts.IO.Notice(fmt.Sprintf("Submitted batch job %s: %d alerts, sent %s.", oc.Job.ID, len(items), oc.SentAs()))
			} else {
				opts.IO.Notice(fmt.Sprintf("Found batch job %s for these alerts (%s); --resubmit asks again.", oc.Job.ID, oc.Job.State))
			}
		},
		OnWaiting: func(*record.BatchReservation) {
			opts.IO.Notice("Another run is submitting the job of these alerts; waiting for its job.")
		},
		FileOnly: vertex, KeyLabels: vertex,
	}
	oc, err := remote.SubmitRequests(ctx, sha, reqs, ro)
	switch {
	case errors.Is(err, remote.ErrInvalidInput):
		return nil, false, cmdutil.UsageErrorf("%s", cmdutil.Message(err))
	case modelcfg.IsModelNotFound(err):
		return nil, false, report.DescribeModelError(modelcfg.Explain(ctx, svc.Client.Models, cfg.Model, err))
	case err != nil:
		return nil, false, err
	}
	if opts.Remote.NoWait {
		line, err := remote.JobLine(oc.Job.ID)
		if err == nil {
			_, err = opts.IO.Out.Write(line)
		}
		return nil, true, err
	}
	answers, err := remote.CollectRequests(ctx, oc, len(reqs), ro)
	if oc.CleanErr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "Warning: the batch job's files could not be deleted (they hold the requests and answers unredacted): %s\n", cmdutil.Message(oc.CleanErr))
	}
	switch {
	case errors.Is(err, remote.ErrDetached):
		return nil, false, goerr.Wrap(context.Canceled, fmt.Sprintf("stopped waiting; batch job %s goes on: run the same command again to wait for it and triage", oc.Job.ID))
	case errors.Is(err, remote.ErrJobEnded) && answers != nil:
		fmt.Fprintf(opts.IO.ErrOut, "Batch job %s: %s; the alerts it answered are triaged.\n", oc.Job.ID, cmdutil.Message(err))
	case err != nil:
		return nil, false, err
	}
	return func(ctx context.Context, _ string, a *record.Alert, question string) (*sessionutil.Investigation, error) {
		i, ok := index[a.ID]
		if !ok {
			return nil, goerr.New("no request of the batch job asked about this alert", goerr.V("alert_id", a.ID))
		}
		sess, err := session.New(base, a, nil)
		if err != nil {
			return nil, err
		}
		answer := answers[i]
		answer.Title = answers[i+1].Response
		// As the local investigation's turn ends: the same answer, usage and errors, saved.
		turn, err := sess.Complete(ctx, question, answer)
		inv := &sessionutil.Investigation{Contents: sess.Contents(), History: sess.History()}
		if turn != nil {
			inv.Answer, inv.Usage, inv.SaveErr = turn.Answer, turn.Usage, turn.SaveErr
		}
		return inv, err
	}, false, nil
}
