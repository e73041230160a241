package history

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// PruneOptions are "history prune"'s.
type PruneOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Before: histories last updated before it are deleted.
	Before time.Time
	DryRun bool
	// Yes deletes without asking; without it a command that cannot ask refuses.
	Yes bool
}

// NewCmdPrune is "alertchat history prune --older-than AGE".
func NewCmdPrune(f *factory.Factory, runF func(context.Context, *PruneOptions) error) *cli.Command {
	opts := &PruneOptions{IO: f.IO, OpenStore: f.OpenStore}
	var olderThan string
	return &cli.Command{
		Name:  "prune",
		Usage: "delete histories not updated for a while",
		Description: `Deletes the histories last updated longer ago than --older-than. --dry-run lists them
instead. On a terminal it asks; where nothing can be asked it refuses unless -y is given.

Examples:
  alertchat history prune --older-than 30d --dry-run
  alertchat history prune --older-than 12w -y

Exit status: 2 when it cannot ask and -y is missing.`,
		UsageText: "alertchat history prune --older-than DURATION [--dry-run] [-y]   (DURATION: 30d, 2w, 12h, 90m, ...; asks on a terminal, needs -y elsewhere)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "delete histories last updated longer ago than this (30d, 2w, 12h, 90m)", Required: true, Destination: &olderThan},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be deleted, delete nothing", Destination: &opts.DryRun},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "delete without asking (needed where nothing can be asked)", Destination: &opts.Yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			age, err := cmdutil.ParseAge(olderThan)
			if err != nil {
				return err
			}
			opts.Before = store.Now().Add(-age)
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return pruneRun(ctx, opts, s)
			})
		},
	}
}

// pruneRun deletes (or, dry, lists) the histories last updated before opts.Before.
func pruneRun(ctx context.Context, opts *PruneOptions, s store.Histories) error {
	ios := opts.IO
	hs, err := collect(ctx, s, store.HistoryQuery{UpdatedBefore: opts.Before}, 0)
	if err != nil {
		return err
	}
	since := format.RFC3339(opts.Before)
	if len(hs) == 0 {
		fmt.Fprintf(ios.ErrOut, "No histories last updated before %s.\n", since)
		return nil
	}
	if opts.DryRun {
		for _, h := range hs {
			fmt.Fprintln(ios.Out, h.ID)
		}
		fmt.Fprintf(ios.ErrOut, "Would delete %s last updated before %s (dry run: nothing deleted).\n", format.Plural(len(hs), "history", "histories"), since)
		return nil
	}
	ok, err := cmdutil.ConfirmDelete(ios, opts.Yes, pruneQuestion(hs, since))
	if err != nil || !ok {
		return err
	}
	deleted := 0
	for _, h := range hs {
		err := s.DeleteHistory(ctx, h.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted meanwhile by someone else: the goal is reached
		}
		if err != nil {
			return goerr.Wrap(err, fmt.Sprintf("failed to delete history %s (%d of %d deleted)", h.ID, deleted, len(hs)), goerr.V("history_id", h.ID))
		}
		deleted++
		fmt.Fprintln(ios.Out, h.ID)
	}
	fmt.Fprintf(ios.ErrOut, "Deleted %s last updated before %s.\n", format.Plural(deleted, "history", "histories"), since)
	return nil
}

// pruneQuestion names what a prune deletes.
func pruneQuestion(hs []*record.History, since string) string {
	q := deleteQuestion(hs)
	if len(hs) == 1 {
		return strings.TrimSuffix(q, "?") + ", last updated before " + since + "?"
	}
	return strings.Replace(q, "?", " last updated before "+since+"?", 1)
}
