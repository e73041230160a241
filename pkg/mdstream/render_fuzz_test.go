package mdstream

import (
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

var sgrSeq = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// FuzzRender: whatever the Markdown, rendering does not panic; no line is wider than the
// limit (but where a single character is wider than half of it, as wrapLine allows); every
// word of the text is on the screen (outside tables, whose cells are cut, and raw HTML, which
// is stripped), in the order of the screen's characters apart from the spaces, bars and breaks
// the layout adds; and nothing but the renderer's own colour sequences reaches the terminal.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"## Assessment\nThe host **web-1** is *compromised*.\n\n- a\n  - b\n1. c\n",
		"> quote\n>> nested\n\n---\n\n```go\nfunc main() {\n\tx()\n}\n```\n",
		"| a | b |\n|:--|--:|\n| 日本語 | [l](https://x.example) |\n",
		"- [ ] todo\n- [x] done\n\n![alt](https://i.example/p.png) <b>html</b> &#27;[2J\n",
		"see <https://a.example> bob@example.com www.example.com ~~old~~ `code`\n",
		strings.Repeat("word ", 40) + strings.Repeat("x", 150) + "\n",
	} {
		f.Add(s, uint8(80))
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
	f.Fuzz(func(t *testing.T, in string, width uint8) {
		if len(in) > 4000 {
			t.Skip()
		}
		in = termsafe.String(in) // as the callers do
		r, err := NewRenderer(Options{Width: int(width), Height: 40})
		if err != nil {
			t.Fatal(err)
		}
		out := r.Render(in)

		if rest := sgrSeq.ReplaceAllString(out, ""); termsafe.String(rest) != rest {
			t.Fatalf("Render(%q) writes more than colours: %q", in, rest)
		}
		var visible strings.Builder
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			vis := termsafe.StripCSI(l)
			if w := visibleWidth(vis); w > r.limit && format.Width(strings.TrimSpace(vis)) > 2 {
				cells, _ := splitCells(vis)
				wide := false
				for _, c := range cells {
					wide = wide || c.w > r.limit/2
				}
				if !wide {
					t.Fatalf("line %q of Render(%q) at width %d takes %d columns, more than %d", vis, in, width, w, r.limit)
				}
			}
			visible.WriteString(squeeze(vis))
		}
		var sp splitter
		var blocks []string
		sp.feed(in, func(b string) { blocks = append(blocks, b) })
		if rest := sp.rest(); strings.TrimSpace(rest) != "" {
			blocks = append(blocks, rest)
		}
		screen := visible.String()
		at := 0
		for _, b := range blocks {
			src := []byte(b)
			for _, w := range plainWords(md.Parse(text.NewReader(src)), src) {
				i := strings.Index(screen[at:], w)
				if i < 0 {
					t.Fatalf("word %q of Render(%q) at width %d is not on the screen (in order):\n%s", w, in, width, out)
				}
				at += i + len(w)
			}
		}
	})
}

// squeeze removes what the layout adds between words: spaces, quote bars, line breaks.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '│' {
			return -1
		}
		return r
	}, s)
}

// plainWords are the words of a parsed block's text, outside tables and raw HTML, squeezed as
// the screen is.
func plainWords(doc ast.Node, src []byte) []string {
	var words []string
	add := func(s string) {
		for _, w := range strings.Fields(termsafe.String(s)) {
			if w = squeeze(w); w != "" {
				words = append(words, w)
			}
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table, *ast.HTMLBlock, *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			v := n.Segment.Value(src)
			if !n.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			add(string(v))
		case *ast.String:
			add(string(n.Value))
		case *ast.AutoLink:
			add(string(n.Label(src)))
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				add(string(s.Value(src)))
			}
		}
		return ast.WalkContinue, nil
	})
	return words
}
