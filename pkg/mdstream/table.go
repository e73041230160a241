package mdstream

import (
	"strconv"
	"strings"

	east "github.com/yuin/goldmark/extension/ast"

	"github.com/alertchat/alertchat/pkg/format"
)

// A table is laid out within the width it is given: its columns as wide as their widest cell,
// a space either side, "│" between them and "─┼─" under the header; when that is too wide the
// widest column gives up a column at a time (down to minColumn) and its cells are cut with
// "…" (by display width: a CJK character takes two columns). Every row stays on one line, so
// the columns stay aligned; the targets of links in cells are listed under the table.

// minColumn is the narrowest a column is cut to.
const minColumn = 3

func (bw *blockWriter) table(t *east.Table, width int) []string {
	var rows [][]string
	var notes []linkNote
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			w := inlineWriter{src: bw.src, notes: &notes}
			w.children(c, textStyle)
			cells = append(cells, strings.ReplaceAll(w.b.String(), "\n", " "))
		}
		rows = append(rows, cells)
	}
	cols := len(t.Alignments)
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return nil
	}
	widths := make([]int, cols)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], visibleWidth(c))
		}
	}
	fitColumns(widths, width)

	sep := textStyle.sgr() + "│" + "\x1b[0m"
	var lines []string
	for ri, r := range rows {
		var b strings.Builder
		for i := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if visibleWidth(c) > widths[i] {
				c = cutStyled(c, widths[i])
			}
			b.WriteString(" " + align(c, widths[i], alignment(t, i)) + " ")
		}
		lines = append(lines, b.String())
		if ri == 0 {
			parts := make([]string, cols)
			for i, w := range widths {
				parts[i] = strings.Repeat("─", w+2)
			}
			lines = append(lines, textStyle.sgr()+strings.Join(parts, "┼")+"\x1b[0m")
		}
	}
	if len(notes) > 0 {
		lines = append(lines, "")
		for i, n := range notes {
			w := inlineWriter{src: bw.src}
			ref := "[" + strconv.Itoa(i+1) + "]:"
			if n.text != "" {
				ref += " " + n.text
			}
			w.run(textStyle.linkText(), ref)
			w.run(textStyle, " ")
			w.run(textStyle.linkURL(), n.url)
			lines = append(lines, w.b.String())
		}
	}
	return lines
}

// fitColumns narrows the widest columns until the table (a space either side of each column,
// one between columns) takes at most width columns: first down to minColumn, then, for a table
// of many columns, down to one column each.
func fitColumns(widths []int, width int) {
	total := len(widths)*3 - 1
	for _, w := range widths {
		total += w
	}
	for _, floor := range []int{minColumn, 1} {
		for ; total > width; total-- {
			widest := -1
			for i, w := range widths {
				if w > floor && (widest < 0 || w > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
		}
	}
	// Too many columns for the width even so: wrapRendered folds the rows.
}

func alignment(t *east.Table, i int) east.Alignment {
	if i < len(t.Alignments) {
		return t.Alignments[i]
	}
	return east.AlignNone
}

// align pads a cell to width columns.
func align(c string, width int, a east.Alignment) string {
	pad := max(width-visibleWidth(c), 0)
	switch a {
	case east.AlignRight:
		return strings.Repeat(" ", pad) + c
	case east.AlignCenter:
		return strings.Repeat(" ", pad/2) + c + strings.Repeat(" ", pad-pad/2)
	}
	return c + strings.Repeat(" ", pad)
}

// cutStyled cuts a styled cell to width columns, ending with "…" in the style it cut.
func cutStyled(c string, width int) string {
	cells, _ := splitCells(c)
	var b strings.Builder
	used := 0
	active := ""
	room := width - format.Width(format.Ellipsis)
	for _, k := range cells {
		if used+k.w > room {
			break
		}
		b.WriteString(k.esc)
		active = sgrState(active, k.esc)
		b.WriteString(k.vis)
		used += k.w
	}
	if active == "" {
		active = textStyle.sgr()
		b.WriteString(active)
	}
	b.WriteString(format.Ellipsis + "\x1b[0m")
	return b.String()
}
