package cmd

import (
	"context"
	"fmt"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/store"
)

func historySyncCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:  "sync",
		Usage: "upload the turns kept locally while the store was unavailable",
		UsageText: "alertchat history sync\n" +
			"(every command that reaches the store does this first; sync does it on demand and reports)",
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("unexpected arguments: %v", c.Args().Slice())
			}
			g.res.noAutoFlush = true
			return g.withStore(ctx, func(s store.Store) error {
				rep, err := g.flushSpool(ctx, s, true)
				if err != nil {
					return goerr.Wrap(err, fmt.Sprintf("%s still kept locally", plural(max(rep.Pending, 1), "conversation is", "conversations are")))
				}
				if n := len(rep.Uploaded); n > 0 {
					fmt.Fprintf(g.io.ErrOut, "Done: %s uploaded, nothing left to upload.\n", plural(n, "conversation", "conversations"))
				}
				return nil
			})
		},
	}
}
