// Package hits holds what the search commands (history search, alert search) share: the
// check of their arguments and how a hit's snippet and score are printed.
package hits

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

// SearchArgs checks what a search command was given: the output format, a limit between 1 and
// store.MaxLimit, and a query made of its arguments; example is shown when there is none.
func SearchArgs(args []string, output string, limit int, example string) (string, error) {
	if err := cmdutil.CheckFormat(output, "text", "json"); err != nil {
		return "", err
	}
	q := strings.TrimSpace(strings.Join(args, " "))
	if q == "" {
		return "", cmdutil.UsageErrorf("a query is needed, e.g. %s", example)
	}
	if limit <= 0 || limit > store.MaxLimit {
		return "", cmdutil.UsageErrorf("--limit must be between 1 and %d", store.MaxLimit)
	}
	return q, nil
}
