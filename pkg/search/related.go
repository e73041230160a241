package search

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// maxRelatedFields bounds the query made of an alert: its title and the first string values of
// its JSON, enough to carry its indicators and its kind.
const maxRelatedFields = 40

// RelatedQuery is the search query that stands for an alert: its title and the string values
// of its JSON (addresses, domains, finding types...), at most maxRelatedFields of them.
func RelatedQuery(a *record.Alert) string {
	fields := strings.Fields(a.Title)
	var walk func(v any)
	walk = func(v any) {
		if len(fields) >= maxRelatedFields {
			return
		}
		switch x := v.(type) {
		case string:
			for _, f := range strings.Fields(x) {
				if len(fields) < maxRelatedFields && len(index.Words(f)) > 0 {
					fields = append(fields, f)
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var data any
	if json.Unmarshal(a.Data, &data) == nil {
		walk(data)
	}
	return strings.Join(fields, " ")
}

// Related returns up to k histories of other alerts most related to a (for "chat" to offer
// when it starts on an alert with no history yet).
func (s *Searcher) Related(ctx context.Context, st Backend, a *record.Alert, k int) ([]Result, error) {
	rs, err := s.Search(ctx, st, Query{Text: RelatedQuery(a), Limit: k + 10})
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, k)
	for _, r := range rs {
		if r.History.AlertID != a.ID && len(out) < k {
			out = append(out, r)
		}
	}
	return out, nil
}
