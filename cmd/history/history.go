// Package history is "alertchat history": list, show, search, rename, resolve (and reopen)
// and remove conversation histories, and the housekeeping of the store (sync, fsck). One file
// per verb.
package history

import (
	"context"
	"errors"

	"github.com/m-mizutani/goerr/v2"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// NewCmdHistory is "alertchat history"; alone it lists, with the flags of "history list".
func NewCmdHistory(f *factory.Factory) *cli.Command {
	opts := newListOptions(f)
	return &cli.Command{
		Name:  "history",
		Usage: "list, show, report, search, rename, resolve and remove conversation histories",
		Description: `A history is one conversation: its transcript (redacted) and metadata (title, alert, verdict,
who asked). Without a subcommand, lists them like "history list". IDs may be shortened to a unique
prefix of 8 or more characters. Another workspace's history is "not found".

Examples:
  alertchat history
  alertchat history show 6e6f461a -o md
  alertchat history search 'lateral movement smb'`,
		UsageText: "alertchat history [list] [-a ALERT_ID] [--limit N] [-o text|json]",
		Flags:     listFlags(opts, true),
		Commands: []*cli.Command{
			NewCmdList(f, nil),
			NewCmdShow(f, nil),
			NewCmdReport(f, nil),
			NewCmdSearch(f, nil),
			NewCmdReindex(f, nil),
			NewCmdRm(f, nil),
			NewCmdRename(f, nil),
			NewCmdResolve(f, nil),
			NewCmdReopen(f, nil),
			NewCmdPrune(f, nil),
			NewCmdSync(f, nil),
			NewCmdFsck(f, nil),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return cmdutil.UsageErrorf("unknown history command %q; see 'alertchat history --help'", c.Args().First())
			}
			return listAction(ctx, opts, nil)
		},
	}
}

// openStore is what every history verb needs from the factory.
type openStore func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error)

// changeHistory changes the metadata of the history id (arg as the user gave it) through the
// conditional write every metadata change makes (store.UpdateHistory: a save by another writer
// in between is loaded again, never overwritten). A missing history, or another workspace's, is
// the contract's "not found"; what names the change in other errors. Its writes go through s,
// which must redact them (the command's store stack does).
func changeHistory(ctx context.Context, s store.HistoryUpdater, id record.HistoryID, arg, what string, change func(*record.History) error) (*record.History, error) {
	h, err := store.UpdateHistory(ctx, s, id, change)
	if errors.Is(err, store.ErrNotFound) {
		return nil, lookup.HistoryNotFound(arg)
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to "+what+" history", goerr.V("history_id", id))
	}
	return h, nil
}
