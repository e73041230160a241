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
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// RenameOptions are "history rename"'s.
type RenameOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	ID        string
	// Title is the cleaned manual title.
	Title string
}

// NewCmdRename is "alertchat history rename ID TITLE".
func NewCmdRename(f *factory.Factory, runF func(context.Context, *RenameOptions) error) *cli.Command {
	opts := &RenameOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "rename",
		Usage: "set a history's title (a manual title is never regenerated)",
		Description: `Sets a history's title. A title set by hand is never replaced by a generated one.

Example:
  alertchat history rename 6e6f461a 'Drop point triage'

Exit status: 3 when the workspace has no such history.`,
		UsageText: "alertchat history rename ID TITLE",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 2 {
				return cmdutil.UsageErrorf("history rename takes a history ID and a title (quote a title with spaces)")
			}
			opts.ID = c.Args().First()
			if opts.Title = session.CleanManualTitle(c.Args().Get(1)); opts.Title == "" {
				return cmdutil.UsageErrorf("the title is empty")
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			s, err := report.OpenAndUpload(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			h, err := Rename(ctx, s, opts.ID, opts.Title)
			if err != nil {
				return err
			}
			// The store stack redacted the title: say what was stored.
			fmt.Fprintf(opts.IO.ErrOut, "Renamed %s to %q\n", h.ID, cmdutil.OneLine(h.Title))
			return nil
		},
	}
}

// Rename sets a manual title on the history arg names (see changeHistory: a concurrent save is loaded
// again, never overwritten). Its writes go through s, which must redact them (the command's
// store stack does).
func Rename(ctx context.Context, s store.Histories, arg, title string) (*record.History, error) {
	id, err := lookup.HistoryID(ctx, s, arg)
	if err != nil {
		return nil, err
	}
	return changeHistory(ctx, s, id, arg, "rename", func(h *record.History) error {
		h.Title, h.TitleSource = title, record.TitleManual
		return nil
	})
}
