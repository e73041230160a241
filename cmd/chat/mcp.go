package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rivo/uniseg"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/statusline"
	"github.com/alertchat/alertchat/pkg/tool"
)

// mcpWait is how long a question asked before the servers are ready waits for them.
const mcpWait = 5 * time.Second

// mcpConfigPath is --mcp-config, else $XDG_CONFIG_HOME/alertchat/mcp.json when it exists.
func mcpConfigPath(flag string) string { return mcp.ConfigPath(flag, os.Getenv) }

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
	m := newMCPTools(ios, reg)
	// Signed-in servers use their stored tokens; a chat never signs in itself (it says which
	// command does), and asks what a server asks for where a person can answer.
	o := mcp.Options{Environ: os.Environ(), Warn: m.warn, Auth: mcp.AuthOptions{Tokens: mcp.UserTokens(os.Getenv)}, Elicitor: m, OnProgress: m.progress,
		ConfirmEgress: m.confirmEgress}
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

// approver asks on the terminal before an MCP tool of an untrusted server runs, naming server,
// tool and the whole of its arguments, answered y (once), a (always in this session) or N (the
// default). It reads only the terminal: nothing in the conversation, the alert or a result can
// answer it. readLine is the chat's line editor in an interactive chat, stdin in a one-shot.
//
// What is approved is what is shown: the arguments are shown whole, as JSON wrapped to the
// terminal's width, every character that could hide or reorder text escaped (\u202e). A call
// that cannot be shown on one screen with its question is denied without asking, and the
// denial says so. Ctrl-C at the question cancels the turn: every pending call is answered
// "cancelled" and the turn is saved at that content boundary.
type approver struct {
	ios      *cmdutil.IOStreams
	readLine func(ctx context.Context, prompt string) (string, error)
	// interrupt cancels the turn in flight (Ctrl-C at the question).
	interrupt func()
	mu        sync.Mutex // one question at a time, even for concurrent calls
	always    map[string]bool
}

// newApprover is the terminal's approver, or nil where nobody can be asked: the question is
// asked on stderr (and through the line editor on stdout) and answered on stdin, so all three
// must be a terminal. Then untrusted tools are denied.
func newApprover(ios *cmdutil.IOStreams, readLine func(context.Context, string) (string, error), interrupt func()) tool.Approver {
	if !ios.StdinTTY || !ios.StdoutTTY || !ios.StderrTTY {
		return nil
	}
	return &approver{ios: ios, readLine: readLine, interrupt: interrupt, always: map[string]bool{}}
}

// errInterrupted is what readLine returns for Ctrl-C at the question.
var errInterrupted = errors.New("interrupted")

func (a *approver) Approve(ctx context.Context, c tool.Call) (tool.Decision, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// "Always" is for the tool as it was when it was given: a redefinition asks again.
	key := c.Name + "\x00" + c.Definition
	if a.always[key] {
		return tool.ApprovedAlways, false
	}
	if ctx.Err() != nil {
		return tool.Denied, false
	}
	cols, rows := a.ios.TerminalSize()
	q := approvalQuestion(c, cols, rows)
	if q.tooLong {
		a.ios.Notice(q.denial)
		return tool.DeniedUnshown, false
	}
	var line string
	err := a.ios.Prompt(func() (err error) {
		for _, l := range q.lines {
			fmt.Fprintln(a.ios.ErrOut, l)
		}
		line, err = a.readLine(ctx, q.prompt)
		return err
	})
	if errors.Is(err, errInterrupted) || ctx.Err() != nil {
		if a.interrupt != nil {
			a.interrupt()
		}
		return tool.Denied, true
	}
	if err != nil {
		return tool.Denied, true
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return tool.ApprovedOnce, true
	case "a", "always":
		a.always[key] = true
		return tool.ApprovedAlways, true
	}
	return tool.Denied, true
}

// question is an approval question as the terminal shows it: lines printed first (none when
// the whole call fits the prompt's line), then the prompt the answer is typed after. tooLong:
// the call does not fit one screen with its question; denial then says so.
type question struct {
	lines   []string
	prompt  string
	tooLong bool
	denial  string
}

// Unknown terminal sizes are taken as the smallest usual one.
const (
	defaultCols = 80
	defaultRows = 24
)

const approvalChoices = "[y] once, [a] always in this session, [N] no "

// approvalQuestion lays the question for c out on a terminal of cols columns and rows rows.
func approvalQuestion(c tool.Call, cols, rows int) question {
	if cols <= 0 {
		cols = defaultCols
	}
	if rows <= 0 {
		rows = defaultRows
	}
	server := cmdutil.OneLine(c.Origin.Server)
	name := cmdutil.OneLine(c.Name)
	args := approvalJSON(c.Args, "")
	// The whole call on the prompt's own line when it fits (the last column left free).
	if one := fmt.Sprintf("Run %s of MCP server %s with %s? %s", name, server, args, approvalChoices); format.Width(one) < cols {
		return question{prompt: one}
	}
	lines := wrapColumns(fmt.Sprintf("Run %s of MCP server %s with these arguments:", name, server), cols-1, "")
	header := len(lines)
	for _, l := range strings.Split(approvalJSON(c.Args, "  "), "\n") {
		lines = append(lines, wrapColumns(l, cols-1, "  ")...)
	}
	// The header must still be on the screen when the prompt's line is: the question and the
	// whole call on one screen, or nothing is asked.
	if len(lines)+1 > rows {
		return question{tooLong: true, denial: fmt.Sprintf(
			"Denied %s of MCP server %s without asking: its arguments take %d lines, more than this terminal's %d rows can show with the question; nothing was run.",
			name, server, len(lines)-header, rows)}
	}
	return question{lines: lines, prompt: fmt.Sprintf("Run %s? %s", name, approvalChoices)}
}

// approvalJSON is args as JSON (indented by indent when it is not ""), every character that is
// not plainly visible escaped as \uXXXX: control and format characters (bidirectional
// overrides, zero-width characters, tag characters) would hide or reorder what is approved.
// Such characters only occur inside JSON strings, where the escape means the same.
func approvalJSON(args map[string]any, indent string) string {
	if args == nil {
		args = map[string]any{}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(args); err != nil {
		return "(arguments that cannot be shown)"
	}
	var out strings.Builder
	for _, r := range strings.TrimSuffix(b.String(), "\n") {
		if r == '\n' || (unicode.IsGraphic(r) && !unicode.Is(unicode.Cf, r)) {
			out.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&out, "\\u%04x", u)
		}
	}
	return out.String()
}

// wrapColumns cuts s into lines of at most cols display columns, each starting with indent.
func wrapColumns(s string, cols int, indent string) []string {
	width := cols - format.Width(indent)
	if width < 1 {
		width = 1
	}
	var lines []string
	var cur strings.Builder
	used := 0
	// By user-perceived characters, so that a wrap never separates a character from its
	// combining marks.
	for g := uniseg.NewGraphemes(s); g.Next(); {
		w := g.Width()
		if used+w > width && used > 0 {
			lines = append(lines, indent+cur.String())
			cur.Reset()
			used = 0
		}
		cur.WriteString(g.Str())
		used += w
	}
	return append(lines, indent+cur.String())
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
