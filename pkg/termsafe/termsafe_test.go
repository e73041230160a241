package termsafe_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
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

// TestWriter: what reaches the terminal is String of the whole text, however it was cut into
// writes, an escape sequence or a character split between two of them included.
func TestWriter(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("日本語 log \x1b[2J", 10000) // no newline, longer than what is held
	for _, tc := range []struct{ name, in string }{
		{"plain", "plain line\nnext\n"},
		{"escapes", "a \x1b[31mred\x1b[0m line\n\x1b]0;evil title\x07title\nclear\x1b[2J\x1b[H"},
		{"no final newline", "last \u202eline"},
		{"long line", long},
	} {
		for _, size := range []int{1, 2, 3, 7, 4096, len(tc.in)} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, size), func(t *testing.T) {
				t.Parallel()
				var out bytes.Buffer
				w := termsafe.NewWriter(&out)
				for in := tc.in; in != ""; {
					n := min(size, len(in))
					if k, err := w.Write([]byte(in[:n])); k != n || err != nil {
						t.Fatalf("Write = %d, %v", k, err)
					}
					in = in[n:]
				}
				if err := w.Flush(); err != nil {
					t.Fatal(err)
				}
				if want := termsafe.String(tc.in); out.String() != want {
					t.Fatalf("wrote %.200q, want %.200q", out.String(), want)
				}
			})
		}
	}
}

// TestWriterWriteError: a failed write is reported.
func TestWriterWriteError(t *testing.T) {
	t.Parallel()
	w := termsafe.NewWriter(failingWriter{})
	if _, err := w.Write([]byte("line\n")); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// FuzzWriter: written in pieces of any size, the text comes out as String makes it whole.
func FuzzWriter(f *testing.F) {
	f.Add("a \x1b[31mred\x1b[0m\nline", uint8(1))
	f.Add("\x1b]0;t\x07x\n\u202e", uint8(3))
	f.Fuzz(func(t *testing.T, s string, size uint8) {
		n := int(size%16) + 1
		var out bytes.Buffer
		w := termsafe.NewWriter(&out)
		for in := s; in != ""; {
			k := min(n, len(in))
			_, _ = w.Write([]byte(in[:k]))
			in = in[k:]
		}
		_ = w.Flush()
		if strings.ContainsFunc(out.String(), func(r rune) bool { return r == 0x1b || r < 0x20 && r != '\n' && r != '\t' }) {
			t.Fatalf("%q in pieces of %d: %q", s, n, out.String())
		}
		// may differ from String of the whole: invalid UTF-8 (String shows U+FFFD), and an
		// unended OSC, which String lets run past a newline and Writer ends at the line
		if want := termsafe.String(s); utf8.ValidString(s) && !strings.Contains(s, "\x1b]") && out.String() != want {
			t.Fatalf("%q in pieces of %d: %q, want %q", s, n, out.String(), want)
		}
	})
}

// Zero-width and tag characters hide text inside what is shown, or carry text nobody sees.
func TestStringDropsInvisibleCharacters(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ad\u200bmin":                   "admin",
		"a\u200cb\u200dc\u2060d\ufeffe": "abcde",
		"ok\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E007F": "ok",
		"日本語\u00ad": "日本語",
	} {
		if got := termsafe.String(in); got != want {
			t.Errorf("String(%+q) = %+q, want %+q", in, got, want)
		}
	}
}

// Joiners stay where they change how text is drawn (an emoji sequence, a script that needs a
// non-joiner), and go where they only hide.
func TestStringKeepsJoinersThatJoin(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\u200db":                       "ab",
		"ad\u200cmin":                    "admin",
		"👨\u200d👩\u200d👧":                "👨\u200d👩\u200d👧",
		"👍🏽\u200d🔥":                      "👍🏽\u200d🔥",
		"\u0645\u06cc\u200c\u062e\u0648": "\u0645\u06cc\u200c\u062e\u0648",
		"\u200d👩":                        "👩",
		"👩\u200d":                        "👩",
	} {
		if got := termsafe.String(in); got != want {
			t.Errorf("String(%+q) = %+q, want %+q", in, got, want)
		}
	}
}
