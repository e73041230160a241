package termsafe_test

import (
	"testing"
	"unicode/utf8"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text\nnext\tcell", "plain text\nnext\tcell"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b]0;evil title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"clear\x1b[2J\x1b[Hscreen", "clearscreen"},
		{"c1 \u009b2J csi", "c1 2J csi"},
		{"bidi \u202eevil\u202c", "bidi evil"},
		{"bell\x07 nul\x00 del\x7f", "bell nul del"},
		{"日本語\x1b[1mテキスト", "日本語テキスト"},
	} {
		if got := termsafe.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := termsafe.Line(" a\n\tb \x1b[1m c "); got != "a b c" {
		t.Errorf("Line = %q", got)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]0;t\x07", "a\u202eb", "\x1b", "\x1b[", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := termsafe.String(s)
		for i, r := range out {
			if r == 0x1b || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f && r != utf8.RuneError) {
				t.Fatalf("unsafe rune %U at %d in %q", r, i, out)
			}
		}
		if termsafe.String(out) != out {
			t.Fatal("not idempotent")
		}
	})
}

func TestStripCSI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;38;5;228mbold\x1b[0m text", "bold text"},
		{"a\x1b[2Kb\x1b[3Ac", "abc"},
		{"cut \x1b[38;5", "cut "},
	} {
		if got := termsafe.StripCSI(tc.in); got != tc.want {
			t.Errorf("StripCSI(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
