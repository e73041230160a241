package mcp

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// LoginOptions are "mcp login" and "mcp logout".
type LoginOptions struct {
	*Deps
	Server string
}

func loginCmd(name, usage string, d *Deps, cfgFlag cli.Flag, run func(context.Context, *LoginOptions) error) *cli.Command {
	opts := &LoginOptions{Deps: d}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "SERVER|URL",
		Flags:     []cli.Flag{cfgFlag},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return cmdutil.UsageErrorf("name one server: alertchat mcp %s SERVER|URL", name)
			}
			opts.Server = c.Args().First()
			return run(ctx, opts)
		},
	}
}

// NewCmdLogin is "alertchat mcp login SERVER|URL": the browser sign-in of a server of
// "auth": "oauth" (or any URL), its tokens kept for the chats that follow.
func NewCmdLogin(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *LoginOptions) error) *cli.Command {
	if runF == nil {
		runF = loginRun
	}
	c := loginCmd("login", "sign in to a server (OAuth, in your browser)", d, cfgFlag, runF)
	c.Description = `Runs a server's OAuth sign-in in your browser ($BROWSER, else the system's opener, else the
URL is printed) and keeps the tokens (in the system keyring, or a 0600 file where there is none) for
the chats that follow, refreshed as needed. alertchat never asks for a password itself.

Example:
  alertchat mcp login siem

Exit status: 3 for a server name that is not configured.`
	return c
}

// NewCmdLogout is "alertchat mcp logout SERVER|URL": the server's tokens forgotten.
func NewCmdLogout(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *LoginOptions) error) *cli.Command {
	if runF == nil {
		runF = logoutRun
	}
	c := loginCmd("logout", "forget the sign-in of a server", d, cfgFlag, runF)
	c.Description = `Forgets the tokens kept for a server; the next chat that needs it says which command signs in.

Example:
  alertchat mcp logout siem`
	return c
}

// oauthTarget resolves a server that signs in with OAuth; others are a usage error saying how
// they get their credentials.
func (o *LoginOptions) oauthTarget() (target, error) {
	t, err := o.resolve(o.Server)
	if err != nil {
		return t, err
	}
	switch t.cfg.Auth {
	case mcp.AuthOAuth:
		return t, nil
	case mcp.AuthGoogle:
		return t, cmdutil.UsageErrorf("MCP server %s uses Google credentials (Application Default Credentials): sign in with 'gcloud auth application-default login'", t.label)
	}
	return t, cmdutil.UsageErrorf("MCP server %s does not sign in with OAuth: set \"auth\": \"oauth\" in its config", t.label)
}

func loginRun(ctx context.Context, o *LoginOptions) error {
	t, err := o.oauthTarget()
	if err != nil {
		return err
	}
	had, err := mcp.HasGrant(o.tokens(), t.cfg.Endpoint())
	if err != nil {
		return err
	}
	c, tools, err := o.listTools(ctx, t, o.options(true, nil))
	if err != nil {
		return err
	}
	defer c.Close()
	switch {
	case c.SignedIn():
		fmt.Fprintf(o.IO.ErrOut, "Signed in to %s (%s).\n", cmdutil.OneLine(t.label), format.Plural(len(tools), "tool", "tools"))
	case had:
		fmt.Fprintf(o.IO.ErrOut, "Already signed in to %s; the server takes the stored sign-in. To sign in again: alertchat mcp logout %s, then login.\n", cmdutil.OneLine(t.label), cmdutil.OneLine(t.label))
	default:
		fmt.Fprintf(o.IO.ErrOut, "MCP server %s did not ask for sign-in; nothing was stored.\n", cmdutil.OneLine(t.label))
	}
	return nil
}

func (o *LoginOptions) tokens() mcp.TokenStore {
	if o.Tokens == nil {
		o.Tokens = mcp.UserTokens(o.Getenv)
	}
	return o.Tokens
}

func logoutRun(_ context.Context, o *LoginOptions) error {
	t, err := o.oauthTarget()
	if err != nil {
		return err
	}
	found, err := o.tokens().Delete(t.cfg.Endpoint())
	if err != nil {
		return err
	}
	if found {
		fmt.Fprintf(o.IO.ErrOut, "Signed out of %s: its tokens are forgotten.\n", cmdutil.OneLine(t.label))
	} else {
		fmt.Fprintf(o.IO.ErrOut, "Not signed in to %s.\n", cmdutil.OneLine(t.label))
	}
	return nil
}
