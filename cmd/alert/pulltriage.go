package alert

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/triage"
)

// newTriage makes the parts of alert pull --triage: alertchat triage's investigation (chat -q's
// session with the built-in tools and their default limits) and verdict, on the global --model.
func newTriage(deps factory.SessionDeps) func(ctx context.Context, s *factory.Store) (triage.Options, error) {
	return func(ctx context.Context, s *factory.Store) (triage.Options, error) {
		cfg := deps.Config()
		if err := sessionutil.CheckThinking(cfg); err != nil {
			return triage.Options{}, err
		}
		client, err := deps.LLM(ctx, factory.LLMOptions{})
		if err != nil {
			return triage.Options{}, err
		}
		base, err := sessionutil.WithTools(sessionutil.SessionOptions(cfg, client, s, deps.Logger(), true), s, sessionutil.ToolOptions{})
		if err != nil {
			return triage.Options{}, err
		}
		base = sessionutil.WithKnowledge(base, s, false)
		return sessionutil.TriageOptions(cfg, client, s, sessionutil.NewInvestigator(base, cfg.Thinking)), nil
	}
}

// pullTriage triages what alert pull stores, a batch at a time (nil: no --triage).
type pullTriage struct {
	ios         *cmdutil.IOStreams
	store       store.AlertTriager
	opts        triage.Options
	concurrency int
	sum         triage.Summary
	skipped     int
}

// batch triages the alerts of one pulled batch that have no triage yet, and says on stderr
// what each became. Ctrl-C stops it (and the pull) with what finished kept.
func (t *pullTriage) batch(ctx context.Context, alerts []*record.Alert) {
	if t == nil || len(alerts) == 0 {
		return
	}
	var items []triage.Item
	for _, a := range alerts {
		switch got, err := t.store.AlertTriage(ctx, a.ID); {
		case err != nil:
			msg := cmdutil.Message(err)
			t.sum.Results = append(t.sum.Results, &triage.Result{AlertID: a.ID, Error: &msg})
			fmt.Fprintf(t.ios.ErrOut, "triage %s: error: %s\n", cmdutil.OneLine(string(a.ID)), cmdutil.OneLine(msg))
		case got != nil:
			t.skipped++ // delivered again, or triaged by another run
		default:
			items = append(items, triage.Item{Alert: a})
		}
	}
	if len(items) == 0 {
		return
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := t.opts
	o.Concurrency = t.concurrency
	o.Describe = func(err error) string { return cmdutil.Message(report.DescribeModelError(err)) }
	o.OnResult = func(r *triage.Result) {
		switch {
		case r.Error != nil:
			fmt.Fprintf(t.ios.ErrOut, "triage %s: error: %s\n", cmdutil.OneLine(string(r.AlertID)), cmdutil.OneLine(*r.Error))
		case r.Lost:
			fmt.Fprintf(t.ios.ErrOut, "triage %s: triaged by another run meanwhile; this investigation is kept as history %s, without a proposal\n",
				cmdutil.OneLine(string(r.AlertID)), r.HistoryID)
		default:
			fmt.Fprintf(t.ios.ErrOut, "triage %s: %s %.2f (history %s)\n", cmdutil.OneLine(string(r.AlertID)), *r.Verdict, *r.Confidence, r.HistoryID)
		}
	}
	sum := triage.Run(ctx, items, o)
	t.sum.Results = append(t.sum.Results, sum.Results...)
	t.sum.Tokens += sum.Tokens
	t.sum.Interrupted = t.sum.Interrupted || sum.Interrupted
}

// finish says what the triage did, after the pull ended with pullErr, and returns the triage's
// failure: exit 1 when an alert could not be triaged (the alerts are all stored).
func (t *pullTriage) finish(pullErr error) error {
	if t == nil {
		return nil
	}
	fmt.Fprintln(t.ios.ErrOut, t.sum.Line(t.skipped, 0))
	if errors.Is(pullErr, context.Canceled) {
		return nil // the interruption is the pull's exit
	}
	failed := 0
	for _, r := range t.sum.Results {
		if r.Error != nil {
			failed++
		}
	}
	if failed > 0 {
		return goerr.New(fmt.Sprintf("%d of the pulled alerts could not be triaged (they are stored; see their lines)", failed))
	}
	return nil
}
