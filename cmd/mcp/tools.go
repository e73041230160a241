package mcp

import (
	"context"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// ToolsOptions are "mcp tools".
type ToolsOptions struct {
	*Deps
	Server string
	Output string
}

// NewCmdTools is "alertchat mcp tools SERVER|URL".
func NewCmdTools(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *ToolsOptions) error) *cli.Command {
	opts := &ToolsOptions{Deps: d}
	return &cli.Command{
		Name:  "tools",
		Usage: "list a server's tools",
		Description: `Lists a server's tools, by the server's name in the config or by its URL.

Example:
  alertchat mcp tools https://mcp.example/mcp

Exit status: 3 for a server name that is not configured.`,
		ArgsUsage: "SERVER|URL",
		Flags: []cli.Flag{cfgFlag,
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format (json: the tools as the server sent them)", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("name one server: alertchat mcp tools SERVER|URL")
			}
			opts.Server = c.Args().First()
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return toolsRun(ctx, opts)
		},
	}
}

func toolsRun(ctx context.Context, o *ToolsOptions) error {
	t, err := o.resolve(o.Server)
	if err != nil {
		return err
	}
	c, tools, err := o.listTools(ctx, t, o.options(o.canSignIn(), nil))
	if err != nil {
		return err
	}
	defer c.Close()
	if o.Output == "json" {
		return cmdutil.PrintJSON(o.IO.Out, tools)
	}
	tab := cmdutil.NewTable(o.IO.Out, o.IO.StdoutTTY, "TOOL", "DESCRIPTION").Fit(o.IO.TermWidth)
	for _, tl := range tools {
		desc, _, _ := strings.Cut(strings.TrimSpace(tl.Description), "\n")
		tab.Row(tl.Name, desc)
	}
	tab.Flush()
	return nil
}
