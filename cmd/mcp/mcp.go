// Package mcp is "alertchat mcp": the configured MCP servers outside a chat (list, tools, call)
// and their sign-in (login, logout). A server is named by its name in the MCP config, or by
// its streamable-HTTP URL, which reaches any server without a config.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// Deps are what every mcp verb takes from the run.
type Deps struct {
	IO *cmdutil.IOStreams
	// Getenv reads the environment ($VAR in the config, $BROWSER, the config directory).
	Getenv func(string) string
	// MCPConfig is --mcp-config.
	MCPConfig string
	// Tokens is where sign-ins are kept (default mcp.UserTokens(Getenv)).
	Tokens mcp.TokenStore
	// Open shows a sign-in URL (default OpenBrowser(IO, Getenv)).
	Open func(ctx context.Context, url string) error
	// HTTPTransport carries the servers' requests (tests; default http.DefaultTransport).
	HTTPTransport http.RoundTripper
	// StartTimeout bounds reaching a server (default 30 s).
	StartTimeout time.Duration
}

// NewCmdMCP is "alertchat mcp".
func NewCmdMCP(f *cmdutil.Factory, getenv func(string) string) *cli.Command {
	d := &Deps{IO: f.IO, Getenv: getenv}
	cfgFlag := func() cli.Flag {
		return &cli.StringFlag{Name: "mcp-config", Usage: "MCP servers' config file (default $XDG_CONFIG_HOME/alertchat/mcp.json when it exists)", Sources: cmdutil.EnvVar("MCP_CONFIG"), Destination: &d.MCPConfig}
	}
	return &cli.Command{
		Name:  "mcp",
		Usage: "MCP servers outside a chat: list, tools, call, login, logout",
		Description: `Reaches the Model Context Protocol servers of the MCP config (--mcp-config, else
$XDG_CONFIG_HOME/alertchat/mcp.json) outside a chat, or any server by its streamable-HTTP URL.

Examples:
  alertchat mcp list
  alertchat mcp tools intel
  alertchat mcp call intel lookup '{"ip": "203.0.113.7"}'`,
		Commands: []*cli.Command{
			NewCmdList(d, cfgFlag(), nil),
			NewCmdTools(d, cfgFlag(), nil),
			NewCmdCall(d, cfgFlag(), nil),
			NewCmdLogin(d, cfgFlag(), nil),
			NewCmdLogout(d, cfgFlag(), nil),
			NewCmdAdd(d, cfgFlag(), nil),
		},
	}
}

// OpenBrowser shows a sign-in URL: $BROWSER runs with it, else the system's opener where
// there is a display, and the URL is printed on stderr in any case, to copy by hand.
func OpenBrowser(ios *cmdutil.IOStreams, getenv func(string) string) func(ctx context.Context, u string) error {
	return func(ctx context.Context, u string) error {
		fmt.Fprintf(ios.ErrOut, "Sign in in your browser; if it does not open, open this URL:\n  %s\n", cmdutil.OneLine(u))
		var argv []string
		if b := getenv("BROWSER"); b != "" {
			// $BROWSER may list several, colon-separated; the first is used.
			first, _, _ := strings.Cut(b, ":")
			argv = append(strings.Fields(first), u)
		} else if opener := systemOpener(getenv); opener != "" {
			argv = []string{opener, u}
		}
		if len(argv) == 0 {
			return nil
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = nil, nil
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(ios.ErrOut, "Could not open a browser (%s); open the URL above by hand.\n", cmdutil.OneLine(err.Error()))
			return nil
		}
		go func() { _ = cmd.Wait() }()
		return nil
	}
}

func systemOpener(getenv func(string) string) string {
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		return ""
	default:
		if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
			return ""
		}
		name = "xdg-open"
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// target is a server named on the command line: a configured one, or one given by its URL.
type target struct {
	label string
	cfg   mcp.ServerConfig
}

// resolve finds SERVER|URL: a URL (http:// or https://) is a streamable-HTTP server that may
// ask for OAuth sign-in; anything else is a name in the config (exit 3 when it is not there).
func (d *Deps) resolve(arg string) (target, error) {
	if strings.HasPrefix(arg, "http://") || strings.HasPrefix(arg, "https://") {
		u, err := url.Parse(arg)
		if err != nil || u.Host == "" {
			return target{}, cmdutil.UsageErrorf("invalid server URL %q", arg)
		}
		return target{label: arg, cfg: mcp.ServerConfig{HTTPURL: arg, Auth: mcp.AuthOAuth}}, nil
	}
	c, err := d.config()
	if err != nil {
		return target{}, err
	}
	if c == nil {
		return target{}, cmdutil.NotFoundf("no MCP server %q: there is no MCP config (--mcp-config, or $XDG_CONFIG_HOME/alertchat/mcp.json); give a server's URL instead", arg)
	}
	cfg, ok := c.Servers[arg]
	if !ok {
		return target{}, cmdutil.NotFoundf("no MCP server %q in the MCP config", arg)
	}
	return target{label: arg, cfg: cfg}, nil
}

// config is the MCP config, nil when there is none; one that cannot be read or is not valid
// is a usage error.
func (d *Deps) config() (*mcp.Config, error) {
	p := mcp.ConfigPath(d.MCPConfig, d.Getenv)
	if p == "" {
		return nil, nil
	}
	c, err := mcp.Load(p, d.Getenv)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s", err.Error())
	}
	return c, nil
}

// options are the servers' options of a verb; signIn runs the browser flow where a server
// asks for it.
func (d *Deps) options(signIn bool, elicitor mcp.Elicitor) mcp.Options {
	if d.Tokens == nil {
		d.Tokens = mcp.UserTokens(d.Getenv)
	}
	o := mcp.Options{
		Environ: os.Environ(), HTTPTransport: d.HTTPTransport, Elicitor: elicitor,
		Warn: func(line string) { d.IO.Notice("Warning: " + cmdutil.OneLine(line)) },
		Auth: mcp.AuthOptions{Tokens: d.Tokens},
	}
	if signIn {
		open := d.Open
		if open == nil {
			open = OpenBrowser(d.IO, d.Getenv)
		}
		o.Auth.SignIn = &mcp.SignIn{Open: open}
	}
	return o
}

// canSignIn reports whether a browser sign-in can happen here: a person at the terminal, or
// a browser named in $BROWSER.
func (d *Deps) canSignIn() bool {
	return d.IO.CanPrompt() || d.Getenv("BROWSER") != ""
}

// dial reaches the target within the start timeout.
func (d *Deps) dial(ctx context.Context, t target, o mcp.Options) (*mcp.Client, error) {
	timeout := d.StartTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if o.Auth.SignIn != nil {
		// A sign-in waits for a person; the browser flow has its own bound.
		timeout += 5 * time.Minute
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := mcp.Dial(dctx, t.label, t.cfg, o)
	if err != nil && dctx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("MCP server %s: no answer within %s", t.label, timeout)
	}
	return c, err
}

// listTools reaches the target and lists its tools; the caller closes the client.
func (d *Deps) listTools(ctx context.Context, t target, o mcp.Options) (*mcp.Client, []*sdk.Tool, error) {
	c, err := d.dial(ctx, t, o)
	if err != nil {
		return nil, nil, err
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		_ = c.Close()
		return nil, nil, err
	}
	return c, tools, nil
}

// errSignIn is a server that needs a sign-in: its message says which command signs in.
func errSignIn(err error) bool {
	var e *mcp.SignInRequiredError
	return errors.As(err, &e)
}
