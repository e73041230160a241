package mdstream

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// blockWriter draws the blocks of a parsed document as lines: styled, without the margin,
// unwrapped ("" for a blank line). Containers put their prefix before their children's lines:
// a quote its bar, a list item its bullet or number and then the bullet's width of spaces.
type blockWriter struct {
	src []byte
}

// listIndent is how far a nested list is indented under its item (glamour's level indent).
const listIndent = 2

// children draws the blocks of a container, a blank line between them unless tight (the
// blocks of a tight list item).
func (bw *blockWriter) children(n ast.Node, width int, tight bool) []string {
	var lines []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		cl := bw.block(c, width)
		if len(cl) == 0 {
			continue
		}
		if len(lines) > 0 && !tight {
			lines = append(lines, "")
		}
		lines = append(lines, cl...)
	}
	return lines
}

// block draws one block within width columns (what tables and rules fit into; text is
// wrapped afterwards, see wrap.go).
func (bw *blockWriter) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		st := headingStyles[min(max(n.Level, 1), 6)]
		w := inlineWriter{src: bw.src}
		if n.Level == 1 {
			w.run(st, " ")
		}
		w.children(n, st)
		return strings.Split(w.b.String(), "\n")
	case *ast.Paragraph, *ast.TextBlock:
		w := inlineWriter{src: bw.src}
		w.children(n, textStyle)
		return strings.Split(w.b.String(), "\n")
	case *ast.ThematicBreak:
		return []string{ruleStyle.sgr() + "--------\x1b[0m"}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return bw.code(n)
	case *ast.Blockquote:
		bar := textStyle.sgr() + "│\x1b[0m"
		lines := bw.children(n, width-2, false)
		for i, l := range lines {
			if l == "" {
				lines[i] = bar
			} else {
				lines[i] = bar + " " + l
			}
		}
		return lines
	case *ast.List:
		return bw.list(n, width)
	case *east.Table:
		return bw.table(n, width)
	case *ast.HTMLBlock:
		var raw bytes.Buffer
		for i := 0; i < n.Lines().Len(); i++ {
			s := n.Lines().At(i)
			raw.Write(s.Value(bw.src))
		}
		if n.HasClosure() {
			raw.Write(n.ClosureLine.Value(bw.src))
		}
		text := strings.TrimSpace(termsafe.String(stripHTML(raw.String())))
		if text == "" {
			return nil
		}
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			w := inlineWriter{src: bw.src}
			w.run(textStyle, strings.TrimRight(l, " \t"))
			lines = append(lines, w.b.String())
		}
		return lines
	default:
		return bw.children(n, width, false)
	}
}

// code draws a code block's lines as they are, in one colour, two columns in; tabs become
// spaces to the next multiple of four (the renderer measures every column it writes).
func (bw *blockWriter) code(n ast.Node) []string {
	var lines []string
	for i := 0; i < n.Lines().Len(); i++ {
		s := n.Lines().At(i)
		l := strings.TrimRight(string(s.Value(bw.src)), "\r\n")
		l = termsafe.String(expandTabs(l))
		if strings.TrimSpace(l) == "" {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, "  "+codeStyle.sgr()+l+"\x1b[0m")
	}
	return lines
}

func expandTabs(l string) string {
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// list draws a list's items: a bullet ("• "), a number ("3. ") or a task's box ("[✓] ")
// before the item's first line, its other lines under the item's text, a nested list
// listIndent columns in.
func (bw *blockWriter) list(l *ast.List, width int) []string {
	var lines []string
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		if box, ok := taskBox(item); ok {
			if l.IsOrdered() {
				marker += box
			} else {
				marker = box
			}
		}
		if len(lines) > 0 && !l.IsTight {
			lines = append(lines, "")
		}
		lines = append(lines, bw.item(item, marker, width, l.IsTight)...)
	}
	return lines
}

func (bw *blockWriter) item(item ast.Node, marker string, width int, tight bool) []string {
	mw := visibleWidth(marker)
	styled := textStyle.sgr() + marker + "\x1b[0m"
	var lines []string
	for c := item.FirstChild(); c != nil; c = c.NextSibling() {
		indent := mw
		if _, nested := c.(*ast.List); nested && c != item.FirstChild() {
			indent = listIndent
		}
		cl := bw.block(c, width-indent)
		if len(cl) == 0 {
			continue
		}
		if len(lines) > 0 && !tight {
			lines = append(lines, "")
		}
		for i, l := range cl {
			switch {
			case len(lines) == 0 && i == 0:
				lines = append(lines, styled+l)
			case l == "":
				lines = append(lines, "")
			default:
				lines = append(lines, strings.Repeat(" ", indent)+l)
			}
		}
	}
	if len(lines) == 0 {
		lines = []string{textStyle.sgr() + strings.TrimRight(marker, " ") + "\x1b[0m"}
	}
	return lines
}

// taskBox is the box drawn for a task list item ("- [x] done").
func taskBox(item ast.Node) (string, bool) {
	first := item.FirstChild()
	if first == nil {
		return "", false
	}
	box, ok := first.FirstChild().(*east.TaskCheckBox)
	if !ok || box == nil {
		return "", false
	}
	if box.IsChecked {
		return "[✓] ", true
	}
	return "[ ] ", true
}
