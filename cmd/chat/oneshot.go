package chat

import (
	"context"
	"fmt"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/session"
)

// chatJSON is chat -o json's one object. It is printed whatever happens: Error is null on
// success, and Complete is false when the answer was cut short or never came.
type chatJSON struct {
	HistoryID model.HistoryID `json:"history_id"`
	AlertID   model.AlertID   `json:"alert_id"`
	Title     string          `json:"title"`
	Answer    string          `json:"answer"`
	Usage     model.Usage     `json:"usage"`
	Error     *string         `json:"error"`
	Complete  bool            `json:"complete"`
}

// oneShotJSON prints chat -o json's object once: the turn's, or a failure's with what is known.
type oneShotJSON struct {
	opts      *Options
	alertID   model.AlertID
	historyID model.HistoryID
	printed   bool
}

func (o *oneShotJSON) print(v chatJSON) error {
	o.printed = true
	return cmdutil.PrintJSON(o.opts.IO.Out, v)
}

// fail prints the object of a run that failed before a turn was taken.
func (o *oneShotJSON) fail(err error) {
	msg := cmdutil.Message(err)
	_ = o.print(chatJSON{HistoryID: o.historyID, AlertID: o.alertID, Error: &msg})
}

func runOneShot(ctx context.Context, opts *Options, sess *session.Session, question string, out *oneShotJSON) error {
	ios := opts.IO
	jsonOut := opts.Output == "json"
	var aw *answerWriter
	onText := func(string) {}
	spin := cmdutil.StartSpinner(ios, "asking Gemini")
	if !jsonOut {
		aw = newAnswerWriter(ios, opts.Raw)
		aw.beforeFirstWrite = spin.Stop
		onText = aw.Write
	}
	turn, err := sess.Send(ctx, question, onText)
	spin.Stop()
	if aw != nil {
		aw.Close()
	}
	h := sess.History()
	var failure error
	switch {
	case err != nil:
		failure = cmdutil.DescribeModelError(err) // a partial answer was printed and saved
	case turn.SaveErr != nil:
		failure = goerr.Wrap(turn.SaveErr, "the answer was printed but not saved")
	}
	if jsonOut {
		v := chatJSON{HistoryID: h.ID, AlertID: h.AlertID, Title: h.Title, Complete: err == nil}
		if turn != nil {
			v.Answer, v.Usage = turn.Answer, turn.Usage
		}
		if turn == nil && len(h.Contents) == 0 {
			v.HistoryID = "" // nothing was saved: there is no history to resume
		}
		if failure != nil {
			msg := cmdutil.Message(failure)
			v.Error = &msg
		}
		if perr := out.print(v); perr != nil && failure == nil {
			return perr
		}
	}
	cmdutil.ReportSave(ios.ErrOut, turn, h)
	if failure != nil {
		return failure
	}
	if !jsonOut && ios.StderrTTY && !turn.Spooled {
		fmt.Fprintf(ios.ErrOut, "\nSaved as %s. Continue with: alertchat chat --history %s\n", h.ID, h.ID)
	}
	return nil
}
