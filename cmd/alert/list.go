package alert

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/alert"
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
	// Open leaves out the alerts their tool closed; Severity keeps the alerts at least this
	// severe; Source the alerts of this tool.
	Open     bool
	Severity string
	Source   string
	// Triage keeps the alerts whose triage proposed this verdict.
	Triage string
}

// NewCmdList is "alertchat alert list".
func NewCmdList(f *factory.Factory, runF func(context.Context, *ListOptions) error) *cli.Command {
	opts := &ListOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "list",
		Usage: "list alerts, newest first",
		Description: `Lists the workspace's alerts, newest first: a table on a terminal, tab-separated rows when piped,
an array of objects with -o json (with "investigations", the latest "verdict" and the "triage"
that alertchat triage proposed). --triage V keeps the alerts whose triage proposed V.

Example:
  alertchat alert list --limit 20 -o json`,
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "how many alerts", Destination: &opts.Limit},
			&cli.BoolFlag{Name: "open", Usage: "leave out the findings their tool closed (resolved, suppressed, archived, inactive)", Destination: &opts.Open},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "severity", Usage: "only alerts at least this severe (" + strings.Join(alert.Severities, " > ") + "): high shows high and critical",
				Destination: &opts.Severity}, alert.Severities...),
			&cli.StringFlag{Name: "source", Usage: "only alerts of this tool (guardduty, securityhub, scc, suricata, falco, gcp-audit, k8s-audit, okta, ...)", Destination: &opts.Source},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "triage", Usage: "only alerts whose triage (alertchat triage) proposed this verdict", Destination: &opts.Triage}, record.VerdictValues()...),
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
			if _, ok := record.ParseVerdict(opts.Triage); opts.Triage != "" && !ok {
				return cmdutil.UsageErrorf("invalid --triage %q: one of %s", opts.Triage, record.VerdictNames())
			}
			if opts.Severity != "" && alert.AtLeast(opts.Severity) == nil {
				return cmdutil.UsageErrorf("invalid --severity %q: one of %s", opts.Severity, strings.Join(alert.Severities, ", "))
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return listRun(ctx, opts, s)
			})
		},
	}
}

// listRun prints the workspace's newest alerts that the options select, and on stderr how
// many more there are past --limit.
func listRun(ctx context.Context, opts *ListOptions, s store.Store) error {
	ios := opts.IO
	var alerts []*record.Alert
	q := store.AlertQuery{Open: opts.Open, Severities: alert.AtLeast(opts.Severity), Source: strings.ToLower(strings.TrimSpace(opts.Source)),
		Triage: record.Verdict(opts.Triage)}
	cursor := ""
	for len(alerts) < opts.Limit {
		q.Limit, q.Cursor = opts.Limit-len(alerts), cursor
		page, err := s.ListAlerts(ctx, q)
		if err != nil {
			return goerr.Wrap(err, "failed to list alerts")
		}
		alerts = append(alerts, page.Alerts...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if cursor != "" {
		defer func() { fmt.Fprintln(ios.ErrOut, moreNote(ctx, s, q, len(alerts), opts.Limit)) }()
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
		if q.Open || q.Severities != nil || q.Source != "" || q.Triage != "" {
			fmt.Fprintln(ios.ErrOut, "No alerts match.")
			return nil
		}
		fmt.Fprintln(ios.ErrOut, "No alerts yet. Add one with: alertchat alert add -f alert.json")
		return nil
	}
	t := cmdutil.NewTable(ios.Out, ios.StdoutTTY, "ID", "CREATED", "SEVERITY", "SOURCE", "STATUS", "TRIAGE", "TITLE").Fit(ios.TermWidth)
	now := time.Now()
	for _, a := range alerts {
		id, created := string(a.ID), format.RFC3339(a.CreatedAt)
		if ios.StdoutTTY {
			// A short ID leaves the title room, as history list does; any 8+ prefix is accepted.
			id, created = format.ShortID(id), format.RelativeTime(now, a.CreatedAt)
		}
		t.Row(id, created, orDash(a.Severity), orDash(a.Source), orDash(a.Status), triageCell(a.Triage), a.Title)
	}
	t.Flush()
	return nil
}

// moreNote says how many alerts q selects past the shown ones (when the store counts them).
func moreNote(ctx context.Context, s store.AlertCounter, q store.AlertQuery, shown, limit int) string {
	q.Cursor, q.Limit = "", 0
	// A store that fails to count gets the note without the count.
	if total, err := s.CountAlerts(ctx, q); err == nil && total > shown {
		return fmt.Sprintf("%s past --limit %d (%d in all; --limit N shows more).", format.Plural(total-shown, "more alert", "more alerts"), limit, total)
	}
	return fmt.Sprintf("More alerts past --limit %d (--limit N shows more).", limit)
}
