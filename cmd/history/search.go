package history

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/hits"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// SearchOptions are "history search"'s.
type SearchOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Searcher returns the searcher of the run on s: the workspace's keyed redaction tokens
	// (indicators) and, when embeddings are on, the embedding model.
	Searcher func(ctx context.Context, s *factory.Store) (*search.Searcher, error)
	Query    string
	// AlertID filters by alert: a full ID or a unique prefix.
	AlertID string
	Limit   int
	Output  string
}

// NewCmdSearch is "alertchat history search QUERY".
func NewCmdSearch(f *factory.Factory, runF func(context.Context, *SearchOptions) error) *cli.Command {
	opts := &SearchOptions{IO: f.IO, OpenStore: f.OpenStore, Searcher: func(ctx context.Context, s *factory.Store) (*search.Searcher, error) {
		o := search.Options{IndicatorTokens: search.IndicatorTokens(s.Redactor.Engine())}
		if f.Embedder != nil {
			emb, err := f.Embedder(ctx)
			if err != nil {
				return nil, err
			}
			o.Embedder = emb
		}
		return search.New(o), nil
	}}
	return &cli.Command{
		Name:  "search",
		Usage: "find histories by words, by indicator (an IP, an e-mail, ... as typed) and by meaning, best first",
		Description: `Finds past investigations of the workspace: words match titles, summaries and transcripts
(Japanese, Chinese and Korean text included), and a raw value that redaction would replace (an IP,
an e-mail, a key) finds the histories holding its token. Results are ranked and diversified, best first;
with --embeddings, by meaning too.

Examples:
  alertchat history search 203.0.113.7
  alertchat history search 'where did we see this domain' -a 514c60ac -o json`,
		UsageText: "alertchat history search QUERY [-a ALERT_ID] [--limit N] [-o text|json]\n" +
			"e.g. alertchat history search 'where did we see 203.0.113.7'",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "alert", Aliases: []string{"a"}, Usage: "only histories of this alert (full ID or a unique prefix)", Destination: &opts.AlertID},
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "how many histories", Destination: &opts.Limit},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			q, err := hits.SearchArgs(c.Args().Slice(), opts.Output, opts.Limit, "alertchat history search 'lateral movement'")
			if err != nil {
				return err
			}
			opts.Query = q
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return searchRun(ctx, opts, s)
			})
		},
	}
}

// searchJSON is a result of -o json, as the design fixes it.
type searchJSON struct {
	ID        record.HistoryID `json:"id"`
	AlertID   record.AlertID   `json:"alert_id"`
	Title     string           `json:"title"`
	UpdatedAt string           `json:"updated_at"`
	Score     float64          `json:"score"`
	Snippet   string           `json:"snippet"`
	// Verdict is how the investigation ended (null while open), ResolvedBy who said so.
	Verdict    *record.Verdict `json:"verdict"`
	ResolvedBy *string         `json:"resolved_by"`
}

// searchRun searches s's workspace and prints the results, best first.
func searchRun(ctx context.Context, opts *SearchOptions, s *factory.Store) error {
	ios := opts.IO
	alertID, err := alertFilter(ctx, s, opts.AlertID)
	if err != nil {
		return err
	}
	sr, err := opts.Searcher(ctx, s)
	if err != nil {
		return err
	}
	rs, err := sr.Search(ctx, s, search.Query{Text: opts.Query, AlertID: alertID, Limit: opts.Limit})
	if err != nil {
		return err
	}
	if opts.Output == "json" {
		out := make([]searchJSON, 0, len(rs))
		for _, r := range rs {
			c := transcript.NewConclusion(r.History)
			out = append(out, searchJSON{
				ID: r.History.ID, AlertID: r.History.AlertID, Title: r.History.Title,
				UpdatedAt: format.RFC3339(r.History.UpdatedAt), Score: hits.RoundScore(r.Score),
				Snippet: hits.Highlight(r.Snippet, "", ""), Verdict: c.Verdict, ResolvedBy: c.ResolvedBy,
			})
		}
		return cmdutil.PrintJSON(ios.Out, out)
	}
	if len(rs) == 0 {
		if ios.StdoutTTY {
			fmt.Fprintf(ios.ErrOut, "No histories match %q.\n", cmdutil.OneLine(opts.Query))
		}
		return nil
	}
	if !ios.StdoutTTY {
		for _, r := range rs {
			fmt.Fprintln(ios.Out, strings.Join([]string{
				string(r.History.ID), string(r.History.AlertID), cmdutil.CleanCell(r.History.Title),
				format.RFC3339(r.History.UpdatedAt), strconv.FormatFloat(hits.RoundScore(r.Score), 'f', -1, 64),
				cmdutil.CleanCell(hits.Highlight(r.Snippet, "", "")),
			}, "\t"))
		}
		return nil
	}
	// The snippet goes last, so that its highlighting does not upset the column widths.
	open, closing := "«", "»"
	if ios.Pretty() {
		open, closing = "\x1b[1m", "\x1b[0m"
	}
	t := cmdutil.NewTable(ios.Out, true, "ID", "ALERT", "TITLE", "UPDATED", "VERDICT", "MATCH").Fit(ios.TermWidth).Focus("MATCH", open)
	now := time.Now()
	for _, r := range rs {
		t.RowStyled(format.ShortID(string(r.History.ID)), format.ShortID(string(r.History.AlertID)),
			cmdutil.CleanCell(format.Truncate(r.History.Title, 48, format.Ellipsis)), format.RelativeTime(now, r.History.UpdatedAt),
			verdictCell(r.History), hits.Highlight(r.Snippet, open, closing))
	}
	t.Flush()
	return nil
}
