package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/tool"
)

func intelCall(args map[string]any) tool.Call {
	return tool.Call{Name: "mcp_intel_lookup", Origin: tool.Origin{Server: "intel"}, Args: args}
}

// unwrap joins a question's argument lines back into the JSON they show.
func unwrap(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, "  "))
	}
	return b.String()
}

// What is approved is what is shown: a short call on the prompt's line; a long one whole,
// wrapped within the terminal's width, its end included; characters that hide or reorder text
// escaped; a call that does not fit one screen with its question is not asked at all.
func TestApprovalQuestion(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789", 60) + "-END-OF-ARGUMENT"
	t.Run("short", func(t *testing.T) {
		t.Parallel()
		q := approvalQuestion(intelCall(map[string]any{"ip": "203.0.113.7"}), 120, 40)
		if q.tooLong || q.lines != nil || q.prompt != `Run mcp_intel_lookup of MCP server intel with {"ip":"203.0.113.7"}? [y] once, [a] always in this session, [N] no ` {
			t.Fatalf("%+v", q)
		}
	})
	t.Run("long, whole and wrapped", func(t *testing.T) {
		t.Parallel()
		q := approvalQuestion(intelCall(map[string]any{"ip": "203.0.113.7", "note": long}), 80, 40)
		if q.tooLong || q.lines[0] != "Run mcp_intel_lookup of MCP server intel with these arguments:" ||
			q.prompt != "Run mcp_intel_lookup? [y] once, [a] always in this session, [N] no " {
			t.Fatalf("%+v", q)
		}
		if got := unwrap(q.lines[1:]); got != `{  "ip": "203.0.113.7",  "note": "`+long+`"}` {
			t.Fatalf("the arguments shown are not the call's:\n%s", got)
		}
		for _, l := range q.lines {
			if format.Width(l) > 79 {
				t.Fatalf("line wider than the terminal: %q", l)
			}
		}
	})
	t.Run("hidden characters escaped", func(t *testing.T) {
		t.Parallel()
		hostile := "safe\u202eexe.txt\u200b\U000E0041\x1b[2J\u0085日本語"
		q := approvalQuestion(intelCall(map[string]any{"path": hostile}), 200, 40)
		want := `{"path":"safe\u202eexe.txt\u200b\udb40\udc41\u001b[2J\u0085日本語"}`
		if !strings.Contains(q.prompt, want) {
			t.Fatalf("prompt %q, want it to show %s", q.prompt, want)
		}
		for _, r := range q.prompt {
			if r == '\u202e' || r == '\u200b' || r == 0x1b || r == '\u0085' || r == '\U000E0041' {
				t.Fatalf("raw %U in %q", r, q.prompt)
			}
		}
	})
	t.Run("wide characters wrap by columns", func(t *testing.T) {
		t.Parallel()
		q := approvalQuestion(intelCall(map[string]any{"note": strings.Repeat("侵害", 100)}), 41, 40)
		for _, l := range q.lines {
			if format.Width(l) > 40 {
				t.Fatalf("line of %d columns: %q", format.Width(l), l)
			}
		}
		if !strings.Contains(unwrap(q.lines[1:]), strings.Repeat("侵害", 100)) {
			t.Fatalf("%q", q.lines)
		}
	})
	t.Run("more than a screen", func(t *testing.T) {
		t.Parallel()
		q := approvalQuestion(intelCall(map[string]any{"note": strings.Repeat(long, 3)}), 80, 24)
		if !q.tooLong || q.prompt != "" || !strings.Contains(q.denial, "Denied mcp_intel_lookup of MCP server intel without asking") ||
			!strings.Contains(q.denial, "24 rows") {
			t.Fatalf("%+v", q)
		}
		// The same call fits a taller terminal.
		if q := approvalQuestion(intelCall(map[string]any{"note": strings.Repeat(long, 3)}), 80, 60); q.tooLong {
			t.Fatalf("%+v", q)
		}
	})
}

// The question is asked only where a person sees it and answers it: stdin, stdout (the line
// editor's prompt) and stderr (the call) must all be a terminal.
func TestApproverOnlyWhereAPersonSeesIt(t *testing.T) {
	t.Parallel()
	read := func(context.Context, string) (string, error) { return "y", nil }
	for _, tc := range []struct {
		name                  string
		stdin, stdout, stderr bool
		want                  bool
	}{
		{"terminal", true, true, true, true},
		{"stderr redirected", true, true, false, false},
		{"stdout redirected", true, false, true, false},
		{"stdin piped", false, true, true, false},
	} {
		ios, _, _ := cmdutil.TestIO("", true)
		ios.StdinTTY, ios.StdoutTTY, ios.StderrTTY = tc.stdin, tc.stdout, tc.stderr
		if got := newApprover(ios, read, nil) != nil; got != tc.want {
			t.Errorf("%s: asks %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A call too long to show is denied without asking, and the terminal says so; Ctrl-C at the
// question cancels the turn.
func TestApproverDenialsAndCtrlC(t *testing.T) {
	t.Parallel()
	ios, _, stderr := cmdutil.TestIO("", true)
	ios.TermWidth, ios.TermHeight = 80, 10
	asked, interrupted := 0, 0
	answer := func(context.Context, string) (string, error) { asked++; return "y\n", nil }
	a := newApprover(ios, func(ctx context.Context, p string) (string, error) { return answer(ctx, p) }, func() { interrupted++ })

	d, wasAsked := a.Approve(context.Background(), intelCall(map[string]any{"note": strings.Repeat("x", 2000)}))
	if d != tool.DeniedUnshown || wasAsked || asked != 0 || !strings.Contains(stderr.String(), "without asking") {
		t.Fatalf("decision %s asked %v (%d reads); stderr %q", d, wasAsked, asked, stderr.String())
	}
	if d, _ := a.Approve(context.Background(), intelCall(map[string]any{"ip": "x"})); d != tool.ApprovedOnce || asked != 1 {
		t.Fatalf("decision %s after %d reads", d, asked)
	}
	answer = func(context.Context, string) (string, error) { return "", errInterrupted }
	if d, wasAsked := a.Approve(context.Background(), intelCall(map[string]any{"ip": "y"})); d != tool.Denied || !wasAsked || interrupted != 1 {
		t.Fatalf("Ctrl-C: decision %s asked %v, turn interrupted %d times", d, wasAsked, interrupted)
	}
}

// An "always" holds for the tool as it was when it was given: the same tool asks no more, a
// tool the server redefined (another description or schema, same name) asks again.
func TestApproverAlwaysHoldsForTheToolAsShown(t *testing.T) {
	t.Parallel()
	ios, _, _ := cmdutil.TestIO("", true)
	ios.TermWidth, ios.TermHeight = 120, 40
	asked := 0
	a := newApprover(ios, func(context.Context, string) (string, error) { asked++; return "a\n", nil }, nil)
	call := func(def string) tool.Call {
		c := intelCall(map[string]any{"ip": "203.0.113.7"})
		c.Definition = def
		return c
	}
	for i, step := range []struct {
		def   string
		asked int
	}{{"def-1", 1}, {"def-1", 1}, {"def-2", 2}, {"def-2", 2}, {"def-1", 2}} {
		d, _ := a.Approve(context.Background(), call(step.def))
		if d != tool.ApprovedAlways || asked != step.asked {
			t.Fatalf("call %d (%s): decision %s, asked %d times, want %d", i, step.def, d, asked, step.asked)
		}
	}
}
