package alert

import (
	"context"
	"fmt"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// ListOptions are "alert list"'s.
type ListOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	Output    string
	Limit     int
}

// NewCmdList is "alertchat alert list".
func NewCmdList(f *factory.Factory, runF func(context.Context, *ListOptions) error) *cli.Command {
	opts := &ListOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "list",
		Usage: "list alerts, newest first",
		Description: `Lists the workspace's alerts, newest first: a table on a terminal, tab-separated rows when piped,
an array of objects with -o json (with "investigations" and the latest "verdict").

Example:
  alertchat alert list --limit 20 -o json`,
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "how many alerts", Destination: &opts.Limit},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if opts.Limit <= 0 {
				return cmdutil.UsageErrorf("--limit must be positive")
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return factory.WithStore(ctx, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error { return listRun(ctx, opts, s) })
		},
	}
}

// listRun prints the workspace's newest alerts.
func listRun(ctx context.Context, opts *ListOptions, s store.Alerts) error {
	ios := opts.IO
	var alerts []*record.Alert
	cursor := ""
	for len(alerts) < opts.Limit {
		page, err := s.ListAlerts(ctx, store.AlertQuery{Limit: opts.Limit - len(alerts), Cursor: cursor})
		if err != nil {
			return goerr.Wrap(err, "failed to list alerts")
		}
		alerts = append(alerts, page.Alerts...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if opts.Output == "json" {
		invs, err := investigations(ctx, s, alerts)
		if err != nil {
			return err
		}
		out := make([]alertJSON, 0, len(alerts))
		for _, a := range alerts {
			j := newAlertJSON(a)
			j.investigationsJSON = invs[a.ID]
			out = append(out, j)
		}
		return cmdutil.PrintJSON(ios.Out, out)
	}
	if len(alerts) == 0 && ios.StdoutTTY {
		fmt.Fprintln(ios.ErrOut, "No alerts yet. Add one with: alertchat alert add -f alert.json")
		return nil
	}
	t := cmdutil.NewTable(ios.Out, ios.StdoutTTY, "ID", "CREATED", "SEVERITY", "SOURCE", "TITLE").Fit(ios.TermWidth)
	now := time.Now()
	for _, a := range alerts {
		id, created := string(a.ID), format.RFC3339(a.CreatedAt)
		if ios.StdoutTTY {
			// A short ID leaves the title room, as history list does; any 8+ prefix is accepted.
			id, created = format.ShortID(id), format.RelativeTime(now, a.CreatedAt)
		}
		t.Row(id, created, orDash(a.Severity), orDash(a.Source), a.Title)
	}
	t.Flush()
	return nil
}
