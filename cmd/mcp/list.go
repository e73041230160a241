package mcp

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// ListOptions are "mcp list".
type ListOptions struct {
	*Deps
	Output string
}

// ServerState is one row of "mcp list" (and an element of its JSON).
type ServerState struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// State is ready, needs sign-in, or failed (Error says why; null when ready).
	State string  `json:"state"`
	Error *string `json:"error"`
	Tools int     `json:"tools"`
	Trust bool    `json:"trust"`
	// Auth is oauth, google or none; SignedIn whether an OAuth sign-in is stored (false for
	// the others).
	Auth     string `json:"auth"`
	SignedIn bool   `json:"signed_in"`
}

// NewCmdList is "alertchat mcp list".
func NewCmdList(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *ListOptions) error) *cli.Command {
	opts := &ListOptions{Deps: d}
	return &cli.Command{
		Name:  "list",
		Usage: "the configured servers: transport, state, tools, trust and sign-in",
		Description: `Lists the configured servers: transport, state, tool count, trust and whether you are signed in.

Example:
  alertchat mcp list -o json`,
		Flags: []cli.Flag{cfgFlag,
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), "mcp list lists every configured server"); err != nil {
				return err
			}
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return listRun(ctx, opts)
		},
	}
}

func listRun(ctx context.Context, o *ListOptions) error {
	c, err := o.config()
	if err != nil {
		return err
	}
	var names []string
	if c != nil {
		for n := range c.Servers {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	rows := make([]ServerState, len(names))
	opts := o.options(false, nil)
	opts.Warn = func(string) {}
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i] = o.state(ctx, n, c.Servers[n], opts)
		}()
	}
	wg.Wait()
	if o.Output == "json" {
		return cmdutil.PrintJSON(o.IO.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No MCP servers are configured (--mcp-config, or $XDG_CONFIG_HOME/alertchat/mcp.json).")
		return nil
	}
	tab := cmdutil.NewTable(o.IO.Out, o.IO.StdoutTTY, "NAME", "TRANSPORT", "STATE", "TOOLS", "TRUST", "AUTH").Fit(o.IO.TermWidth)
	for _, r := range rows {
		state := r.State
		if r.Error != nil {
			state += ": " + *r.Error
		}
		trust, auth := "asks", r.Auth
		if r.Trust {
			trust = "trusted"
		}
		if r.Auth == mcp.AuthOAuth {
			auth = "oauth, not signed in"
			if r.SignedIn {
				auth = "oauth, signed in"
			}
		}
		tab.Row(r.Name, r.Transport, state, strconv.Itoa(r.Tools), trust, auth)
	}
	tab.Flush()
	return nil
}

// state reaches one server (without signing in) and counts its tools.
func (o *ListOptions) state(ctx context.Context, name string, cfg mcp.ServerConfig, opts mcp.Options) ServerState {
	r := ServerState{Name: name, Transport: cfg.Transport(), Trust: cfg.Trust, Auth: cfg.Auth, State: "ready"}
	if r.Auth == "" {
		r.Auth = "none"
	}
	if cfg.Auth == mcp.AuthOAuth {
		r.SignedIn, _ = mcp.HasGrant(opts.Auth.Tokens, cfg.Endpoint())
	}
	cl, tools, err := o.listTools(ctx, target{label: name, cfg: cfg}, opts)
	if err == nil {
		_ = cl.Close()
		r.Tools = len(tools)
	}
	if err != nil {
		r.State = "failed"
		if errSignIn(err) {
			r.State = "needs sign-in"
		}
		msg := cmdutil.OneLine(err.Error())
		r.Error = &msg
	}
	return r
}
