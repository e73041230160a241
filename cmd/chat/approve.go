package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"

	"github.com/rivo/uniseg"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/tool"
)

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
