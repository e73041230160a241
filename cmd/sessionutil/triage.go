package sessionutil

import (
	"context"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/triage"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// TriageOptions are the parts of a triage that alertchat triage and alert pull --triage share:
// each alert investigated by investigate (NewInvestigator: chat -q's session, tools, evidence
// and limits, saving titled and redacted), its verdict asked on --model as history resolve
// --suggest asks it, and the proposal recorded through st (the redaction layer: the proposal's
// evidence is redacted like every write of a history).
func TriageOptions(cfg cmdutil.Config, gen modelcfg.Generator, st *workspace.Store, investigate Investigator) triage.Options {
	model := cfg.Model
	return triage.Options{
		Model: model,
		Store: st,
		Load:  st.GetAlert,
		Investigate: func(ctx context.Context, a *record.Alert, question string) (*triage.Investigation, error) {
			one, err := investigate(ctx, model, a, question)
			if one == nil {
				return nil, err
			}
			inv := &triage.Investigation{Answer: one.Answer, Contents: one.Contents, Usage: one.Usage}
			// Only a history in the store can carry the proposal (a turn kept in the spool
			// during an outage is not there yet).
			if one.SaveErr == nil && one.History != nil && one.History.Revision > 0 {
				inv.HistoryID = one.History.ID
			}
			return inv, err
		},
		Conclude: func(ctx context.Context, a *record.Alert, contents []*genai.Content) (*conclude.Suggestion, error) {
			return conclude.Suggest(ctx, gen, model, a, &record.History{AlertID: a.ID, Contents: contents})
		},
	}
}
