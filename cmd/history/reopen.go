package history

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// ReopenOptions are "history reopen"'s.
type ReopenOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	ID        string
}

// NewCmdReopen is "alertchat history reopen ID".
func NewCmdReopen(f *factory.Factory, runF func(context.Context, *ReopenOptions) error) *cli.Command {
	opts := &ReopenOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "reopen",
		Usage: "clear an investigation's verdict",
		Description: `Clears an investigation's verdict, so it counts as open again.

Example:
  alertchat history reopen 6e6f461a

Exit status: 3 when the workspace has no such history.`,
		UsageText: "alertchat history reopen ID",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("history reopen takes exactly one history ID")
			}
			opts.ID = c.Args().First()
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return reopenRun(ctx, opts, s)
			})
		},
	}
}

// reopenRun clears the verdict, through the same conditional write as resolve.
func reopenRun(ctx context.Context, opts *ReopenOptions, s store.Histories) error {
	id, err := lookup.HistoryID(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	var prev *record.Resolution
	h, err := changeHistory(ctx, s, id, opts.ID, "reopen", func(h *record.History) error {
		if prev = h.Resolution; prev == nil {
			return store.ErrUnchanged
		}
		h.Resolution, h.TriageAgreed = nil, nil
		return nil
	})
	if err != nil {
		return err
	}
	if prev == nil {
		fmt.Fprintf(opts.IO.ErrOut, "History %s is open already.\n", h.ID)
		return nil
	}
	fmt.Fprintf(opts.IO.ErrOut, "Reopened %s (it was %s).\n", h.ID, prev.Verdict.Label())
	return nil
}
