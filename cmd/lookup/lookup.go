// Package lookup finds the history or alert a command's argument names, as the commands that
// take one share it: a full ID, or a unique prefix of one, read from the workspace's store; or
// the one alert of a file (AlertFile).
package lookup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// MinIDPrefix is the shortest prefix accepted for a history or alert ID; maxCandidates is how
// many matches an ambiguous prefix lists.
const (
	MinIDPrefix   = 8
	maxCandidates = 10
)

// HistoryFinder is what looking up a history ID needs.
type HistoryFinder interface {
	FindHistories(ctx context.Context, prefix string, limit int) ([]record.HistoryID, error)
}

// AlertFinder is what looking up an alert ID needs.
type AlertFinder interface {
	FindAlerts(ctx context.Context, prefix string, limit int) ([]record.AlertID, error)
}

// HistoryID turns what a user typed into a history ID: a full ID passes through as is
// (whether it exists is for the caller's load to say), a prefix of at least MinIDPrefix
// characters must match exactly one history of the store's workspace. A short prefix or
// several matches are usage errors (the message lists the candidates); no match is "not found".
func HistoryID(ctx context.Context, s HistoryFinder, arg string) (record.HistoryID, error) {
	arg = strings.TrimSpace(arg)
	if id := record.HistoryID(arg); store.ValidHistoryID(id) {
		return id, nil
	}
	if utf8.RuneCountInString(arg) < MinIDPrefix {
		return "", cmdutil.UsageErrorf("history ID %q is too short: give the full ID or at least %d characters of it", arg, MinIDPrefix)
	}
	id, err := byPrefix(ctx, "history", arg, s.FindHistories)
	return record.HistoryID(id), err
}

// AlertID is HistoryID for alerts. An alert ID is not a fixed shape (any ID the
// store gave), so an exact match wins over a longer ID it is the prefix of.
func AlertID(ctx context.Context, s AlertFinder, arg string) (record.AlertID, error) {
	arg = strings.TrimSpace(arg)
	id, err := byPrefix(ctx, "alert", arg, s.FindAlerts)
	return record.AlertID(id), err
}

func byPrefix[ID ~string](ctx context.Context, noun, arg string, find func(context.Context, string, int) ([]ID, error)) (string, error) {
	if arg == "" {
		return "", cmdutil.UsageErrorf("empty %s ID", noun)
	}
	ids, err := find(ctx, arg, maxCandidates+1)
	if err != nil {
		return "", goerr.Wrap(err, "failed to look up "+noun, goerr.V("prefix", arg))
	}
	for _, id := range ids {
		if string(id) == arg {
			return arg, nil
		}
	}
	if len(ids) > 0 && utf8.RuneCountInString(arg) < MinIDPrefix {
		return "", cmdutil.UsageErrorf("%s ID %q is too short: give the full ID or at least %d characters of it", noun, arg, MinIDPrefix)
	}
	switch len(ids) {
	case 0:
		return "", goerr.Wrap(store.ErrNotFound, fmt.Sprintf("no %s %q", noun, arg))
	case 1:
		return string(ids[0]), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s ID %q is ambiguous; it matches:", noun, arg)
	for i, id := range ids {
		if i == maxCandidates {
			b.WriteString("\n  ...")
			break
		}
		b.WriteString("\n  " + string(id))
	}
	return "", cmdutil.UsageErrorf("%s", b.String())
}

// HistoryNotFound is the contract's "not found" for a history.
func HistoryNotFound(arg string) error {
	return goerr.Wrap(store.ErrNotFound, fmt.Sprintf("no history %q", arg), goerr.V("history_id", arg))
}

// AlertNotFound is the contract's "not found" for an alert.
func AlertNotFound(arg string) error {
	return goerr.Wrap(store.ErrNotFound, fmt.Sprintf("no alert %q", arg), goerr.V("alert_id", arg))
}

// LoadHistory reads a history (with its transcript when full is set); a missing one is the
// contract's "not found".
func LoadHistory(ctx context.Context, s store.Histories, id record.HistoryID, full bool) (*record.History, error) {
	var h *record.History
	var err error
	if full {
		h, err = s.GetHistory(ctx, id)
	} else {
		h, err = s.GetHistoryMeta(ctx, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, HistoryNotFound(string(id))
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to load history", goerr.V("history_id", id))
	}
	return h, nil
}

// LoadAlert looks up arg (a full ID or a unique prefix) and reads the alert.
func LoadAlert(ctx context.Context, s store.Alerts, arg string) (*record.Alert, error) {
	id, err := AlertID(ctx, s, arg)
	if err != nil {
		return nil, err
	}
	a, err := s.GetAlert(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, AlertNotFound(arg)
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to load alert", goerr.V("alert_id", id))
	}
	return a, nil
}
