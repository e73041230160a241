package mdstream

import "strings"

// style is how a run of text is drawn: 256-colour foreground and background ("" for the
// terminal's own) and attributes. Body text and code are drawn in the terminal's own
// foreground, so they read on a light background as on a dark one; glamour's dark style drew
// them light grey (252, 251), nearly invisible on white. The accents are glamour's where those
// read on both (their contrast is at least 3:1 against white and against black, or they carry
// their own background) and the nearest such colour where not.
type style struct {
	fg, bg                           string
	bold, italic, underline, crossed bool
}

// sgr is the style as a Select Graphic Rendition sequence.
func (s style) sgr() string {
	var p []string
	if s.fg != "" {
		p = append(p, "38;5;"+s.fg)
	}
	if s.bg != "" {
		p = append(p, "48;5;"+s.bg)
	}
	for _, a := range []struct {
		on   bool
		code string
	}{{s.bold, "1"}, {s.italic, "3"}, {s.underline, "4"}, {s.crossed, "9"}} {
		if a.on {
			p = append(p, a.code)
		}
	}
	if len(p) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

var (
	textStyle     = style{}
	ruleStyle     = style{fg: "244"}
	codeStyle     = style{} // code blocks: one colour, no highlighting
	imageStyle    = style{fg: "243"}
	headingStyles = [7]style{
		1: {fg: "228", bg: "63", bold: true},
		2: {fg: "32", bold: true, underline: true},
		3: {fg: "32", bold: true},
		4: {fg: "32", bold: true},
		5: {fg: "32", bold: true},
		6: {fg: "29"},
	}
)

// codeSpan, linkText, linkURL and imageURL derive from the style of the text around them:
// a link in a heading stays bold.
func (s style) codeSpan() style { s.fg, s.bg = "203", "236"; return s }
func (s style) linkText() style { s.fg, s.bold = "29", true; return s }
func (s style) linkURL() style  { s.fg, s.underline = "30", true; return s }
func (s style) imageURL() style { s.fg, s.underline = "163", true; return s }
