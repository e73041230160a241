package search

import (
	"regexp"
	"slices"

	"github.com/alertchat/alertchat/pkg/redact"
)

// IndicatorTokens returns, for a query, the tokens that eng (the workspace's keyed redaction)
// writes for the raw values the query holds: "where did we see 203.0.113.7" finds the
// histories that stored that IP's token. Nothing raw is looked up.
func IndicatorTokens(eng *redact.Redactor) func(query string) []string {
	if eng == nil || !eng.Tokens() {
		return nil
	}
	return func(query string) []string {
		red, _ := eng.String(query)
		var out []string
		for _, m := range tokenPattern.FindAllString(red, -1) {
			if redact.IsToken(m) && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
		return out
	}
}

var tokenPattern = regexp.MustCompile(`\[REDACTED_[A-Z_]+_[a-z0-9]+\]`)
