package alert

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/hits"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// SearchOptions are "alert search"'s.
type SearchOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	Query     string
	Limit     int
	Output    string
	// Severity and Source, when set, keep only the alerts that have them.
	Severity, Source string
}

// NewCmdSearch is "alertchat alert search QUERY".
func NewCmdSearch(f *factory.Factory, runF func(context.Context, *SearchOptions) error) *cli.Command {
	opts := &SearchOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "search",
		Usage: "find stored alerts by the words of their fields or a raw indicator (an IP, a domain, a hash, an ARN), best first",
		Description: `Ranks the workspace's alerts by the words of their fields and by raw indicators (an IP, a
domain, a hash, an ARN) found in them, best first, with a snippet of where they matched.

Examples:
  alertchat alert search 198.51.100.23
  alertchat alert search 'drop point' --severity high -o json`,
		UsageText: "alertchat alert search QUERY [--severity S] [--source S] [--limit N] [-o text|json]\ne.g. alertchat alert search 198.51.100.23 --severity high",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "severity", Usage: "only alerts of this severity", Destination: &opts.Severity}, alert.Severities...),
			&cli.StringFlag{Name: "source", Usage: "only alerts of this source (guardduty, securityhub, scc, suricata, falco, ...)", Destination: &opts.Source},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "how many alerts", Destination: &opts.Limit},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			q, err := hits.SearchArgs(c.Args().Slice(), opts.Output, opts.Limit, "alertchat alert search 198.51.100.23")
			if err != nil {
				return err
			}
			opts.Query = q
			if err := checkFilters(opts.Severity, opts.Source); err != nil {
				return err
			}
			opts.Source = strings.ToLower(opts.Source)
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return searchRun(ctx, opts, s)
			})
		},
	}
}

// checkFilters refuses a severity off the scale and a source that cannot be one.
func checkFilters(severity, source string) error {
	if severity != "" && !slices.Contains(alert.Severities, severity) {
		return cmdutil.UsageErrorf("invalid --severity %q: one of %s", severity, strings.Join(alert.Severities, ", "))
	}
	if strings.TrimSpace(source) != source || strings.ContainsAny(source, " \t\n") {
		return cmdutil.UsageErrorf("invalid --source %q", source)
	}
	return nil
}

// alertSearchJSON is a result of -o json, as the design fixes it.
type alertSearchJSON struct {
	ID        record.AlertID `json:"id"`
	Title     string         `json:"title"`
	CreatedAt string         `json:"created_at"`
	Score     float64        `json:"score"`
	Snippet   string         `json:"snippet"`
}

// searchRun searches the workspace's alerts and prints them, best first.
func searchRun(ctx context.Context, opts *SearchOptions, s *factory.Store) error {
	ios := opts.IO
	found, err := s.SearchAlerts(ctx, store.AlertSearchQuery{Text: opts.Query, Limit: opts.Limit, Severity: opts.Severity, Source: opts.Source})
	if err != nil {
		return err
	}
	if opts.Output == "json" {
		out := make([]alertSearchJSON, 0, len(found))
		for _, h := range found {
			out = append(out, alertSearchJSON{ID: h.Alert.ID, Title: h.Alert.Title, CreatedAt: format.RFC3339(h.Alert.CreatedAt),
				Score: hits.RoundScore(h.Score), Snippet: hits.Highlight(h.Snippet, "", "")})
		}
		return cmdutil.PrintJSON(ios.Out, out)
	}
	if len(found) == 0 {
		if ios.StdoutTTY {
			fmt.Fprintf(ios.ErrOut, "No alerts match %q.\n", cmdutil.OneLine(opts.Query))
		}
		return nil
	}
	if !ios.StdoutTTY {
		for _, h := range found {
			fmt.Fprintln(ios.Out, strings.Join([]string{string(h.Alert.ID), cmdutil.CleanCell(h.Alert.Title),
				format.RFC3339(h.Alert.CreatedAt), strconv.FormatFloat(hits.RoundScore(h.Score), 'f', -1, 64),
				hits.Highlight(h.Snippet, "", "")}, "\t"))
		}
		return nil
	}
	open, closing := "«", "»"
	if ios.Pretty() {
		open, closing = "\x1b[1m", "\x1b[0m"
	}
	t := cmdutil.NewTable(ios.Out, true, "ID", "SEVERITY", "TITLE", "ADDED", "MATCH").Fit(ios.TermWidth).Focus("MATCH", open)
	now := time.Now()
	for _, h := range found {
		t.RowStyled(format.ShortID(string(h.Alert.ID)), orDash(h.Alert.Severity), cmdutil.CleanCell(format.Truncate(h.Alert.Title, 48, format.Ellipsis)),
			format.RelativeTime(now, h.Alert.CreatedAt), hits.Highlight(h.Snippet, open, closing))
	}
	t.Flush()
	return nil
}
