package history

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/fsck"
	"github.com/alertchat/alertchat/pkg/store"
)

// FsckOptions are "history fsck"'s.
type FsckOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	Config    func() cmdutil.Config
	Repair    bool
	Grace     time.Duration
	Output    string
}

// NewCmdFsck is "alertchat history fsck". The checks and repairs are pkg/fsck's; exit status 0
// when the store is consistent or every problem was repaired, 1 otherwise.
func NewCmdFsck(f *factory.Factory, runF func(context.Context, *FsckOptions) error) *cli.Command {
	opts := &FsckOptions{IO: f.IO, OpenStore: f.OpenStore, Config: f.Config}
	return &cli.Command{
		Name:  "fsck",
		Usage: "check the store for content without metadata, metadata without content, unreadable transcripts and leftover files",
		Description: `Checks the store for what a crash or an outside hand can leave: content without metadata,
metadata without content, unreadable transcripts, temporary files. --repair moves orphans and
unreadable objects aside to lost+found (never deletes them). Objects younger than --grace are left alone.

Examples:
  alertchat history fsck
  alertchat history fsck --repair -o json

Exit status: 0 consistent (or everything repaired), 1 problems found and not repaired.`,
		UsageText: "alertchat history fsck [--repair] [--grace 5m] [-o text|json]\n" +
			"exit 0: consistent (or everything repaired); 1: problems found and not repaired",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "repair", Usage: "repair what is found (moved aside to lost+found, never deleted)", Destination: &opts.Repair},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Minute, Usage: "leave alone orphans and temporary files younger than this (a save may be in progress)", Destination: &opts.Grace},
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if opts.Grace < 0 {
				return cmdutil.UsageErrorf("--grace must not be negative")
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return fsckRun(ctx, opts, s)
			})
		},
	}
}

// fsckRun checks (and repairs) the store under s's layers and reports.
func fsckRun(ctx context.Context, opts *FsckOptions, s store.Store) error {
	cfg := opts.Config()
	fs, err := fsck.Check(ctx, s, fsck.Options{Prefix: cfg.Prefix, Workspace: cfg.Workspace, Repair: opts.Repair, Grace: opts.Grace})
	if err != nil {
		return err
	}
	unindexed, err := indexFindings(ctx, s, opts.Repair)
	if err != nil {
		return err
	}
	fs = append(fs, unindexed...)
	ios := opts.IO
	if opts.Output == "json" {
		if fs == nil {
			fs = []fsck.Finding{}
		}
		if err := cmdutil.PrintJSON(ios.Out, fs); err != nil {
			return err
		}
	} else {
		printFindings(ios.Out, fs)
	}
	problems, unrepaired := fsck.Count(fs)
	switch {
	case problems == 0:
		fmt.Fprintln(ios.ErrOut, "No problems found.")
		return nil
	case unrepaired == 0:
		fmt.Fprintf(ios.ErrOut, "%s found, all repaired.\n", format.Plural(problems, "problem", "problems"))
		return nil
	case opts.Repair:
		return goerr.New(fmt.Sprintf("%s found, %d not repaired", format.Plural(problems, "problem", "problems"), unrepaired))
	}
	return goerr.New(fmt.Sprintf("%s found; 'alertchat history fsck --repair' repairs them", format.Plural(problems, "problem", "problems")))
}

func printFindings(w io.Writer, fs []fsck.Finding) {
	for _, f := range fs {
		label := "note"
		if f.Problem {
			label = "problem"
		}
		what := f.Key
		if what == "" {
			what = string(f.HistoryID)
		}
		line := fmt.Sprintf("%-8s %-24s %s: %s", label, f.Kind, cmdutil.OneLine(what), cmdutil.OneLine(f.Detail))
		switch {
		case f.Repaired && f.MovedTo != "":
			line += " -> repaired, moved to " + cmdutil.OneLine(f.MovedTo)
		case f.Repaired:
			line += " -> repaired"
		case f.Error != "":
			line += " -> repair failed: " + cmdutil.OneLine(f.Error)
		}
		fmt.Fprintln(w, line)
	}
}
