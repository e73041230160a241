package mdstream_test

import (
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/format"
)

// TestRenderElements reads each element of Markdown as the terminal shows it: its visible
// text, laid out, and the colour it is drawn in (glamour's dark style, which the renderer
// drew with before).
func TestRenderElements(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		width  int
		in     string
		screen string
		// sgr is what the output holds around the text: its colour sequences, or none where
		// the text is drawn in the terminal's own colours (body text, code blocks)
		sgr []string
	}{
		{"h1", 80, "# Title one\n", "   Title one", []string{"\x1b[38;5;228;48;5;63;1m"}},
		{"h2 underlined", 80, "## Second level\n", "  Second level", []string{"\x1b[38;5;32;1;4mSecond"}},
		{"h3", 80, "### Third\n", "  Third", []string{"\x1b[38;5;32;1mThird"}},
		{"h6", 80, "###### Sixth\n", "  Sixth", []string{"\x1b[38;5;29mSixth"}},
		{"setext", 80, "Setext\n======\n", "   Setext", []string{"\x1b[38;5;228;48;5;63;1m"}},
		{"emphasis", 80, "plain **bold** and *italic* and ~~struck~~ and `code span` end\n",
			"  plain bold and italic and struck and  code span  end",
			[]string{"  plain \x1b[0m\x1b[1mbold", "\x1b[0m\x1b[3mitalic", "\x1b[0m\x1b[9mstruck", "\x1b[38;5;203;48;5;236m code span "}},
		{"escapes and entities", 80, "escaped \\*not em\\* and &amp; entity &copy;\n", "  escaped *not em* and & entity ©", nil},
		{"link", 80, "see [docs](https://example.com/x) now\n", "  see docs https://example.com/x now",
			[]string{"\x1b[38;5;29;1mdocs", "\x1b[38;5;30;4mhttps://example.com/x"}},
		{"autolinks", 80, "<https://a.example/b>, www.example.com and bob@example.com\n",
			"  https://a.example/b, http://www.example.com and bob@example.com",
			[]string{"\x1b[38;5;30;4mhttps://a.example/b", "\x1b[38;5;29;1mbob@example.com"}},
		{"anchor link", 80, "[top](#top) and [rel](./x.md)\n", "  top and rel ./x.md", nil},
		{"image", 80, "![alt text](https://example.com/i.png) after\n", "  Image: alt text → https://example.com/i.png after",
			[]string{"\x1b[38;5;243mImage: alt text →", "\x1b[38;5;163;4mhttps://example.com/i.png"}},
		{"image without text", 80, "![](https://example.com/i.png)\n", "  https://example.com/i.png", nil},
		{"bullets nested", 80, "- one\n- two\n  - nested a\n    - deep\n- three\n",
			"  • one\n  • two\n    • nested a\n      • deep\n  • three", nil},
		{"numbers nested", 80, "1. first\n2. second\n   1. sub one\n   - sub bullet\n3. third\n",
			"  1. first\n  2. second\n    1. sub one\n    • sub bullet\n  3. third", nil},
		{"numbers start", 80, "10. ten\n11. eleven\n", "  10. ten\n  11. eleven", nil},
		{"tasks", 80, "- [ ] todo\n- [x] done\n", "  [ ] todo\n  [✓] done", nil},
		{"item wraps under its text", 40, "- list item that is long enough to wrap around at the forty column width\n",
			"  • list item that is long enough to\n    wrap around at the forty column\n    width", nil},
		{"quote", 80, "> quoted text\n> more\n>\n> second para\n", "  │ quoted text\n  │ more\n  │\n  │ second para", nil},
		{"quote nested", 80, "> outer\n>> inner\n", "  │ outer\n  │\n  │ │ inner", nil},
		{"quote wraps", 40, "> quote line that is long enough to wrap around at forty\n",
			"  │ quote line that is long enough to\n  │ wrap around at forty", nil},
		{"rule", 80, "---\n", "  --------", []string{"\x1b[38;5;244m--------"}},
		{"fenced code keeps its lines", 80, "```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n",
			"    func main() {\n        fmt.Println(\"hi\")\n    }", []string{"    func main() {\n"}},
		{"fenced code blank line", 80, "~~~\na\n\nb\n~~~\n", "    a\n\n    b", nil},
		{"indented code", 80, "    indented code\n    line two\n", "    indented code\n    line two", nil},
		{"code in a list item", 80, "- item\n  ```\n  code a\n  code b\n  ```\n", "  • item\n\n    code a\n    code b", nil},
		{"long code line folds at the limit", 40, "```\n" + strings.Repeat("x", 50) + "\n```\n",
			"    " + strings.Repeat("x", 35) + "\n    " + strings.Repeat("x", 15), nil},
		{"table", 80, "| a | b |\n|---|---|\n| 1 | 2 |\n| three | four |\n",
			"   a     │ b\n  ───────┼──────\n   1     │ 2\n   three │ four", nil},
		{"table aligned", 80, "| left | center | right |\n|:---|:---:|---:|\n| l | c | r |\n",
			"   left │ center │ right\n  ──────┼────────┼───────\n   l    │   c    │     r", nil},
		{"table cut to the width", 40, "| col | description |\n|---|---|\n| x | " + strings.Repeat("a long cell ", 6) + "|\n| 日本 | " + strings.Repeat("長い", 20) + " |\n",
			"   col  │ description\n  ──────┼──────────────────────────────\n   x    │ a long cell a long cell a l…\n   日本 │ 長い長い長い長い長い長い長…", nil},
		{"table links listed under it", 80, "| `code` | **bold** |\n|---|---|\n| [l](https://u.example) | ~~s~~ |\n",
			"    code  │ bold\n  ────────┼──────\n   l[1]   │ s\n\n  [1]: l https://u.example", nil},
		{"html block", 80, "<div>raw <b>html</b> &amp; more</div>\n", "  raw html & more", nil},
		{"inline html", 80, "text with <span>inline</span> html\n", "  text with inline html", nil},
		{"script and comment", 80, "<script>alert(1)</script>\n\nshown <!-- hidden -->\n", "  shown", nil},
		{"entity cannot escape", 80, "a &#27;[2J b\n", "  a [2J b", nil},
		{"soft breaks join", 80, "one\ntwo\nthree\n", "  one two three", nil},
		{"hard breaks stay", 80, "line one  \nhard break\\\nanother\n", "  line one\n  hard break\n  another", nil},
		{"a line that reads as an item stays", 80, "first\n2. second\n", "  first\n  2. second", nil},
		{"tab in text", 80, "text\twith tab\n", "  text with tab", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRenderer(t, tc.width, 40)
			out := r.Render(tc.in)
			if got := screenOf(tc.width, out); got != tc.screen {
				t.Errorf("Render(%q) shows\n%s\nwant\n%s\n(%q)", tc.in, got, tc.screen, out)
			}
			for _, s := range tc.sgr {
				if !strings.Contains(out, s) {
					t.Errorf("Render(%q) = %q lacks %q", tc.in, out, s)
				}
			}
			limit := min(tc.width, 120) - 1
			for _, l := range strings.Split(screenOf(tc.width, out), "\n") {
				if w := format.Width(l); w > limit {
					t.Errorf("line %q takes %d columns, more than %d", l, w, limit)
				}
			}
		})
	}
}
