package mdstream

import (
	"strings"

	"github.com/charmbracelet/glamour/ansi"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// glamour prints a link as its text and then its target, so an e-mail address written plainly
// (which Markdown makes a mailto: link) came out as "alice@example.com mailto:alice@example.com"
// and [https://x](https://x) as "https://x https://x". The renderer marks link texts and
// targets with private control sequences (zero width, so glamour wraps as before), drops a
// target that only repeats its text, and removes every mark. Input never holds the marks:
// termsafe removes escape sequences before rendering.
const (
	markHrefOpen  = "\x1b[7001z"
	markHrefClose = "\x1b[7002z"
	markTextOpen  = "\x1b[7003z"
	markTextClose = "\x1b[7004z"
)

// markLinks makes glamour mark link texts and targets in what it renders.
func markLinks(s *ansi.StyleConfig) {
	s.Link.BlockPrefix, s.Link.BlockSuffix = markHrefOpen, markHrefClose
	s.LinkText.BlockPrefix, s.LinkText.BlockSuffix = markTextOpen, markTextClose
}

// dedupeLinks drops each marked link target that repeats its text (or is its text with
// "mailto:"), and removes the marks.
func dedupeLinks(out string) string {
	if !strings.Contains(out, markHrefOpen) {
		return stripMarks(out)
	}
	var b strings.Builder
	for {
		i := strings.Index(out, markHrefOpen)
		if i < 0 {
			b.WriteString(out)
			break
		}
		j := strings.Index(out[i:], markHrefClose)
		if j < 0 {
			b.WriteString(out)
			break
		}
		j += i + len(markHrefClose)
		href := strings.TrimSpace(termsafe.StripCSI(out[i+len(markHrefOpen) : j-len(markHrefClose)]))
		before := out[:i]
		text, gap, ok := linkTextBefore(before)
		if ok && (href == text || strings.EqualFold(href, "mailto:"+text)) {
			if strings.Contains(gap, "\n") {
				// The target was wrapped onto a line of its own: keep the line break, drop the
				// target and the space that followed it.
				b.WriteString(before)
				out = dropLeadingSpace(out[j:])
			} else {
				b.WriteString(before[:len(before)-len(gap)])
				out = out[j:]
			}
			continue
		}
		b.WriteString(out[:j])
		out = out[j:]
	}
	return stripMarks(b.String())
}

// linkTextBefore finds the marked link text that ends s, apart from whitespace and control
// sequences (gap): its visible text.
func linkTextBefore(s string) (text, gap string, ok bool) {
	end := strings.LastIndex(s, markTextClose)
	if end < 0 {
		return "", "", false
	}
	gap = s[end+len(markTextClose):]
	if strings.TrimSpace(termsafe.StripCSI(gap)) != "" {
		return "", "", false
	}
	// A link text of several pieces (emphasis inside it) is several marked runs in a row.
	start := end
	for {
		open := strings.LastIndex(s[:start], markTextOpen)
		if open < 0 {
			return "", "", false
		}
		start = open
		prevClose := strings.LastIndex(s[:start], markTextClose)
		if prevClose < 0 || termsafe.StripCSI(s[prevClose+len(markTextClose):start]) != "" {
			break
		}
		start = prevClose
	}
	text = stripMarks(termsafe.StripCSI(s[start:end]))
	return strings.TrimSpace(text), gap, true
}

// dropLeadingSpace removes the first space of s that comes before any visible text.
func dropLeadingSpace(s string) string {
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			return s[:i] + s[i+1:]
		case strings.HasPrefix(s[i:], "\x1b["):
			k := i + 2
			for k < len(s) && (s[k] < 0x40 || s[k] > 0x7e) {
				k++
			}
			i = k + 1
		default:
			return s
		}
	}
	return s
}

var markStripper = strings.NewReplacer(markHrefOpen, "", markHrefClose, "", markTextOpen, "", markTextClose, "")

func stripMarks(s string) string { return markStripper.Replace(s) }
