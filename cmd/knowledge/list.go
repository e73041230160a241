package knowledge

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// ListOptions are "knowledge list"'s.
type ListOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	All       bool
	Limit     int
	Output    string
}

// NewCmdList is "alertchat knowledge list".
func NewCmdList(f *factory.Factory, runF func(context.Context, *ListOptions) error) *cli.Command {
	opts := &ListOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "list",
		Usage: "list the active entries, newest first (--all: expired and retired too)",
		Description: `Lists the team's active knowledge entries, newest first: a table on a terminal, tab-separated rows
when piped, a JSON array of entries with -o json. --all adds the expired and retired ones, kept
for audit.

Examples:
  alertchat knowledge list
  alertchat knowledge list --all -o json`,
		UsageText: "alertchat knowledge list [--all] [--limit N] [-o json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include expired and retired entries", Destination: &opts.All},
			&cli.IntFlag{Name: "limit", Usage: "most entries", Value: store.DefaultLimit, Destination: &opts.Limit},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if err := cmdutil.NoArgs(c.Args().Slice(), "knowledge list takes no arguments"); err != nil {
				return err
			}
			if opts.Limit < 1 || opts.Limit > store.MaxLimit {
				return cmdutil.UsageErrorf("invalid --limit %d: 1 to %d", opts.Limit, store.MaxLimit)
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

func listRun(ctx context.Context, opts *ListOptions, s store.KnowledgeBase) error {
	now := time.Now()
	var es []*record.Knowledge
	// Expired entries are kept in the store as active ones are: read past them to fill a page.
	limit := opts.Limit
	if !opts.All {
		limit = store.MaxLimit
	}
	all, err := s.ListKnowledge(ctx, store.KnowledgeQuery{All: opts.All, Limit: limit})
	if err != nil {
		return err
	}
	for _, e := range all {
		if (opts.All || e.Active(now)) && len(es) < opts.Limit {
			es = append(es, e)
		}
	}
	return printEntries(opts.IO, opts.Output, es, opts.All, now)
}

// printEntries prints entries as JSON, or as a table with a STATE column when states may
// differ.
func printEntries(ios *cmdutil.IOStreams, output string, es []*record.Knowledge, states bool, now time.Time) error {
	if output == "json" {
		return cmdutil.PrintJSON(ios.Out, entriesJSON(es))
	}
	header := []string{"ID", "CREATED", "AUTHOR", "EXPIRES", "TEXT"}
	if states {
		header = []string{"ID", "CREATED", "AUTHOR", "EXPIRES", "STATE", "TEXT"}
	}
	t := cmdutil.NewTable(ios.Out, ios.StdoutTTY, header...).Fit(ios.TermWidth, "TEXT")
	for _, e := range es {
		exp := "never"
		if e.ExpiresAt != nil {
			exp = e.ExpiresAt.Local().Format("2006-01-02")
		}
		row := []string{e.Ref(), e.CreatedAt.Local().Format("2006-01-02"), cmdutil.CleanCell(e.Author), exp}
		if states {
			row = append(row, state(e, now))
		}
		t.Row(append(row, cmdutil.CleanCell(oneLineText(e)))...)
	}
	t.Flush()
	if len(es) == 0 && ios.StderrTTY {
		fmt.Fprintln(ios.ErrOut, "No knowledge entries.")
	}
	return nil
}

// ShowOptions are "knowledge show"'s.
type ShowOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	ID        string
	Output    string
}

// NewCmdShow is "alertchat knowledge show ID".
func NewCmdShow(f *factory.Factory, runF func(context.Context, *ShowOptions) error) *cli.Command {
	opts := &ShowOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "show",
		Usage: "show one entry: its text, indicators, alert types, source, author and dates",
		Description: `Shows one knowledge entry, retired and expired ones included (-o json: the entry).

Example:
  alertchat knowledge show 1a2b3c4d

Exit status: 3 when no entry of the workspace has that ID, 2 when a prefix matches several.`,
		UsageText: "alertchat knowledge show ID [-o json]   (ID: full, or a unique prefix of 8+ characters; K-1a2b3c4d works too)",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("knowledge show takes exactly one entry ID")
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

func showRun(ctx context.Context, opts *ShowOptions, s store.KnowledgeBase) error {
	e, err := getEntry(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	if opts.Output == "json" {
		return cmdutil.PrintJSON(opts.IO.Out, newEntryJSON(e))
	}
	writeEntry(opts.IO.Out, e, time.Now())
	return nil
}

// writeEntry is an entry for a person.
func writeEntry(w io.Writer, e *record.Knowledge, now time.Time) {
	line := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k+":", termsafe.Line(v)) }
	line("id", string(e.ID)+" ("+e.Ref()+")")
	st := state(e, now)
	switch {
	case e.RetiredAt != nil:
		st += " on " + format.RFC3339(*e.RetiredAt)
	case e.ExpiresAt != nil && st == "expired":
		st += " on " + format.RFC3339(*e.ExpiresAt)
	case e.ExpiresAt != nil:
		st += ", expires " + format.RFC3339(*e.ExpiresAt)
	default:
		st += ", never expires"
	}
	line("state", st)
	line("author", e.Author)
	line("created", format.RFC3339(e.CreatedAt))
	if src := e.Source; src != nil {
		line("source", "history "+string(src.HistoryID)+" ("+string(src.Verdict)+")")
	} else {
		line("source", "added by hand")
	}
	if len(e.Indicators) > 0 {
		line("indicators", strings.Join(e.Indicators, ", "))
	}
	if len(e.AlertTypes) > 0 {
		line("alert types", strings.Join(e.AlertTypes, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, termsafe.String(e.Text))
}

// SearchOptions are "knowledge search"'s.
type SearchOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	Query     string
	Limit     int
	Output    string
}

// NewCmdSearch is "alertchat knowledge search QUERY".
func NewCmdSearch(f *factory.Factory, runF func(context.Context, *SearchOptions) error) *cli.Command {
	opts := &SearchOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "search",
		Usage: "the active entries matching words or raw indicators, best first",
		Description: `Finds active knowledge entries by the words of their text, their alert types and their indicators:
a raw value that redaction replaces (an IP, an e-mail address) finds the entries that hold its
token, as history search does; with --embeddings, by meaning too (the entries written with it on).
Best match first; -o json prints a JSON array of entries.

Examples:
  alertchat knowledge search 198.51.100.23
  alertchat knowledge search backup job -o json`,
		UsageText: "alertchat knowledge search QUERY [--limit N] [-o json]",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Usage: "most results", Value: 10, Destination: &opts.Limit},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			opts.Query = strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if opts.Query == "" {
				return cmdutil.UsageErrorf("say what to look for: alertchat knowledge search QUERY")
			}
			if opts.Limit < 1 || opts.Limit > store.MaxLimit {
				return cmdutil.UsageErrorf("invalid --limit %d: 1 to %d", opts.Limit, store.MaxLimit)
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				es, err := retriever(s, opts.IO.ErrOut).Search(ctx, opts.Query, opts.Limit)
				if err != nil {
					return err
				}
				return printEntries(opts.IO, opts.Output, es, false, time.Now())
			})
		},
	}
}
