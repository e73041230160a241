package format_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"

	"github.com/alertchat/alertchat/pkg/format"
)

func TestWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"日本語", 6},
		{"e\u0301", 1},  // a combining mark takes none
		{"👨‍👩‍👧", 2},    // a ZWJ sequence is one emoji
		{"🇯🇵", 2},       // a flag
		{"a\u200db", 2}, // a lone ZWJ takes none
		{"ログインfailed", 14},
	} {
		if got := format.Width(tc.in); got != tc.want {
			t.Errorf("Width(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		width int
		words bool
		want  string
	}{
		{"short", 10, false, "short"},
		{"日本語のタイトル", 9, false, "日本語の…"},
		{"日本語のタイトル", 10, false, "日本語の…"},
		{"Is the EC2 instance compromised", 20, true, "Is the EC2 instance…"},
		{"Is the EC2 instance compromised", 18, true, "Is the EC2…"},
		{"Is the EC2 instance compromised", 18, false, "Is the EC2 instan…"},
		{"averyveryverylongwordwithoutspaces", 12, true, "averyveryve…"},
		{"EC2インスタンスへの不審なログイン", 20, true, "EC2インスタンスへの…"},
		{"Login 不審なログインが発生しました", 16, true, "Login 不審なロ…"},
		{"👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", 4, false, "👨‍👩‍👧…"},
		{"abc", 0, false, ""},
		{"abcdef", 2, false, "a…"},
	} {
		f := format.Truncate
		if tc.words {
			f = format.TruncateWords
		}
		got := f(tc.in, tc.width, format.Ellipsis)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d, words=%v) = %q, want %q", tc.in, tc.width, tc.words, got, tc.want)
		}
		if w := format.Width(got); w > tc.width {
			t.Errorf("Truncate(%q, %d) is %d columns", tc.in, tc.width, w)
		}
	}
	if got := format.PadRight("日本", 6) + "|"; got != "日本  |" {
		t.Errorf("PadRight = %q", got)
	}
}

// FuzzTruncate: a cut never exceeds the width and never splits a grapheme cluster.
func FuzzTruncate(f *testing.F) {
	for _, s := range []string{"", "hello world", "日本語のタイトル", "👨‍👩‍👧🇯🇵e\u0301", "ﾛｸﾞｲﾝ\u200d", "a \u0301b\r\nc"} {
		f.Add(s, 7, true)
	}
	f.Fuzz(func(t *testing.T, s string, width int, words bool) {
		if !utf8.ValidString(s) || width < 0 || width > 200 {
			return
		}
		cut := format.Truncate
		if words {
			cut = format.TruncateWords
		}
		got := cut(s, width, format.Ellipsis)
		if w := format.Width(got); w > width {
			t.Fatalf("Truncate(%q, %d) = %q, %d columns", s, width, got, w)
		}
		if got == s {
			return
		}
		kept := strings.TrimSuffix(got, format.Ellipsis)
		if !strings.HasPrefix(s, kept) {
			t.Fatalf("Truncate(%q, %d) = %q, not a prefix", s, width, got)
		}
		// The cut is a grapheme boundary of s: s's clusters up to len(kept) are kept's.
		g := uniseg.NewGraphemes(s)
		at := 0
		for at < len(kept) && g.Next() {
			_, at = g.Positions()
		}
		if at != len(kept) {
			t.Fatalf("Truncate(%q, %d) = %q splits a grapheme cluster", s, width, got)
		}
	})
}
