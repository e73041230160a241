package mdstream

import (
	"net/url"
	"strings"
)

// A link prints as its text and then its target. An e-mail address written plainly (which
// Markdown makes a mailto: link) would come out as "alice@example.com
// mailto:alice@example.com" and [https://x](https://x) as "https://x https://x": a target that
// only repeats its text is dropped.

// showTarget reports whether a link's target is printed after its text.
func showTarget(text, dest string) bool {
	dest = strings.TrimSpace(dest)
	switch {
	case dest == "" || dest == text || strings.EqualFold(dest, "mailto:"+text):
		return false
	}
	// Only an anchor ("#section") points into a page the reader does not have.
	if u, err := url.Parse(dest); err == nil && "#"+u.Fragment == dest {
		return false
	}
	return true
}

// linkNote is the target of a link in a table cell, printed under the table as "[n]: text
// target", the cell showing "text[n]".
type linkNote struct{ text, url string }
