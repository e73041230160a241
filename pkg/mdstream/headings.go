package mdstream

import "strings"

// DemoteHeadings moves the ATX headings of md (outside code fences) down so that the highest
// becomes level top, keeping their relative levels (at most 6): an answer placed under a
// document's "## Gemini" section gets headings from "###" down. Headings already at top or
// below are left as they are.
func DemoteHeadings(md string, top int) string {
	lines := strings.SplitAfter(md, "\n")
	highest := 7
	walkHeadings(lines, func(i, level int) { highest = min(highest, level) })
	shift := top - highest
	if highest == 7 || shift <= 0 {
		return md
	}
	walkHeadings(lines, func(i, level int) {
		l := lines[i]
		indent := len(l) - len(strings.TrimLeft(l, " "))
		lines[i] = l[:indent] + strings.Repeat("#", min(6, level+shift)) + l[indent+level:]
	})
	return strings.Join(lines, "")
}

// walkHeadings calls f with the index and level of each heading line outside a fence.
func walkHeadings(lines []string, f func(i, level int)) {
	fence := ""
	for i, l := range lines {
		switch {
		case fence != "":
			if closesFence(strings.TrimSpace(l), fence) {
				fence = ""
			}
		case openingFence(l) != "":
			fence = openingFence(l)
		case isHeading(l):
			t := strings.TrimLeft(l, " ")
			f(i, len(t)-len(strings.TrimLeft(t, "#")))
		}
	}
}
