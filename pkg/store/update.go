package store

import (
	"context"
	"errors"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
)

// HistoryUpdater is what changing a stored history needs.
type HistoryUpdater interface {
	GetHistory(ctx context.Context, id record.HistoryID) (*record.History, error)
	SaveHistory(ctx context.Context, h *record.History) error
}

// ErrUnchanged, returned by UpdateHistory's change, says there is nothing to save: the history
// is returned as loaded, and nothing is written.
var ErrUnchanged = errors.New("nothing to change")

// UpdateAttempts bounds the load-and-save rounds of UpdateHistory when other writers keep saving the history.
const UpdateAttempts = 5

// UpdateHistory changes the metadata of a stored history (its title, its verdict, ...) through
// the conditional write every save makes: it loads the history, applies change, and saves it
// conditional on the revision it loaded. When another writer saved first (ErrConflict) it
// loads again and applies change to what that writer stored, so neither change is lost; change
// must therefore only set what it is about. An error of change is returned as it is, nothing
// saved. A missing history is ErrNotFound.
func UpdateHistory(ctx context.Context, st HistoryUpdater, id record.HistoryID, change func(h *record.History) error) (*record.History, error) {
	for attempt := 1; ; attempt++ {
		h, err := st.GetHistory(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := change(h); errors.Is(err, ErrUnchanged) {
			return h, nil
		} else if err != nil {
			return nil, err
		}
		err = st.SaveHistory(ctx, h)
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, ErrConflict) || attempt == UpdateAttempts {
			return nil, goerr.Wrap(err, "failed to update history", goerr.V("history_id", id), goerr.V("attempts", attempt))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
		}
	}
}

// AlertInvestigations is what the histories of one alert say about it.
type AlertInvestigations struct {
	// Count is how many histories the alert has.
	Count int
	// Verdict is the verdict of the one resolved last, "" when none is resolved.
	Verdict record.Verdict
}

// InvestigationCounter sums up the histories of alerts from the backend's indexes, without
// reading them one by one.
type InvestigationCounter interface {
	// AlertInvestigations returns, for each of ids that has histories, their count and the
	// latest verdict; an alert without histories is absent from the map.
	AlertInvestigations(ctx context.Context, ids []record.AlertID) (map[record.AlertID]AlertInvestigations, error)
}
