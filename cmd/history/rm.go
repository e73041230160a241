package history

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// RmOptions are "history rm"'s.
type RmOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// IDs are full history IDs or unique prefixes.
	IDs []string
	// Yes deletes without asking; without it a command that cannot ask refuses.
	Yes bool
}

// NewCmdRm is "alertchat history rm ID...".
func NewCmdRm(f *factory.Factory, runF func(context.Context, *RmOptions) error) *cli.Command {
	opts := &RmOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "rm",
		Usage: "delete histories (transcript and metadata)",
		Description: `Deletes histories, transcript and metadata. On a terminal it asks, naming each one; where
nothing can be asked it refuses unless -y is given.

Example:
  alertchat history rm -y 6e6f461a 0b1c2d3e

Exit status: 2 when it cannot ask and -y is missing, 3 for an unknown history.`,
		UsageText: "alertchat history rm [-y] ID...   (IDs: full, or unique prefixes of 8+ characters; asks on a terminal, needs -y elsewhere)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "delete without asking (needed where nothing can be asked)", Destination: &opts.Yes},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() == 0 {
				return cmdutil.UsageErrorf("history rm takes one or more history IDs")
			}
			opts.IDs = c.Args().Slice()
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return rmRun(ctx, opts, s)
			})
		},
	}
}

// rmRun resolves every argument first and deletes nothing unless all of them name existing
// histories and the user agreed (or -y).
func rmRun(ctx context.Context, opts *RmOptions, s store.Histories) error {
	var hs []*record.History
	seen := map[record.HistoryID]bool{}
	for _, arg := range opts.IDs {
		id, err := lookup.HistoryID(ctx, s, arg)
		if err != nil {
			return err
		}
		// A full ID is not looked up by the resolver: make sure it exists before deleting anything.
		h, err := lookup.LoadHistory(ctx, s, id, false)
		if err != nil {
			return err
		}
		if !seen[id] {
			seen[id] = true
			hs = append(hs, h)
		}
	}
	ok, err := cmdutil.ConfirmDelete(opts.IO, opts.Yes, deleteQuestion(hs))
	if err != nil || !ok {
		return err
	}
	for i, h := range hs {
		if err := s.DeleteHistory(ctx, h.ID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				err = lookup.HistoryNotFound(string(h.ID))
			}
			return goerr.Wrap(err, fmt.Sprintf("failed to delete history %s (%d of %d deleted)", h.ID, i, len(hs)), goerr.V("history_id", h.ID))
		}
		fmt.Fprintf(opts.IO.ErrOut, "Deleted %s\n", h.ID)
	}
	return nil
}

// maxNamed is how many histories a deletion prompt names one by one.
const maxNamed = 10

// deleteQuestion names what a deletion removes: each history's short ID, title and size.
func deleteQuestion(hs []*record.History) string {
	var b strings.Builder
	if len(hs) == 1 {
		h := hs[0]
		fmt.Fprintf(&b, "Delete history %s %q (%s, updated %s)?", format.ShortID(string(h.ID)), cmdutil.OneLine(h.Title),
			format.Plural(h.MessageCount, "message", "messages"), format.RFC3339(h.UpdatedAt))
		return b.String()
	}
	fmt.Fprintf(&b, "Delete %s?", format.Plural(len(hs), "history", "histories"))
	for i, h := range hs {
		if i == maxNamed {
			fmt.Fprintf(&b, "\n  ... and %d more", len(hs)-maxNamed)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %q (%s)", format.ShortID(string(h.ID)), cmdutil.OneLine(h.Title), format.Plural(h.MessageCount, "message", "messages"))
	}
	b.WriteString("\n")
	return b.String()
}
