package history

import (
	"context"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/lookup"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/pager"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/transcript"
)

// ShowOptions are "history show"'s.
type ShowOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Pager is $PAGER, for a transcript taller than the terminal.
	Pager string
	// ID is a full history ID or a unique prefix of 8 or more characters.
	ID     string
	Output string
}

// NewCmdShow is "alertchat history show ID".
func NewCmdShow(f *factory.Factory, runF func(context.Context, *ShowOptions) error) *cli.Command {
	opts := &ShowOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "show",
		Usage: "show one transcript",
		Description: `Prints one transcript: the questions (and who asked them), the answers, tool calls and their
results. On a terminal it is rendered, through $PAGER when taller than the screen; -o md writes
Markdown, -o json the stored contents.

Example:
  alertchat history show 6e6f461a -o md > investigation.md

Exit status: 3 when the workspace has no such history.`,
		UsageText: "alertchat history show ID [-o text|md|json]   (ID: full, or a unique prefix of 8+ characters)",
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format (md: Markdown)", Destination: &opts.Output}, "text", "md", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.CheckFormat(opts.Output, "text", "md", "json"); err != nil {
				return err
			}
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("history show takes exactly one history ID")
			}
			opts.ID = c.Args().First()
			opts.Pager = f.Config().Pager
			if runF != nil {
				return runF(ctx, opts)
			}
			return report.WithUploadedStore(ctx, opts.IO.ErrOut, opts.OpenStore, factory.StoreOptions{}, func(s *factory.Store) error {
				return showRun(ctx, opts, s)
			})
		},
	}
}

// showRun prints one transcript as text, Markdown or JSON.
func showRun(ctx context.Context, opts *ShowOptions, s store.Histories) error {
	id, err := lookup.HistoryID(ctx, s, opts.ID)
	if err != nil {
		return err
	}
	h, err := lookup.LoadHistory(ctx, s, id, true)
	if err != nil {
		return err
	}
	switch opts.Output {
	case "json":
		return cmdutil.PrintJSON(opts.IO.Out, transcript.NewJSON(h))
	case "md":
		return transcript.Markdown(opts.IO.Out, h)
	}
	if opts.IO.Pretty() {
		return showRendered(ctx, opts, h)
	}
	return transcript.Text(opts.IO.Out, h)
}

// showRendered shows a transcript to a person as chat does, Markdown rendered, through the
// pager when it is taller than the terminal.
func showRendered(ctx context.Context, opts *ShowOptions, h *record.History) error {
	var md strings.Builder
	if err := transcript.Markdown(&md, h); err != nil {
		return err
	}
	r, err := cmdutil.NewMarkdownRenderer(opts.IO)
	if err != nil {
		return err
	}
	ios := opts.IO
	// The pager takes the terminal as a prompt does: the status line stays away meanwhile.
	return ios.Prompt(func() error {
		return pager.Show(ctx, pager.Options{Out: ios.Out, ErrOut: ios.ErrOut, TTY: ios.StdoutTTY,
			Width: ios.TermWidth, Height: ios.TermHeight, Command: opts.Pager}, r.Render(md.String()))
	})
}
