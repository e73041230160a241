package chat

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/tool"
)

// mcpWait is how long a question asked before the servers are ready waits for them.
const mcpWait = 5 * time.Second

// mcpConfigPath is --mcp-config, else $XDG_CONFIG_HOME/alertchat/mcp.json when it exists.
func mcpConfigPath(flag string, getenv func(string) string) string {
	return mcp.ConfigPath(flag, getenv)
}

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
	// asked, and requests are declined). One form at a time is on the terminal: each is asked
	// through the streams' Prompt, which asks one question at a time.
	ask func(ctx context.Context, prompt string) (string, error)
	ios *cmdutil.IOStreams
}

// mcpHooks replace, in tests, the servers' transports and the first question's wait; started
// is given the chat's Manager.
type mcpHooks struct {
	transports map[string]sdk.Transport
	wait       time.Duration
	started    func(*mcp.Manager)
	// toolsChanged is told when a server's tool list change is recorded.
	toolsChanged func(server string)
}

// startMCP loads the config and starts its servers; nil when there is none. A config that
// cannot be read or is not valid is a usage error (exit 2).
func startMCP(ctx context.Context, ios *cmdutil.IOStreams, getenv func(string) string, path string, reg *tool.Registry, hooks *mcpHooks) (*mcpTools, error) {
	if path == "" || reg == nil {
		return nil, nil
	}
	cfg, err := mcp.Load(path, getenv)
	if err != nil {
		return nil, cmdutil.UsageErrorf("%s", err.Error())
	}
	if len(cfg.Servers) == 0 {
		return nil, nil
	}
	m := newMCPTools(ios, reg)
	// Signed-in servers use their stored tokens; a chat never signs in itself (it says which
	// command does), and asks what a server asks for where a person can answer.
	o := mcp.Options{Environ: os.Environ(), Warn: m.warn, Auth: mcp.AuthOptions{Tokens: mcp.UserTokens(getenv)}, Elicitor: m, OnProgress: m.progress,
		ConfirmEgress: m.confirmEgress}
	if hooks != nil {
		o.Transports, o.ToolsChanged = hooks.transports, hooks.toolsChanged
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

// newMCPTools are the MCP tools of a chat on reg. What the servers make it say (a server that
// stopped, one ready late, one that asked for what is not shown) comes at any moment: it goes
// above the status line, never through it, and waits while a question is being asked.
func newMCPTools(ios *cmdutil.IOStreams, reg *tool.Registry) *mcpTools {
	return &mcpTools{reg: reg, ios: ios, wait: mcpWait,
		warn: func(line string) { ios.Notice("Warning: " + cmdutil.OneLine(line)) },
		note: func(line string) { ios.Notice(cmdutil.OneLine(line)) },
	}
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
	// A server whose tool list changed has it read again before the question, and its new list
	// replaces the one it had: its own tools never collide with themselves. One that changed
	// its list before its tools were first offered (as it announced them, say) is offered the
	// new list alone, without a note.
	changed := m.mgr.Changed(ctx, m.wait)
	var servers []string
	for _, t := range ts {
		server := tool.OriginOf(t).Server
		if _, ok := changed[server]; ok {
			servers = append(servers, server)
			continue
		}
		if err := m.reg.Add(t); err != nil {
			m.warn(err.Error() + "; the second is left out")
			continue
		}
		servers = append(servers, server)
	}
	names := make([]string, 0, len(changed))
	for server := range changed {
		names = append(names, server)
	}
	sort.Strings(names)
	for _, server := range names {
		m.reg.RemoveServer(server)
		for _, t := range changed[server] {
			if err := m.reg.Add(t); err != nil {
				m.warn(err.Error() + "; the second is left out")
			}
		}
		if !slices.Contains(servers, server) {
			m.note(fmt.Sprintf("MCP server %s changed its tools; the new list is offered from now on.", server))
		}
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
func (m *mcpTools) askWith(readLine func(context.Context, string) (string, error)) {
	if m != nil && m.ios.CanPrompt() && m.ios.StdoutTTY {
		m.ask = readLine
	}
}

// Elicit implements mcp.Elicitor: a form on the terminal, or declined where nobody can be asked.
func (m *mcpTools) Elicit(ctx context.Context, r mcp.ElicitRequest) (mcp.ElicitAnswer, error) {
	if m.ask == nil {
		return mcp.ElicitAnswer{Action: "decline"}, nil
	}
	return mcp.AskForm(ctx, m.ios, m.ios.ErrOut, func(p string) (string, error) { return m.ask(ctx, p) }, r)
}

// confirmEgress asks on the terminal whether a call to a public-only server that would send
// internal data may go, naming what would leave; the default is no, and where nobody can be
// asked (no terminal, batch) the call is denied. It is asked even for a trusted server and after
// an approval: trust and approval are about running the tool, not about what leaves. asked
// says whether the question was put to the user (the call's record says who denied it).
func (m *mcpTools) confirmEgress(ctx context.Context, h mcp.EgressHold) (send, asked bool) {
	if m.ask == nil {
		return false, false
	}
	var line string
	err := m.ios.Prompt(func() (err error) {
		fmt.Fprintf(m.ios.ErrOut, "%s of MCP server %s, a public-only server, would receive internal data: %s\n",
			cmdutil.OneLine(mcp.ToolName(h.Server, h.Tool)), cmdutil.OneLine(h.Server), h.What())
		line, err = m.ask(ctx, "Send it anyway? [y] yes, [N] no ")
		return err
	})
	if err != nil || ctx.Err() != nil {
		return false, true
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, true
	}
	return false, true
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
