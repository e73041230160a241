package alert

import (
	"context"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// investigationsJSON is what an alert's histories say about it in -o json: how many there are
// and the verdict of the one resolved last (null when none is).
type investigationsJSON struct {
	Investigations int             `json:"investigations"`
	Verdict        *record.Verdict `json:"verdict"`
}

// investigations sums up the histories of alerts from the store's indexes (no history is
// read); an alert without histories gets 0 and null.
func investigations(ctx context.Context, s store.InvestigationCounter, alerts []*record.Alert) (map[record.AlertID]investigationsJSON, error) {
	out := make(map[record.AlertID]investigationsJSON, len(alerts))
	if len(alerts) == 0 {
		return out, nil
	}
	ids := make([]record.AlertID, len(alerts))
	for i, a := range alerts {
		ids[i] = a.ID
	}
	sums, err := s.AlertInvestigations(ctx, ids)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to count the alerts' investigations")
	}
	for id, inv := range sums {
		j := investigationsJSON{Investigations: inv.Count}
		if inv.Verdict != "" {
			v := inv.Verdict
			j.Verdict = &v
		}
		out[id] = j
	}
	return out, nil
}
