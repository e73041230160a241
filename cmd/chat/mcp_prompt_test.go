package chat

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/pkg/mcp"
	"github.com/alertchat/alertchat/pkg/tool"
)

// terminal is a chat's streams on a terminal, and a person at it: each question's prompt is
// sent on asked when it is read, and answered with what the test sends on answers. overlap
// counts reads that began while another was waiting for its answer.
type terminal struct {
	ios     *cmdutil.IOStreams
	stderr  *syncbuf.Buffer
	asked   chan string
	answers chan string
	waiting atomic.Int32
	overlap atomic.Int32
}

func newTerminal() *terminal {
	stderr := &syncbuf.Buffer{}
	return &terminal{
		ios: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &syncbuf.Buffer{}, ErrOut: stderr,
			StdinTTY: true, StdoutTTY: true, StderrTTY: true, NoColor: true, TermWidth: 120, TermHeight: 40},
		stderr: stderr, asked: make(chan string, 4), answers: make(chan string),
	}
}

func (tm *terminal) readLine(ctx context.Context, prompt string) (string, error) {
	if tm.waiting.Add(1) > 1 {
		tm.overlap.Add(1)
	}
	defer tm.waiting.Add(-1)
	// Written as the one-shot's reader writes it; the line editor draws it the same way.
	fmt.Fprint(tm.ios.ErrOut, prompt)
	tm.asked <- prompt
	select {
	case a := <-tm.answers:
		return a + "\n", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// next waits for the next question's prompt.
func (tm *terminal) next(t *testing.T) string {
	t.Helper()
	select {
	case p := <-tm.asked:
		return p
	case <-time.After(20 * time.Second):
		t.Fatalf("nothing was asked; stderr:\n%s", tm.stderr)
		return ""
	}
}

// nothingElseAsked checks, for a while, that no other question is put while one waits. (A
// loaded machine can only make it miss a second question, never see one that is not there.)
func (tm *terminal) nothingElseAsked(t *testing.T, what string) {
	t.Helper()
	select {
	case p := <-tm.asked:
		t.Fatalf("%q was asked while %s waited; stderr:\n%s", p, what, tm.stderr)
	case <-time.After(300 * time.Millisecond):
	}
}

var formRequest = mcp.ElicitRequest{Server: "intel", Tool: "lookup", Message: "Which ticket?",
	Fields: []mcp.Field{{Name: "ticket", Type: "string", Default: "INC-1"}}}

// In a chat an approval question and a server's form are never on the terminal together,
// whichever comes first: the second is put only once the first is answered.
func TestApprovalAndFormOneAtATime(t *testing.T) {
	t.Parallel()
	const approvalQ, formQ = "Run mcp_intel_lookup of MCP server intel", "MCP server intel (during lookup) asks for input"
	for _, first := range []string{"approval", "form"} {
		t.Run(first+" first", func(t *testing.T) {
			t.Parallel()
			tm := newTerminal()
			a := newApprover(tm.ios, tm.readLine, nil)
			m := newMCPTools(tm.ios, nil)
			m.askWith(tm.readLine)
			ctx := context.Background()
			decided := make(chan tool.Decision, 1)
			answered := make(chan mcp.ElicitAnswer, 1)
			approve := func() { d, _ := a.Approve(ctx, intelCall(map[string]any{"ip": "203.0.113.7"})); decided <- d }
			elicit := func() { ans, _ := m.Elicit(ctx, formRequest); answered <- ans }

			if first == "approval" {
				go approve()
				if p := tm.next(t); !strings.Contains(p, approvalQ) {
					t.Fatalf("asked %q first", p)
				}
				go elicit()
				tm.nothingElseAsked(t, "the approval")
				if strings.Contains(tm.stderr.String(), formQ) {
					t.Fatalf("the form is drawn under the approval question:\n%s", tm.stderr)
				}
				tm.answers <- "n"
				if d := <-decided; d != tool.Denied {
					t.Fatalf("decision %s", d)
				}
				if p := tm.next(t); !strings.HasPrefix(p, "Answer?") {
					t.Fatalf("asked %q after the approval", p)
				}
				tm.answers <- "n"
				if ans := <-answered; ans.Action != "decline" {
					t.Fatalf("form answer %+v", ans)
				}
			} else {
				go elicit()
				if p := tm.next(t); !strings.HasPrefix(p, "Answer?") {
					t.Fatalf("asked %q first", p)
				}
				go approve()
				tm.nothingElseAsked(t, "the form")
				tm.answers <- "y"
				if p := tm.next(t); !strings.HasPrefix(p, "ticket [string] (default INC-1)") {
					t.Fatalf("the form asked %q", p)
				}
				tm.nothingElseAsked(t, "the form's field")
				if strings.Contains(tm.stderr.String(), approvalQ) {
					t.Fatalf("the approval question is drawn in the form:\n%s", tm.stderr)
				}
				tm.answers <- ""
				if ans := <-answered; ans.Action != "accept" || ans.Content["ticket"] != "INC-1" {
					t.Fatalf("form answer %+v", ans)
				}
				if p := tm.next(t); !strings.Contains(p, approvalQ) {
					t.Fatalf("asked %q after the form", p)
				}
				tm.answers <- "y"
				if d := <-decided; d != tool.ApprovedOnce {
					t.Fatalf("decision %s", d)
				}
			}
			if n := tm.overlap.Load(); n != 0 {
				t.Fatalf("%d questions read while another waited", n)
			}
		})
	}
}

// What the servers make the chat say (a server stopped, a form declined) waits while a question
// is asked, and comes after it: it is never written into the question or the answer typed.
func TestMCPNoticesWaitForTheQuestion(t *testing.T) {
	t.Parallel()
	tm := newTerminal()
	a := newApprover(tm.ios, tm.readLine, nil)
	m := newMCPTools(tm.ios, nil)
	decided := make(chan tool.Decision, 1)
	go func() {
		d, _ := a.Approve(context.Background(), intelCall(map[string]any{"ip": "203.0.113.7"}))
		decided <- d
	}()
	tm.next(t)
	const stopped = `MCP server intel stopped; its tools now answer "server stopped"`
	m.warn(stopped)
	m.note("MCP server late is ready; its tools are offered from now on.")
	if got := tm.stderr.String(); strings.Contains(got, "server stopped") || strings.Contains(got, "is ready") {
		t.Fatalf("written while the question waits:\n%s", got)
	}
	tm.answers <- "y"
	<-decided
	got := tm.stderr.String()
	q, w := strings.Index(got, "Run mcp_intel_lookup"), strings.Index(got, "Warning: "+stopped)
	if q < 0 || w < q || !strings.Contains(got[w:], "MCP server late is ready") {
		t.Fatalf("the notices are not after the question:\n%s", got)
	}
}
