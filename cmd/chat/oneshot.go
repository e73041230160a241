package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// chatJSON is chat -o json's one object. It is printed whatever happens: Error is null on
// success, and Complete is false when the answer was cut short or never came.
type chatJSON struct {
	HistoryID record.HistoryID `json:"history_id"`
	AlertID   record.AlertID   `json:"alert_id"`
	Title     string           `json:"title"`
	Answer    string           `json:"answer"`
	Usage     record.Usage     `json:"usage"`
	Error     *string          `json:"error"`
	Complete  bool             `json:"complete"`
	// ToolCalls are the model's calls, in order; an empty array when none.
	ToolCalls []toolCallJSON `json:"tool_calls"`
}

// toolCallJSON is one of the model's calls in chat -o json: its "error" is null when the call
// succeeded, as the object's own "error" is.
type toolCallJSON struct {
	Name  string         `json:"name"`
	Args  map[string]any `json:"args"`
	Error *string        `json:"error"`
}

func newToolCallsJSON(calls []session.ToolCall) []toolCallJSON {
	out := make([]toolCallJSON, 0, len(calls))
	for _, c := range calls {
		j := toolCallJSON{Name: c.Name, Args: c.Args}
		if c.Error != "" {
			j.Error = &c.Error
		}
		out = append(out, j)
	}
	return out
}

// oneShotJSON prints chat -o json's object once: the turn's, or a failure's with what is known.
type oneShotJSON struct {
	opts      *Options
	alertID   record.AlertID
	historyID record.HistoryID
	printed   bool
}

func (o *oneShotJSON) print(v chatJSON) error {
	o.printed = true
	return cmdutil.PrintJSON(o.opts.IO.Out, v)
}

// fail prints the object of a run that failed before a turn was taken.
func (o *oneShotJSON) fail(err error) {
	msg := cmdutil.Message(err)
	_ = o.print(chatJSON{HistoryID: o.historyID, AlertID: o.alertID, Error: &msg, ToolCalls: []toolCallJSON{}})
}

// oneShot answers one question and exits. On a terminal, for a new conversation on an alert with
// earlier ones, the judge works while the question is answered and the match, if any, is
// offered afterwards: yes asks the question again there. --continue=auto judges first.
func (c *conversation) oneShot(ctx context.Context, sess *session.Session, question string, out *oneShotJSON) error {
	var judging *samechat.Judgement
	if r := c.router(sess); r != nil {
		switch {
		case r.Auto:
			sess = r.Route(ctx, sess, question, nil)
		case c.opts.IO.CanPrompt():
			judging = r.Begin(ctx, sess, question)
		}
	}
	// Related investigations are looked up while the question is answered, and shown after:
	// waiting for them to offer them to the model would hold up the answer (the model can
	// still find them, and their verdicts, with search_histories).
	rel, lookUp := make(chan related, 1), c.relatedLines(ctx, sess)
	go func() { rel <- lookUp() }()
	turn, err := c.answer(ctx, sess, question)
	c.printLines((<-rel).lines)
	if judging != nil && err == nil {
		if next := c.offerMove(ctx, judging); next != nil {
			report.Save(c.opts.IO.ErrOut, turn, sess.History())
			sess = next
			turn, err = c.answer(ctx, sess, question)
		}
	}
	return c.finishOneShot(sess, turn, err, out)
}

// answer sends question and prints the streamed answer (text output).
func (c *conversation) answer(ctx context.Context, sess *session.Session, question string) (*session.Turn, error) {
	c.mcp.ready(ctx)
	ios := c.opts.IO
	ios.StartProgressIndicatorWithLabel(statusline.AskingGemini)
	defer ios.StopProgressIndicator()
	if c.opts.Output == "json" {
		return sess.SendTurn(ctx, question, toolHooks(ios))
	}
	aw := newAnswerWriter(ios, c.opts.Raw)
	turn, err := sess.SendTurn(ctx, question, savingHooks(ctx, ios, aw))
	if errors.Is(err, context.Canceled) {
		aw.Interrupt()
	} else {
		aw.Close()
	}
	return turn, err
}

// savingHooks stream the answer into aw and, once it is complete, end it and say on stderr
// that the turn is being saved. An answer cut short by Ctrl-C is left for the caller to end.
func savingHooks(ctx context.Context, ios *cmdutil.IOStreams, aw *answerWriter) session.TurnHooks {
	hooks := toolHooks(ios)
	hooks.OnText = aw.Write
	if show := hooks.OnToolCall; show != nil {
		hooks.OnToolCall = func(name string, args map[string]any) {
			aw.settle() // text the model wrote before its calls ends above their lines
			show(name, args)
		}
	}
	hooks.OnSaving = func() {
		if ctx.Err() != nil {
			return
		}
		aw.Close()
		ios.StartProgressIndicatorWithLabel(statusline.Saving)
	}
	return hooks
}

// toolHooks show the model's calls on a terminal: one line per call on stderr, above the
// status line, which names the tool waited for, then Gemini again once the calls are answered.
func toolHooks(ios *cmdutil.IOStreams) session.TurnHooks {
	if !ios.StderrTTY {
		return session.TurnHooks{}
	}
	return session.TurnHooks{
		OnToolCall: func(name string, args map[string]any) {
			ios.Notice(transcript.CallLine(name, args))
			ios.StartProgressIndicatorWithLabel(statusline.Running(cmdutil.OneLine(name)))
		},
		OnToolsDone: func() {
			ios.StartProgressIndicatorWithLabel(statusline.AskingGemini)
		},
	}
}

// offerMove asks, on stderr and stdin, whether to ask the question again in the conversation
// the judge matched; it returns that conversation's session on yes.
func (c *conversation) offerMove(ctx context.Context, j *samechat.Judgement) *session.Session {
	match := j.Wait(ctx)
	if match == nil {
		return nil
	}
	ios := c.opts.IO
	var line string
	_ = ios.Prompt(func() error {
		fmt.Fprintf(ios.ErrOut, "%s Ask it again there, with that conversation's context? [y/N] ", samechat.Describe(match, store.Now()))
		var err error
		if line, err = c.stdin().next(ctx); err != nil && line == "" {
			fmt.Fprintln(ios.ErrOut)
		}
		return nil
	})
	if !samechat.Yes(line) {
		return nil
	}
	next, err := j.Open(ctx, match)
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "Cannot open the earlier conversation: %s\n", cmdutil.Message(err))
		return nil
	}
	return next
}

// finishOneShot prints the JSON object (-o json), reports where the turn went, and returns the
// run's error. A turn that ended without a complete answer is saved all the same (the question,
// what had arrived, the reply marked cut short): the object and the resume hint point at it.
// Only a history that is stored (or spooled) is pointed at.
func (c *conversation) finishOneShot(sess *session.Session, turn *session.Turn, err error, out *oneShotJSON) error {
	ios := c.opts.IO
	jsonOut := c.opts.Output == "json"
	h := sess.History()
	// kept: this turn is in the store or the spool. A history saved before (resumed) exists
	// even when this turn could not be saved.
	kept := turn != nil && turn.SaveErr == nil
	failure := oneShotFailure(turn, err)
	if jsonOut {
		v := chatJSON{HistoryID: h.ID, AlertID: h.AlertID, Title: h.Title, Complete: err == nil, ToolCalls: []toolCallJSON{}}
		if turn != nil {
			v.Answer, v.Usage, v.ToolCalls = turn.Answer, turn.Usage, newToolCallsJSON(turn.ToolCalls)
		}
		if !kept && h.Revision == 0 {
			v.HistoryID = "" // nothing is stored: there is no history to resume
		}
		if failure != nil {
			msg := cmdutil.Message(failure)
			v.Error = &msg
		}
		if perr := out.print(v); perr != nil && failure == nil {
			return perr
		}
	}
	report.Save(ios.ErrOut, turn, h)
	if !jsonOut && ios.StderrTTY && kept && !turn.Spooled {
		fmt.Fprintf(ios.ErrOut, "\nSaved as %s. Continue with: alertchat chat --history %s\n", h.ID, h.ID)
	}
	return failure
}

// oneShotFailure is the run's error for a turn that ended with err: what went wrong, and
// whether the question was saved.
func oneShotFailure(turn *session.Turn, err error) error {
	answered := turn != nil && (turn.Answer != "" || len(turn.ToolCalls) > 0)
	switch {
	case err == nil && turn.SaveErr != nil:
		return goerr.Wrap(turn.SaveErr, "the answer was printed but not saved")
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		what := "interrupted before Gemini answered"
		if answered {
			what = "interrupted"
		}
		switch {
		case turn == nil:
			return goerr.Wrap(err, what+": nothing of this question was saved")
		case turn.SaveErr != nil:
			return goerr.Wrap(err, what+", and the question could not be saved: "+cmdutil.Message(turn.SaveErr))
		case answered:
			return goerr.Wrap(err, what+": what had arrived was saved")
		default:
			return goerr.Wrap(err, what+": the question was saved")
		}
	}
	failure := report.DescribeModelError(err) // the question and what arrived are saved
	if turn != nil && turn.SaveErr != nil {
		return &notSaved{err: failure, saveErr: turn.SaveErr}
	}
	return failure
}

// notSaved is a failed turn that could not be saved either: the failure's message, then the
// store's; it is the failure for errors.Is and the exit status.
type notSaved struct{ err, saveErr error }

func (e *notSaved) Error() string {
	return cmdutil.Message(e.err) + "; the question could not be saved either: " + cmdutil.Message(e.saveErr)
}

func (e *notSaved) Unwrap() error { return e.err }
