// Package mdstream renders Markdown for a terminal, whole documents or answers that arrive in
// pieces.
//
// A streamed answer is cut into blocks (a paragraph or list ends at a blank line, a heading at
// the end of its line, a fenced code block at its closing fence). A completed block is parsed
// (goldmark, with GitHub's tables, strikethrough, autolinks and task lists), drawn with ANSI
// colours and written at once; the block still open is shown as plain text as it arrives, and
// is replaced by its rendering when it completes, if it still fits on the screen (else the
// plain text stays). Exactly one blank line separates blocks.
//
// Invariants: everything written has passed termsafe (the model cannot move the cursor or
// clear the screen); the only cursor movements are the renderer's own, within the rows it
// wrote for the open block.
package mdstream

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// margin is the left indentation of rendered text.
const margin = 2

// Options describe the terminal.
type Options struct {
	// Width is the terminal's width in columns; 0 means 80. Text wraps a little inside it.
	Width int
	// Height is the terminal's height in rows; 0 means 24. The open block is replaced by its
	// rendering only while it fits on the screen.
	Height int
}

// Renderer renders Markdown for one terminal. Build it once and use it for every answer; it
// is not safe for concurrent use.
type Renderer struct {
	md     parser.Parser
	width  int
	height int
	limit  int // columns a line may take (wrapLimit)
}

// NewRenderer returns a renderer for a terminal described by opts.
func NewRenderer(opts Options) (*Renderer, error) {
	width := opts.Width
	if width <= 0 {
		width = 80
	}
	height := opts.Height
	if height <= 0 {
		height = 24
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()
	return &Renderer{md: md, width: width, height: height, limit: wrapLimit(width)}, nil
}

// Render renders a whole document: its blocks, one blank line between them, ending in a
// newline ("" for a blank document). The caller sanitises md (termsafe) first.
func (r *Renderer) Render(md string) string {
	var b strings.Builder
	var sp splitter
	sp.feed(md, func(block string) { r.appendBlock(&b, block) })
	if rest := sp.rest(); strings.TrimSpace(rest) != "" {
		r.appendBlock(&b, rest)
	}
	return b.String()
}

func (r *Renderer) appendBlock(b *strings.Builder, block string) {
	out := r.renderBlock(block)
	if out == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(out)
}

// renderBlock renders one block: its lines after the margin, without blank lines around them
// and without trailing spaces, each ending in a newline and wrapped once at the limit.
func (r *Renderer) renderBlock(block string) string {
	src := []byte(block)
	bw := blockWriter{src: src}
	lines := bw.children(r.md.Parse(text.NewReader(src)), r.limit-margin, false)
	kept := lines[:0]
	for _, l := range lines {
		l = trimPadding(l)
		if l != "" {
			l = strings.Repeat(" ", margin) + l
		}
		kept = append(kept, l)
	}
	first, last := 0, len(kept)
	for first < last && visibleBlank(kept[first]) {
		first++
	}
	for last > first && visibleBlank(kept[last-1]) {
		last--
	}
	if first == last {
		return ""
	}
	return wrapRendered(strings.Join(kept[first:last], "\n"), r.limit) + "\n"
}

// trimPadding removes trailing spaces and the colour sequences around them from a rendered line,
// then resets the colour so nothing leaks into the next line.
func trimPadding(l string) string {
	end := len(l)
	for end > 0 {
		switch {
		case l[end-1] == ' ':
			end--
		case l[end-1] == 'm':
			start := strings.LastIndex(l[:end], "\x1b[")
			if start < 0 || !isSGRParams(l[start+2:end-1]) {
				return finishLine(l[:end])
			}
			end = start
		default:
			return finishLine(l[:end])
		}
	}
	return ""
}

func finishLine(l string) string {
	if strings.Contains(l, "\x1b[") {
		return l + "\x1b[0m"
	}
	return l
}

func isSGRParams(p string) bool {
	for i := 0; i < len(p); i++ {
		if (p[i] < '0' || p[i] > '9') && p[i] != ';' {
			return false
		}
	}
	return true
}

// visibleBlank reports whether a rendered line shows nothing.
func visibleBlank(l string) bool {
	return strings.TrimSpace(termsafe.StripCSI(l)) == ""
}
