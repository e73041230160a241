package knowledge

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	kn "github.com/alertchat/alertchat/pkg/knowledge"
	"github.com/alertchat/alertchat/pkg/store"
)

// EditOptions are "knowledge edit"'s.
type EditOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	ID        string
	// Text and Expires are --text and --expires; set says which were given.
	Text, Expires       string
	setText, setExpires bool
}

// NewCmdEdit is "alertchat knowledge edit ID".
func NewCmdEdit(f *factory.Factory, runF func(context.Context, *EditOptions) error) *cli.Command {
	opts := &EditOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "edit",
		Usage: "change an entry's text or expiry",
		Description: `Changes an active entry's text (its indicators gain those found in the new text) or its expiry
(--expires counts from now: a duration such as 90d, or never). A retired entry is kept as it was.

Examples:
  alertchat knowledge edit 1a2b3c4d --text '198.51.100.23 is our external scanner (Qualys), Sundays and Wednesdays'
  alertchat knowledge edit 1a2b3c4d --expires never

Exit status: 2 for invalid input or a retired entry (nothing is written), 3 for an unknown entry.`,
		UsageText: "alertchat knowledge edit ID [--text TEXT] [--expires DURATION|never]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "text", Usage: "the new text", Destination: &opts.Text},
			&cli.StringFlag{Name: "expires", Usage: "when it stops being given, from now: a duration (90d, 2w, 12h) or never", Destination: &opts.Expires},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("knowledge edit takes exactly one entry ID")
			}
			opts.ID = c.Args().First()
			opts.setText, opts.setExpires = c.IsSet("text"), c.IsSet("expires")
			if !opts.setText && !opts.setExpires {
				return cmdutil.UsageErrorf("say what changes: --text TEXT, --expires DURATION|never, or both")
			}
			if opts.setText {
				if _, err := kn.CheckText(opts.Text); err != nil {
					return err
				}
			}
			if opts.setExpires {
				if opts.Expires == "" {
					return cmdutil.UsageErrorf("invalid --expires \"\": use a duration such as 90d, 2w or 12h, or never")
				}
				if err := checkDraft("x", nil, opts.Expires); err != nil {
					return err
				}
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return editRun(ctx, opts, s)
			})
		},
	}
}

func editRun(ctx context.Context, opts *EditOptions, s *factory.Store) error {
	e, err := getEntry(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	if e.RetiredAt != nil {
		return cmdutil.UsageErrorf("knowledge entry %s is retired: it is kept as it was, for audit; add a new one instead", e.Ref())
	}
	now := store.Now()
	if opts.setText {
		text, err := kn.CheckText(opts.Text)
		if err != nil {
			return err
		}
		inds, err := kn.Indicators(text, e.Indicators, s.Redactor.Engine())
		if err != nil {
			return err
		}
		e.Text, e.Indicators = text, inds
	}
	if opts.setExpires {
		if e.ExpiresAt, err = kn.ParseExpires(opts.Expires, now); err != nil {
			return err
		}
	}
	if err := s.PutKnowledge(ctx, e); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Updated %s.\n", e.Ref())
	return nil
}

// RmOptions are "knowledge rm"'s.
type RmOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	IDs       []string
}

// NewCmdRm is "alertchat knowledge rm ID...".
func NewCmdRm(f *factory.Factory, runF func(context.Context, *RmOptions) error) *cli.Command {
	opts := &RmOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "rm",
		Usage: "retire entries: never given to Gemini again, kept for audit",
		Description: `Retires knowledge entries: they are never given to Gemini again, and stay in the store for audit
(knowledge list --all, knowledge show). Nothing is deleted.

Example:
  alertchat knowledge rm 1a2b3c4d

Exit status: 3 for an unknown entry, 2 when a prefix matches several (entries named before it are
retired).`,
		UsageText: "alertchat knowledge rm ID...",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() == 0 {
				return cmdutil.UsageErrorf("knowledge rm takes one or more entry IDs")
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

func rmRun(ctx context.Context, opts *RmOptions, s store.KnowledgeBase) error {
	for _, arg := range opts.IDs {
		e, err := getEntry(ctx, s, arg)
		if err != nil {
			return err
		}
		if e.RetiredAt != nil {
			fmt.Fprintf(opts.IO.ErrOut, "%s was already retired.\n", e.Ref())
			continue
		}
		now := store.Now()
		e.RetiredAt = &now
		if err := s.PutKnowledge(ctx, e); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.ErrOut, "Retired %s: kept for audit, never given again.\n", e.Ref())
	}
	return nil
}
