package factory

import (
	"strconv"
	"strings"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/store"
)

// Highlight makes a snippet safe to print (one line, no control characters) and puts open and
// closing around the matches the store marked.
func Highlight(snippet, open, closing string) string {
	parts := strings.Split(snippet, store.SnippetOpen)
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(open)
		}
		before, after, found := strings.Cut(p, store.SnippetClose)
		b.WriteString(cmdutil.CleanCell(before))
		if found {
			b.WriteString(closing)
			b.WriteString(cmdutil.CleanCell(strings.ReplaceAll(after, store.SnippetClose, "")))
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// RoundScore keeps four decimals of a search score, for output.
func RoundScore(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 4, 64), 64)
	return v
}
