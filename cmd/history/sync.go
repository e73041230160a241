package history

import (
	"context"
	"fmt"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/format"
)

// SyncOptions are "history sync"'s.
type SyncOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
}

// NewCmdSync is "alertchat history sync".
func NewCmdSync(f *factory.Factory, runF func(context.Context, *SyncOptions) error) *cli.Command {
	opts := &SyncOptions{IO: f.IO, OpenStore: f.OpenStore}
	return &cli.Command{
		Name:  "sync",
		Usage: "upload the turns kept locally while the store was unavailable",
		Description: `Uploads the turns that were kept in the local spool while the store could not be reached.
Every command that reaches the store does this first; sync does it on demand and reports what it uploaded.

Example:
  alertchat history sync

Exit status: 1 when the store still cannot be reached (the spool is left intact).`,
		UsageText: "alertchat history sync\n" +
			"(every command that reaches the store does this first; sync does it on demand and reports)",
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return factory.WithStore(ctx, opts.OpenStore, factory.StoreOptions{IgnoreRecordedOutage: true}, func(s *factory.Store) error { return syncRun(ctx, opts, s) })
		},
	}
}

// syncRun uploads the spool's pending turns and reports each.
func syncRun(ctx context.Context, opts *SyncOptions, s *factory.Store) error {
	rep, err := s.Flush(ctx)
	dir := ""
	if sp := s.Spool(); sp != nil {
		dir = sp.Dir()
	}
	report.Flush(opts.IO.ErrOut, dir, rep, err, true)
	if err != nil {
		return goerr.Wrap(err, fmt.Sprintf("%s still kept locally", format.Plural(max(rep.Pending, 1), "conversation is", "conversations are")))
	}
	if n := len(rep.Uploaded); n > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Done: %s uploaded, nothing left to upload.\n", format.Plural(n, "conversation", "conversations"))
	}
	return nil
}
