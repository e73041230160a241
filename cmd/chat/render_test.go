package chat

import (
	"bytes"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

func TestLastBlockEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want int
	}{
		{"one paragraph", 0},
		{"para one\n\npara two", len("para one\n\n")},
		{"a\n\nb\n\nc", len("a\n\nb\n\n")},
		{"```\ncode\n\nmore code\n", 0},
		{"```\ncode\n\nmore\n```\n\nafter", len("```\ncode\n\nmore\n```\n\n")},
		{"\n\nleading", 0},
	} {
		if got := lastBlockEnd(tc.text); got != tc.want {
			t.Errorf("lastBlockEnd(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestAnswerWriter(t *testing.T) {
	t.Parallel()
	t.Run("raw streams every chunk, sanitised", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out}, false)
		stopped := 0
		aw.beforeFirstWrite = func() { stopped++ }
		aw.Write("Hello \x1b[2J")
		if out.String() != "Hello " || stopped != 1 {
			t.Fatalf("first chunk: %q, spinner stopped %d times", out.String(), stopped)
		}
		aw.Write("world")
		aw.Close()
		if out.String() != "Hello world\n" || stopped != 1 {
			t.Fatalf("got %q", out.String())
		}
	})
	t.Run("terminal renders whole blocks", func(t *testing.T) {
		t.Parallel()
		var out bytes.Buffer
		aw := newAnswerWriter(&cmdutil.IOStreams{Out: &out, StdoutTTY: true, TermWidth: 80}, false)
		aw.Write("# Title\n\nSome **bold**")
		first := out.String()
		if !strings.Contains(first, "Title") || strings.Contains(first, "bold") {
			t.Fatalf("first block not rendered alone: %q", first)
		}
		aw.Write(" text")
		aw.Close()
		if strings.Contains(out.String(), "**") || !strings.Contains(out.String(), "bold") {
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
}
