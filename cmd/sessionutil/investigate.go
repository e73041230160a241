package sessionutil

import (
	"context"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
)

// Investigation is what one investigation made as chat -q makes it produced: the answer, the
// whole live transcript (tool calls and results included), what it cost, and the history it
// was saved as.
type Investigation struct {
	Answer   string
	Contents []*genai.Content
	Usage    record.Usage
	// History is the session's history: stored (Revision > 0) unless SaveErr says otherwise,
	// or the options' store keeps nothing.
	History *record.History
	// SaveErr is why the investigation, answered, could not be saved.
	SaveErr error
}

// Investigator investigates one alert with one question as a one-shot chat does.
type Investigator func(ctx context.Context, model string, a *record.Alert, question string) (*Investigation, error)

// NewInvestigator investigates each alert in a new session of base (SessionOptions and
// WithTools: the system instruction, tools, evidence and limits of chat -q) with one question,
// on model (its thinking level as --thinking says). eval, triage and alert pull --triage
// investigate through it.
func NewInvestigator(base session.Options, thinking string) Investigator {
	return func(ctx context.Context, model string, a *record.Alert, question string) (*Investigation, error) {
		o := base
		if model != "" && model != o.Model {
			o.Model, o.TitleModel = model, ""
		}
		// --thinking was checked for every model before anything started.
		o.Thinking, _ = modelcfg.For(o.Model).ParseLevel(thinking)
		sess, err := session.New(o, a, nil)
		if err != nil {
			return nil, err
		}
		turn, err := sess.Send(ctx, question, nil)
		inv := &Investigation{Contents: sess.Contents(), History: sess.History()}
		if turn != nil {
			inv.Answer, inv.Usage, inv.SaveErr = turn.Answer, turn.Usage, turn.SaveErr
		}
		return inv, err
	}
}
