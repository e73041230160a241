package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// checkRemote refuses the remote flags as batch does (cmdutil.RemoteOptions.Check), and what a
// job cannot do: run tool calls (so --remote needs --no-tools, and takes no --evidence) and save
// the investigations it did not make here (--save).
func checkRemote(opts *Options) error {
	o := opts.Remote
	if err := o.Check(); err != nil || !o.Enabled {
		return err
	}
	switch {
	case len(opts.Tools.Evidence) > 0:
		return cmdutil.UsageErrorf("--evidence needs investigations made here: a --remote job cannot call tools")
	case !opts.Tools.NoTools:
		return cmdutil.UsageErrorf("a Batch API job cannot run tool calls, so --remote measures the model without tools: say --no-tools (the figures are then those of a local eval --no-tools)")
	case opts.Save:
		return cmdutil.UsageErrorf("--save keeps investigations made here: a --remote evaluation saves none")
	}
	return nil
}

// jobKind keeps an evaluation's jobs apart from batch inputs in the job records.
const jobKind = "alertchat eval v1"

// modelJob is one model's job: its requests (one per case and repeat, repeat by repeat, case
// by case) and, once collected, their answers.
type modelJob struct {
	model   string
	session session.Options
	reqs    []session.Request
	oc      *remote.Outcome
	answers []session.Answer
	// stopped is why the model has no answers at all (its job could not be made, or ended
	// without any): every run of the model says it, once.
	stopped *jobStoppedError
}

// jobStoppedError marks the error that stops a model in a remote evaluation (see Fatal); msg
// is it for a person.
type jobStoppedError struct {
	msg string
	err error
}

func (e *jobStoppedError) Error() string { return e.msg }
func (e *jobStoppedError) Unwrap() error { return e.err }

// jobMessage is a job's error for a person, without the sentinel's words at its end.
func jobMessage(err error) string {
	msg := cmdutil.Message(err)
	for _, s := range []error{remote.ErrJobEnded, remote.ErrCollected} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	return msg
}

// remoteInvestigations asks every case's first request, with every model, through the Batch
// API: one job per model (a job has one model), found recorded for the same requests or
// submitted, then waited for and collected. It returns the runs' investigations by model,
// case and repeat; done is set when there is nothing more to do (--no-wait printed the jobs).
func remoteInvestigations(ctx context.Context, opts *Options, cfg cmdutil.Config, client *llm.Client, s *factory.Store,
	models []string, items []eval.Item,
) (investigated func(context.Context, string, *eval.Item, int) (*eval.Investigation, error), ended []string, done bool, err error) {
	svc, err := opts.Batches(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	var jobStore store.BatchJobs = s
	vertex := svc.Client.ClientConfig().Backend == genai.BackendVertexAI
	base := sessionutil.WithKnowledge(sessionutil.SessionOptions(cfg, client, s, opts.Logger(), false), s, opts.Tools.NoKnowledge)
	// The investigation is not kept, and a summary would be one more request, which a job
	// cannot make.
	base.Store, base.Spool, base.CompactAt = discard{}, nil, -1

	// Erased when the jobs are collected: nothing of it stays.
	bar := cmdutil.NewProgressLine(opts.IO, false)
	defer bar.Stop()
	ro := func(model string) remote.Options {
		return remote.Options{
			Service: svc, Jobs: jobStore, Model: model,
			Resubmit: opts.Remote.Resubmit, PollInterval: opts.Remote.PollInterval,
			OnState: func(j *record.BatchJob, elapsed time.Duration) {
				bar.Show(remote.ProgressText(j, elapsed, "runs", true))
			},
			OnRecorded: func(oc *remote.Outcome) {
				// Said at once: a wait of hours may be cut short, and the job is what remains.
				if oc.Submitted {
					opts.IO.Notice(fmt.Sprintf("Submitted batch job %s for %s: %d runs, sent %s.", oc.Job.ID, model, oc.Job.Requests, oc.SentAs()))
				} else {
					opts.IO.Notice(fmt.Sprintf("Found batch job %s for %s and these cases (%s); --resubmit asks again.", oc.Job.ID, model, oc.Job.State))
				}
			},
			OnWaiting: func(*record.BatchReservation) {
				opts.IO.Notice(fmt.Sprintf("Another run is submitting the job of these cases for %s; waiting for its job.", model))
			},
			FileOnly: vertex, KeyLabels: vertex,
		}
	}

	// Every model's job first, so that they run at once on the service.
	jobs := make([]*modelJob, len(models))
	for i, m := range models {
		mj := &modelJob{model: m, session: base}
		jobs[i] = mj
		mj.session.Model, mj.session.TitleModel = m, ""
		mj.session.Thinking, _ = modelcfg.For(m).ParseLevel(cfg.Thinking)
		if mj.reqs, err = requestsOf(mj.session, items, opts.Repeat); err != nil {
			return nil, nil, false, err
		}
		sha, err := remote.RequestsSHA256(jobKind, mj.reqs)
		if err != nil {
			return nil, nil, false, err
		}
		mj.oc, err = remote.SubmitRequests(ctx, sha, mj.reqs, ro(m))
		switch {
		case errors.Is(err, remote.ErrInvalidInput):
			return nil, nil, false, cmdutil.UsageErrorf("%s", cmdutil.Message(err))
		case modelcfg.IsModelNotFound(err):
			// The service refused the job's model (retired, or unknown): the line a chat gives,
			// and the other models go on.
			err = report.DescribeModelError(modelcfg.Explain(ctx, svc.Client.Models, m, err))
			mj.stopped = &jobStoppedError{msg: cmdutil.Message(err), err: err}
		case err != nil:
			return nil, nil, false, err
		}
	}
	if opts.Remote.NoWait {
		for _, mj := range jobs {
			if mj.oc == nil {
				continue
			}
			line, err := remote.JobLine(mj.oc.Job.ID)
			if err != nil {
				return nil, nil, false, err
			}
			if _, err := opts.IO.Out.Write(line); err != nil {
				return nil, nil, false, err
			}
		}
		return nil, nil, true, stoppedError(jobs)
	}

	for _, mj := range jobs {
		if mj.oc == nil {
			continue
		}
		mj.answers, err = remote.CollectRequests(ctx, mj.oc, len(mj.reqs), ro(mj.model))
		if mj.oc.CleanErr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "Warning: the batch job's files could not be deleted (they hold the requests and answers unredacted): %s\n", cmdutil.Message(mj.oc.CleanErr))
		}
		switch {
		case errors.Is(err, remote.ErrDetached):
			return nil, nil, false, goerr.Wrap(context.Canceled, fmt.Sprintf("stopped waiting; batch job %s goes on: run the same command again to wait for it and report", mj.oc.Job.ID))
		case errors.Is(err, remote.ErrJobEnded) && mj.answers != nil:
			ended = append(ended, fmt.Sprintf("%s: batch job %s: %s", mj.model, mj.oc.Job.ID, jobMessage(err)))
		case errors.Is(err, remote.ErrJobEnded), errors.Is(err, remote.ErrCollected):
			mj.stopped = &jobStoppedError{msg: mj.model + ": batch job " + mj.oc.Job.ID + ": " + jobMessage(err), err: err}
		case err != nil:
			return nil, nil, false, err
		}
	}

	byModel := map[string]*modelJob{}
	for _, mj := range jobs {
		byModel[mj.model] = mj
	}
	index := map[string]int{}
	for i, it := range items {
		index[it.Case.ID] = i
	}
	return func(ctx context.Context, model string, it *eval.Item, repeat int) (*eval.Investigation, error) {
		mj := byModel[model]
		if mj.stopped != nil {
			return nil, mj.stopped
		}
		sess, err := session.New(mj.session, it.Alert, nil)
		if err != nil {
			return nil, err
		}
		a := mj.answers[(repeat-1)*len(items)+index[it.Case.ID]]
		// As the local investigation's turn ends: the same answer, usage and errors (an
		// answer of calls without text is one, since the job declared no tools).
		turn, err := sess.Complete(ctx, question(it.Case), a)
		inv := &eval.Investigation{Contents: sess.Contents(), KnowledgeIDs: sess.History().KnowledgeIDs}
		if turn != nil {
			inv.Answer, inv.Usage = turn.Answer, turn.Usage
		}
		return inv, err
	}, ended, false, nil
}

// stoppedError is the error of models whose jobs could not be made (for --no-wait, which has
// no report to say it in).
func stoppedError(jobs []*modelJob) error {
	var msgs []string
	for _, mj := range jobs {
		if mj.stopped != nil {
			msgs = append(msgs, mj.model+": "+mj.stopped.msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return goerr.New(strings.Join(msgs, "; "))
}

// requestsOf is the first request of every run of one model, as its session would send it
// (the local investigation's first turn, without tools): repeat by repeat, case by case.
func requestsOf(o session.Options, items []eval.Item, repeat int) ([]session.Request, error) {
	reqs := make([]session.Request, 0, repeat*len(items))
	for range repeat {
		for _, it := range items {
			sess, err := session.New(o, it.Alert, nil)
			if err != nil {
				return nil, err
			}
			req, _, err := sess.Prepare(question(it.Case))
			if err != nil {
				return nil, goerr.Wrap(err, "failed to prepare a case's request", goerr.V("case", it.Case.ID))
			}
			reqs = append(reqs, req)
		}
	}
	return reqs, nil
}

// question is what a case is investigated with.
func question(c eval.Case) string {
	if c.Question != "" {
		return c.Question
	}
	return eval.DefaultQuestion
}
