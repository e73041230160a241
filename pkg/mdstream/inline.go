package mdstream

import (
	"bytes"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// inlineWriter draws the inline content of a block as styled runs, each closed with a reset
// so a line can be cut anywhere between runs; a line break is a plain "\n".
type inlineWriter struct {
	src []byte
	b   strings.Builder
	// notes collects the targets of links in a table cell, printed under the table (a target
	// cut with "…" would be lost).
	notes *[]linkNote
}

func (w *inlineWriter) run(st style, s string) {
	if s == "" {
		return
	}
	// Entities ("&#27;") and HTML decode to anything: what reaches the terminal is made safe
	// here, and kept on the line.
	s = oneLine.Replace(termsafe.String(s))
	if s == "" {
		return
	}
	w.b.WriteString(st.sgr())
	w.b.WriteString(s)
	w.b.WriteString("\x1b[0m")
}

// oneLine keeps a run on its line: the renderer measures every column it writes.
var oneLine = strings.NewReplacer("\n", " ", "\t", " ")

func (w *inlineWriter) children(n ast.Node, st style) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.node(c, st)
	}
}

func (w *inlineWriter) node(n ast.Node, st style) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(w.src)
		if !n.IsRaw() {
			v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
		}
		if prev, ok := n.PreviousSibling().(*east.TaskCheckBox); ok && prev != nil {
			v = bytes.TrimLeft(v, " \t")
		}
		w.run(st, string(v))
		switch {
		case n.HardLineBreak():
			w.b.WriteByte('\n')
		case n.SoftLineBreak():
			if w.keepsBreak(n.Segment.Stop) {
				w.b.WriteByte('\n')
			} else {
				w.run(st, " ")
			}
		}
	case *ast.String:
		w.run(st, string(n.Value))
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				code.Write(t.Segment.Value(w.src))
			} else if s, ok := c.(*ast.String); ok {
				code.Write(s.Value)
			}
		}
		w.run(st.codeSpan(), " "+code.String()+" ")
	case *ast.Emphasis:
		if n.Level >= 2 {
			st.bold = true
		} else {
			st.italic = true
		}
		w.children(n, st)
	case *east.Strikethrough:
		st.crossed = true
		w.children(n, st)
	case *ast.Link:
		w.link(n, st, string(n.Destination))
	case *ast.AutoLink:
		url := string(n.URL(w.src))
		if n.AutoLinkType == ast.AutoLinkEmail {
			// The address alone: "mailto:" would only repeat it.
			w.run(st.linkText(), string(n.Label(w.src)))
			return
		}
		w.run(st.linkURL(), url)
	case *ast.Image:
		w.image(n, st)
	case *ast.RawHTML:
		var raw strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			raw.Write(s.Value(w.src))
		}
		w.run(st, stripHTML(raw.String()))
	case *east.TaskCheckBox:
		// Drawn as the list item's marker.
	default:
		w.children(n, st)
	}
}

// keepsBreak reports whether a soft line break ending at pos stays a line break: where the
// next line would start a block of its own (see joinable), the author meant a new line.
// Elsewhere Markdown makes it a space, and the renderer wraps the text once, at the terminal.
func (w *inlineWriter) keepsBreak(pos int) bool {
	src := w.src
	pos = min(pos, len(src))
	start := bytes.LastIndexByte(src[:pos], '\n') + 1
	end := bytes.IndexByte(src[pos:], '\n')
	if end < 0 {
		return false
	}
	end += pos
	next := src[end+1:]
	if i := bytes.IndexByte(next, '\n'); i >= 0 {
		next = next[:i]
	}
	return !joinable(string(src[start:end]), string(next))
}

// link draws a link's text and then its target, unless the target only repeats the text (or
// is the text with "mailto:", or only an anchor in a page the reader does not have).
func (w *inlineWriter) link(n ast.Node, st style, dest string) {
	from := w.b.Len()
	w.children(n, st.linkText())
	text := strings.TrimSpace(termsafe.StripCSI(w.b.String()[from:]))
	if !showTarget(text, dest) {
		return
	}
	if w.notes != nil {
		*w.notes = append(*w.notes, linkNote{text: text, url: dest})
		w.run(st.linkText(), "["+strconv.Itoa(len(*w.notes))+"]")
		return
	}
	w.run(st, " ")
	w.run(st.linkURL(), dest)
}

// image draws an image as its description and its address.
func (w *inlineWriter) image(n *ast.Image, st style) {
	var alt inlineWriter
	alt.src = w.src
	alt.children(n, st)
	text := strings.TrimSpace(termsafe.StripCSI(alt.b.String()))
	dest := string(n.Destination)
	if text != "" {
		w.run(imageStyle, "Image: "+text+" →")
	}
	if dest == "" {
		return
	}
	if w.notes != nil {
		*w.notes = append(*w.notes, linkNote{text: text, url: dest})
		w.run(imageStyle, "["+strconv.Itoa(len(*w.notes))+"]")
		return
	}
	if text != "" {
		w.run(st, " ")
	}
	w.run(st.imageURL(), dest)
}

// stripHTML is raw HTML as the text it shows: tags and comments removed, and what script and
// style elements hold, entities decoded. Nothing of it is interpreted.
func stripHTML(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 >= len(s) {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		if strings.HasPrefix(s, "<!--") {
			end := strings.Index(s[4:], "-->")
			if end < 0 {
				break
			}
			s = s[4+end+3:]
			continue
		}
		c := s[1]
		if !(c == '/' || c == '!' || c == '?' || (c|0x20 >= 'a' && c|0x20 <= 'z')) {
			b.WriteByte('<')
			s = s[1:]
			continue
		}
		end := strings.IndexByte(s, '>')
		if end < 0 {
			break
		}
		tag := strings.ToLower(s[1:end])
		s = s[end+1:]
		for _, hidden := range []string{"script", "style"} {
			if strings.HasPrefix(tag, hidden) && (len(tag) == len(hidden) || !isLetter(tag[len(hidden)])) {
				end := strings.Index(strings.ToLower(s), "</"+hidden)
				if end < 0 {
					s = ""
					break
				}
				s = s[end:]
			}
		}
	}
	return html.UnescapeString(b.String())
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
