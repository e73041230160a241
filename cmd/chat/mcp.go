package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	mcpcmd "github.com/alertchat/alertchat/cmd/mcp"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/tool"
)

// mcpWait is how long a question asked before the servers are ready waits for them.
const mcpWait = 5 * time.Second

// mcpConfigPath is --mcp-config, else $XDG_CONFIG_HOME/alertchat/mcp.json when it exists.
func mcpConfigPath(flag string) string { return mcpcmd.ConfigPath(flag, os.Getenv) }

// mcpTools are the configured servers of a chat: started in the background when the chat
// starts, their tools added to the chat's registry before a question: the first one waits for
// the servers at most wait, later ones add at once those that have become ready since.
type mcpTools struct {
	mgr  *mcp.Manager
	reg  *tool.Registry
	warn func(string)
	note func(string)
	wait time.Duration

	mu     sync.Mutex
	waited bool

	// ask reads a line the user types for a server's request for input (nil: nobody can be
	// asked, and requests are declined); askMu keeps one form on the terminal at a time.
	askMu sync.Mutex
	ask   func(prompt string) (string, error)
	ios   *cmdutil.IOStreams
}

// mcpHooks replace, in tests, the servers' transports and the first question's wait; started
// is given the chat's Manager.
type mcpHooks struct {
	transports map[string]sdk.Transport
	wait       time.Duration
	started    func(*mcp.Manager)
}

// startMCP loads the config and starts its servers; nil when there is none. A config that
// cannot be read or is not valid is a usage error (exit 2).
func startMCP(ctx context.Context, ios *cmdutil.IOStreams, path string, reg *tool.Registry, hooks *mcpHooks) (*mcpTools, error) {
	if path == "" || reg == nil {
		return nil, nil
	}
	cfg, err := mcp.Load(path, os.Getenv)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s", err.Error())
	}
	if len(cfg.Servers) == 0 {
		return nil, nil
	}
	warn := func(line string) { fmt.Fprintln(ios.ErrOut, "Warning: "+cmdutil.OneLine(line)) }
	note := func(line string) { fmt.Fprintln(ios.ErrOut, cmdutil.OneLine(line)) }
	m := &mcpTools{reg: reg, warn: warn, note: note, wait: mcpWait, ios: ios}
	// Signed-in servers use their stored tokens; a chat never signs in itself (it says which
	// command does), and asks what a server asks for where a person can answer.
	o := mcp.Options{Environ: os.Environ(), Warn: warn, Auth: mcp.AuthOptions{Tokens: mcpcmd.TokenStore(os.Getenv)}, Elicitor: m, OnProgress: m.progress}
	if hooks != nil {
		o.Transports = hooks.transports
		if hooks.wait > 0 {
			m.wait = hooks.wait
		}
	}
	m.mgr = mcp.Start(ctx, cfg, o)
	if hooks != nil && hooks.started != nil {
		hooks.started(m.mgr)
	}
	return m, nil
}

// ready adds the tools of the servers that are ready and not added yet: the first call waits
// for the servers at most m.wait, later ones do not wait. It is called between questions only,
// so a question's tools do not change while it runs.
func (m *mcpTools) ready(ctx context.Context) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	late := m.waited
	var ts []tool.Tool
	if !late {
		m.waited = true
		ts = m.mgr.Tools(ctx, m.wait)
	} else {
		ts = m.mgr.NewTools()
	}
	// A server whose tool list changed has it read again before the question.
	for server, changed := range m.mgr.Changed(ctx, m.wait) {
		m.reg.RemoveServer(server)
		for _, t := range changed {
			if err := m.reg.Add(t); err != nil {
				m.warn(err.Error() + "; the second is left out")
			}
		}
		m.note(fmt.Sprintf("MCP server %s changed its tools; the new list is offered from now on.", server))
	}
	var servers []string
	for _, t := range ts {
		if err := m.reg.Add(t); err != nil {
			m.warn(err.Error() + "; the second is left out")
			continue
		}
		servers = append(servers, tool.OriginOf(t).Server)
	}
	// A server left out of the first question was named in a warning: say it is in now.
	if late {
		sort.Strings(servers)
		for _, s := range slices.Compact(servers) {
			m.note(fmt.Sprintf("MCP server %s is ready; its tools are offered from now on.", s))
		}
	}
}

// askWith lets the servers' requests for input be asked with readLine (the approval's reader).
func (m *mcpTools) askWith(readLine func(string) (string, error)) {
	if m != nil && m.ios.CanPrompt() && m.ios.StdoutTTY {
		m.ask = readLine
	}
}

// Elicit implements mcp.Elicitor: a form on the terminal, or declined where nobody can be asked.
func (m *mcpTools) Elicit(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	if m.ask == nil {
		return mcp.ElicitAnswer{Action: "decline"}, nil
	}
	m.askMu.Lock()
	defer m.askMu.Unlock()
	var a mcp.ElicitAnswer
	// The status line is taken away while the form is up, as for an approval.
	err := m.ios.Prompt(func() (err error) {
		a, err = (&mcp.Form{Out: m.ios.ErrOut, ReadLine: m.ask}).Elicit(ctx, r)
		return err
	})
	return a, err
}

// progress names the call a server reports progress of on the status line.
func (m *mcpTools) progress(p mcp.Progress) {
	label := statusline.Running(mcp.ToolName(p.Server, p.Tool))
	switch {
	case p.Total > 0:
		label += fmt.Sprintf(" (%g/%g)", p.Progress, p.Total)
	case p.Progress > 0:
		label += fmt.Sprintf(" (%g)", p.Progress)
	}
	if p.Message != "" {
		label += " " + p.Message
	}
	m.ios.StartProgressIndicatorWithLabel(cmdutil.OneLine(label))
}

func (m *mcpTools) close() {
	if m != nil {
		_ = m.mgr.Close()
	}
}

// approver asks on the terminal before an MCP tool of an untrusted server runs: one line naming
// server, tool and arguments, answered y (once), a (always in this session) or N (the
// default). It reads only the terminal: nothing in the conversation, the alert or a result can
// answer it. readLine is the chat's line editor in an interactive chat, stdin in a one-shot.
type approver struct {
	ios      *cmdutil.IOStreams
	readLine func(prompt string) (string, error)
	mu       sync.Mutex // one question at a time, even for concurrent calls
	always   map[string]bool
}

// newApprover is the terminal's approver, or nil where nobody can be asked (stdin or stdout not
// a terminal): then untrusted tools are denied.
func newApprover(ios *cmdutil.IOStreams, readLine func(string) (string, error)) tool.Approver {
	if !ios.StdinTTY || !ios.StdoutTTY {
		return nil
	}
	return &approver{ios: ios, readLine: readLine, always: map[string]bool{}}
}

func (a *approver) Approve(ctx context.Context, c tool.Call) (tool.Decision, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always[c.Name] {
		return tool.ApprovedAlways, false
	}
	if ctx.Err() != nil {
		return tool.Denied, false
	}
	args, _ := json.Marshal(c.Args)
	prompt := cmdutil.OneLine(fmt.Sprintf("Run %s of MCP server %s with %s? [y] once, [a] always in this session, [N] no", c.Name, c.Origin.Server, clipArgs(string(args)))) + " "
	var line string
	err := a.ios.Prompt(func() (err error) {
		line, err = a.readLine(prompt)
		return err
	})
	if err != nil {
		return tool.Denied, true
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return tool.ApprovedOnce, true
	case "a", "always":
		a.always[c.Name] = true
		return tool.ApprovedAlways, true
	}
	return tool.Denied, true
}

func clipArgs(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:197]) + "..."
	}
	return s
}

// listTools is /tools: every tool, its server and whether it asks.
func listTools(ios *cmdutil.IOStreams, reg *tool.Registry) {
	if reg == nil || len(reg.Names()) == 0 {
		fmt.Fprintln(ios.ErrOut, "No tools (--no-tools).")
		return
	}
	for _, n := range reg.Names() {
		t, _ := reg.Lookup(n)
		o := tool.OriginOf(t)
		server, asks := "built-in", "runs without asking"
		if o.Server != "" {
			server = "MCP server " + o.Server
			if o.Asks() {
				asks = "asks before it runs"
			}
		}
		fmt.Fprintf(ios.ErrOut, "%-32s %-24s %s\n", cmdutil.OneLine(n), cmdutil.OneLine(server), asks)
	}
}
