package mdstream

import (
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

func TestWrapLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		limit    int
		want     string
	}{
		{"fits", "  short line", 20, "  short line"},
		{"words", "  one two three four five", 14, "  one two\n  three four\n  five"},
		{"uuid moves whole", "  id 514c60ac-5fc0-54af-9cc2-3e1b2f0a7d11", 40, "  id\n  514c60ac-5fc0-54af-9cc2-3e1b2f0a7d11"},
		{"too long fills lines", "  ab 0123456789abcdef", 12, "  ab 0123456\n  789abcdef"},
		{"bullet hangs", "  • alpha beta gamma", 14, "  • alpha beta\n    gamma"},
		{"number hangs", "  12. alpha beta gamma", 16, "  12. alpha beta\n      gamma"},
		{"quote bar repeats", "  │ alpha beta gamma", 14, "  │ alpha beta\n  │ gamma"},
		{"japanese", "  あいうえおかきくけこ", 12, "  あいうえお\n  かきくけこ"},
		{"no line starts with 。", "  あいうえ。かき", 10, "  あいう\n  え。かき"},
		{"colour carried", "\x1b[1mone two\x1b[0m", 4, "\x1b[1mone\x1b[0m\n\x1b[1mtwo\x1b[0m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := wrapLine(tc.in, tc.limit); got != tc.want {
				t.Errorf("wrapLine(%q, %d) =\n%q\nwant\n%q", tc.in, tc.limit, got, tc.want)
			}
		})
	}
}

// FuzzWrapLine: whatever the line, no wrapped line is wider than the limit (unless a single
// character is), and the visible text is kept, in order, apart from the spaces at the breaks.
func FuzzWrapLine(f *testing.F) {
	for _, s := range []string{"  • alpha beta", "\x1b[38;5;252mone two\x1b[0m three", "あいう。えお", "a-b-c-d-e-f", "  │ x"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < 4 || limit > 200 {
			return
		}
		s = strings.ReplaceAll(termsafe.String(s), "\n", " ")
		s = strings.ReplaceAll(s, "\t", " ")
		out := wrapLine(s, limit)
		var got strings.Builder
		for _, l := range strings.Split(out, "\n") {
			vis := termsafe.StripCSI(l)
			if w := format.Width(vis); w > limit && format.Width(strings.TrimSpace(vis)) > 2 {
				cells, _ := splitCells(vis)
				wide := false
				for _, c := range cells {
					wide = wide || c.w > limit/2
				}
				if !wide {
					t.Fatalf("line %q of wrapLine(%q, %d) is %d columns wide", vis, s, limit, w)
				}
			}
			got.WriteString(strings.ReplaceAll(strings.ReplaceAll(vis, " ", ""), "│", ""))
		}
		want := strings.ReplaceAll(strings.ReplaceAll(termsafe.StripCSI(s), " ", ""), "│", "")
		if got.String() != want {
			t.Fatalf("wrapLine(%q, %d) changed the text: %q, want %q", s, limit, got.String(), want)
		}
	})
}
