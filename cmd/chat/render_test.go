package chat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

func TestAnswerWriter(t *testing.T) {
	t.Parallel()
	t.Run("raw streams every chunk, sanitised", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out}, false)
		stopped := 0
		aw.stop = func() { stopped++ }
		aw.Write("Hello \x1b[2J")
		if out.String() != "Hello " || stopped != 1 {
			t.Fatalf("first chunk: %q, spinner stopped %d times", out.String(), stopped)
		}
		aw.settle() // a round of tool calls: the line is ended
		aw.Write("world")
		aw.Close()
		if out.String() != "Hello \nworld\n" || stopped != 2 {
			t.Fatalf("got %q", out.String())
		}
	})
	t.Run("terminal shows text at once and renders blocks", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out, StdoutTTY: true, TermWidth: 80}, false)
		stopped := 0
		aw.stop = func() { stopped++ }
		aw.Write("## Title\n\nSome **bold**")
		if !strings.Contains(out.String(), "Title") || strings.Contains(out.String(), "## ") || !strings.Contains(out.String(), "Some **bold**") || stopped != 1 {
			t.Fatalf("heading not rendered or the open paragraph not shown: %q", out.String())
		}
		aw.Write(" text")
		aw.Close()
		if !strings.HasSuffix(out.String(), "\n") || !strings.Contains(out.String(), "bold") || stopped != 2 {
			t.Fatalf("markdown not rendered: %q", out.String())
		}
	})
	t.Run("raw flag on a terminal", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out, StdoutTTY: true}, true)
		aw.Write("**as is**")
		aw.Close()
		if out.String() != "**as is**\n" {
			t.Fatalf("got %q", out.String())
		}
	})
	t.Run("interrupt ends the cut line", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out, StdoutTTY: true, TermWidth: 80}, false)
		aw.Write("partial-start ")
		aw.Interrupt()
		if !strings.HasSuffix(out.String(), "partial-start \n") {
			t.Fatalf("got %q", out.String())
		}
	})
}
