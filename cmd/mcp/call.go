package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// CallOptions are "mcp call".
type CallOptions struct {
	*Deps
	Server string
	Tool   string
	// Args is the tool's arguments as a JSON object ("-": read from stdin).
	Args   string
	Output string
	// Elicit is what a server's request for input gets: ask (on a terminal; declined
	// elsewhere), accept-defaults or decline.
	Elicit string

	// in reads the terminal's answers (forms and egress questions share it).
	in *bufio.Reader
}

// readLine reads one answer typed on the terminal after prompt.
func (o *CallOptions) readLine(prompt string) (string, error) {
	if o.in == nil {
		o.in = bufio.NewReader(o.IO.In)
	}
	fmt.Fprint(o.IO.ErrOut, prompt)
	return o.in.ReadString('\n')
}

// confirmEgress asks on the terminal whether a call to a public-only server that would send
// internal data may go; nil where nobody can be asked (the call is denied). The explicit call
// is consent to call the tool, not to send what the check found: that is asked (default no).
func (o *CallOptions) confirmEgress() func(context.Context, mcp.EgressHold) (send, asked bool) {
	if !o.IO.CanPrompt() || o.Args == "-" {
		return nil
	}
	return func(ctx context.Context, h mcp.EgressHold) (bool, bool) {
		var line string
		err := o.IO.Prompt(func() (err error) {
			fmt.Fprintf(o.IO.ErrOut, "%s of MCP server %s, a public-only server, would receive internal data: %s\n",
				cmdutil.OneLine(h.Tool), cmdutil.OneLine(h.Server), h.What())
			line, err = o.readLine("Send it anyway? [y] yes, [N] no ")
			return err
		})
		return err == nil && ctx.Err() == nil && isYes(line), true
	}
}

func isYes(line string) bool {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// NewCmdCall is "alertchat mcp call SERVER|URL TOOL [JSON]". An explicit call is the user's
// consent: it does not ask for approval.
func NewCmdCall(d *Deps, cfgFlag cli.Flag, runF func(context.Context, *CallOptions) error) *cli.Command {
	opts := &CallOptions{Deps: d}
	return &cli.Command{
		Name:  "call",
		Usage: "call a server's tool (the call is your consent: no approval is asked)",
		Description: `Calls one tool of a server with JSON arguments (or - to read them from stdin) and prints the
result. The call is your consent: no approval is asked. When the server asks for input, --elicit says
what happens.

Example:
  alertchat mcp call intel lookup '{"ip": "203.0.113.7"}' -o json

Exit status: 1 when the server answers with an error, 2 for arguments that are not a JSON object.`,
		ArgsUsage: "SERVER|URL TOOL [JSON arguments, or - for stdin]",
		Flags: []cli.Flag{cfgFlag,
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format (json: the result as the server sent it)", Destination: &opts.Output}, "text", "json"),
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "elicit", Value: "ask", Usage: "when the server asks for input (ask: on a terminal, declined elsewhere)", Destination: &opts.Elicit}, "ask", "accept-defaults", "decline"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			args := c.Args().Slice()
			if len(args) < 2 || len(args) > 3 {
				return cmdutil.UsageErrorf("alertchat mcp call SERVER|URL TOOL [JSON]")
			}
			opts.Server, opts.Tool = args[0], args[1]
			if len(args) == 3 {
				opts.Args = args[2]
			}
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			switch opts.Elicit {
			case "ask", "accept-defaults", "decline":
			default:
				return cmdutil.UsageErrorf("invalid --elicit %q: use ask, accept-defaults or decline", opts.Elicit)
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return callRun(ctx, opts)
		},
	}
}

func (o *CallOptions) arguments() (map[string]any, error) {
	raw := o.Args
	if raw == "-" {
		b, err := io.ReadAll(io.LimitReader(o.IO.In, 1<<20))
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read the arguments from stdin")
		}
		raw = string(b)
	}
	if strings.TrimSpace(raw) == "" {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
		return nil, cmdutil.UsageErrorf("the arguments must be one JSON object, like '{\"query\": \"203.0.113.7\"}'")
	}
	return args, nil
}

// elicitor is what answers the server's requests for input.
func (o *CallOptions) elicitor() mcp.Elicitor {
	switch {
	case o.Elicit == "accept-defaults":
		return mcp.AcceptDefaults{Warn: func(line string) { o.IO.Notice("Warning: " + cmdutil.OneLine(line)) }}
	case o.Elicit == "ask" && o.IO.CanPrompt():
		return formOn{ios: o.IO, readLine: o.readLine}
	}
	return nil
}

// formOn asks a server's forms on the terminal of ios, reading the answers with readLine.
type formOn struct {
	ios      *cmdutil.IOStreams
	readLine func(prompt string) (string, error)
}

func (f formOn) Elicit(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	return mcp.AskForm(ctx, f.ios, f.ios.ErrOut, f.readLine, r)
}

func callRun(ctx context.Context, o *CallOptions) error {
	args, err := o.arguments()
	if err != nil {
		return err
	}
	t, err := o.resolve(o.Server)
	if err != nil {
		return err
	}
	opts := o.options(o.canSignIn(), o.elicitor())
	opts.ConfirmEgress = o.confirmEgress()
	if o.IO.StderrTTY {
		opts.OnProgress = func(p mcp.Progress) {
			line := fmt.Sprintf("%s: %g", p.Tool, p.Progress)
			if p.Total > 0 {
				line += fmt.Sprintf("/%g", p.Total)
			}
			if p.Message != "" {
				line += " " + p.Message
			}
			o.IO.Notice(cmdutil.OneLine(line))
		}
	}
	// The tool is looked up first: an unknown one is "not found", and a server that signs in
	// per operation is signed in to for listing before the call asks for more.
	c, tools, err := o.listTools(ctx, t, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	found := false
	for _, tl := range tools {
		found = found || tl.Name == o.Tool
	}
	if !found {
		return cmdutil.NotFoundf("MCP server %s has no tool %q (see 'alertchat mcp tools %s')", t.label, o.Tool, t.label)
	}
	res, err := c.Call(ctx, o.Tool, args)
	var held *mcp.EgressDeniedError
	if errors.As(err, &held) && o.Output == "json" {
		// Where nobody could be asked, the answer the call gets in a chat.
		if perr := cmdutil.PrintJSON(o.IO.Out, map[string]string{"error": held.Error()}); perr != nil {
			return perr
		}
	}
	if err != nil {
		return err
	}
	if o.Output == "json" {
		if err := cmdutil.PrintJSON(o.IO.Out, res); err != nil {
			return err
		}
	} else if !res.IsError {
		text := mcp.ResultText(res)
		if text == "" && res.StructuredContent != nil {
			b, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
			text = string(b)
		}
		if o.IO.StdoutTTY {
			text = termsafe.String(text) // the server's text, shown on a terminal
		}
		fmt.Fprintln(o.IO.Out, text)
	}
	if res.IsError {
		return fmt.Errorf("the tool %s answered an error: %s", o.Tool, cmdutil.OneLine(mcp.ResultText(res)))
	}
	return nil
}
