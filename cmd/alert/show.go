package alert

import (
	"context"
	"fmt"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// ShowOptions are "alert show"'s.
type ShowOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// ID is a full alert ID or a unique prefix of 8 or more characters.
	ID     string
	Output string
}

// NewCmdShow is "alertchat alert show ID".
func NewCmdShow(f *factory.Factory, runF func(context.Context, *ShowOptions) error) *cli.Command {
	opts := &ShowOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "show",
		Usage: "show an alert as stored",
		Description: `Prints an alert exactly as it was stored (its triage, when it has one, on stderr); -o json adds
its metadata (title, severity, source, investigations, verdict, triage).

Example:
  alertchat alert show 514c60ac

Exit status: 3 when no alert of the workspace has that ID, 2 when a prefix matches several.`,
		UsageText: "alertchat alert show ID [-o json]   (ID: full, or a unique prefix of 8+ characters)",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format (text: the alert as stored; json: with its metadata)", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("alert show takes exactly one alert ID")
			}
			opts.ID = c.Args().First()
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return showRun(ctx, opts, s)
			})
		},
	}
}

// showRun prints one alert: as stored, or as JSON with its metadata.
func showRun(ctx context.Context, opts *ShowOptions, s store.Store) error {
	a, err := lookup.LoadAlert(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	ios := opts.IO
	// The alert as stored never changes; its triage is read beside it.
	if a.Triage, err = s.AlertTriage(ctx, a.ID); err != nil {
		return err
	}
	if opts.Output == "json" {
		invs, err := investigations(ctx, s, []*record.Alert{a})
		if err != nil {
			return err
		}
		j := newAlertJSON(a)
		j.investigationsJSON = invs[a.ID]
		return cmdutil.PrintJSON(ios.Out, j)
	}
	data := a.Data
	if ios.StdoutTTY {
		// JSON may hold bidirectional overrides as they are: a terminal is shown the text safe
		data = []byte(termsafe.String(string(data)))
	}
	if _, err := ios.Out.Write(data); err != nil {
		return goerr.Wrap(err, "failed to write alert")
	}
	fmt.Fprintln(ios.Out)
	if t := a.Triage; t != nil {
		// On stderr: stdout is the alert exactly as stored.
		fmt.Fprintf(ios.ErrOut, "Triage: %s %.2f (%s, %s), history %s\n", t.Verdict, t.Confidence, cmdutil.OneLine(t.Model), format.RFC3339(t.At), t.HistoryID)
	}
	return nil
}
