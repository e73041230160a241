package knowledge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	kn "github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/store"
)

// AddOptions are "knowledge add"'s.
type AddOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	Text      string
	// Indicators and AlertTypes are --indicator and --alert-type; Expires is --expires.
	Indicators []string
	AlertTypes []string
	Expires    string
}

// NewCmdAdd is "alertchat knowledge add TEXT".
func NewCmdAdd(f *factory.Factory, runF func(context.Context, *AddOptions) error) *cli.Command {
	opts := &AddOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "add",
		Usage: "add what the team learned; prints the new entry's ID",
		Description: `Adds an entry to the team's knowledge and prints its ID. Its indicators are the values found in
the text (IP addresses, domains, e-mail addresses, hashes, cloud account, instance and ARN-like
IDs, and what redaction would replace) and those given with --indicator; --alert-type names the
alert types or rules it is about (GuardDuty or Security Hub Type, Security Command Center category,
Suricata signature, Falco rule). It expires after 180 days unless --expires says otherwise
(a duration such as 90d, 2w, 12h, or never). The author is --analyst (or who the credentials are).

Examples:
  alertchat knowledge add '198.51.100.23 is our external scanner (Qualys), Sundays'
  alertchat knowledge add 'Fires on the nightly backup job at 02:00' --alert-type 'Write below etc' --expires never

Exit status: 2 for empty text, text over 2,000 characters, an invalid --expires, --alert-type or
--indicator (nothing is written); 1 when the store fails (nothing is half-written: run it again).`,
		UsageText: "alertchat knowledge add TEXT [--indicator V]... [--alert-type T]... [--expires DURATION|never]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "indicator", Usage: "a value the entry is about, beside those found in its text (repeatable)", Destination: &opts.Indicators},
			&cli.StringSliceFlag{Name: "alert-type", Usage: "an alert type or rule name the entry is about (repeatable)", Destination: &opts.AlertTypes},
			&cli.StringFlag{Name: "expires", Usage: "when it stops being given: a duration (90d, 2w, 12h) or never (default 180d)", Destination: &opts.Expires},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() == 0 {
				return cmdutil.UsageErrorf("say what the team learned: alertchat knowledge add 'TEXT'")
			}
			opts.Text = strings.Join(c.Args().Slice(), " ")
			if err := checkDraft(opts.Text, opts.AlertTypes, opts.Expires); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return addRun(ctx, opts, s)
			})
		},
	}
}

// checkDraft refuses bad input before the store is opened: nothing is written.
func checkDraft(text string, types []string, expires string) error {
	if _, err := kn.CheckText(text); err != nil {
		return err
	}
	if _, err := kn.CheckAlertTypes(types); err != nil {
		return err
	}
	_, err := kn.ParseExpires(expires, time.Now())
	return err
}

func addRun(ctx context.Context, opts *AddOptions, s *factory.Store) error {
	e, err := kn.New(kn.Draft{Text: opts.Text, Indicators: opts.Indicators, AlertTypes: opts.AlertTypes, Expires: opts.Expires,
		Author: s.Analyst(ctx)}, s.Redactor.Engine(), store.Now())
	if err != nil {
		return err
	}
	if err := s.PutKnowledge(ctx, e); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, e.ID)
	return nil
}
