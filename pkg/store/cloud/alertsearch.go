package cloud

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

var _ store.AlertSearcher = (*Store)(nil)

// alertCandidates is how many documents one alert search reads at most: a constant, whatever
// the number of alerts, since the query is bounded by it.
const alertCandidates = 60

// SearchAlerts implements store.AlertSearcher: one array-contains-any query on the alert
// documents' terms (written with the alert), the candidates ranked by how many of the query's
// terms they hold, the title's counting double. An indicator is asked for whole (its
// compound, "203.0.113.7"), never through its parts.
func (s *Store) SearchAlerts(ctx context.Context, q store.AlertSearchQuery) ([]store.AlertHit, error) {
	terms, words := alertQueryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	limit := store.ClampLimit(q.Limit)
	s.calls.Add("firestore.query")
	query := s.alerts().Where("workspace", "==", s.workspace)
	if q.Severity != "" {
		query = query.Where("severity", "==", q.Severity)
	}
	if q.Source != "" {
		query = query.Where("source", "==", q.Source)
	}
	snaps, err := query.Where("terms", "array-contains-any", terms).
		OrderBy("created_at", firestore.Desc).Limit(max(limit, alertCandidates)).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to search alerts")
	}
	holds := func(have []string, w []string) bool {
		for _, t := range w {
			if !slices.Contains(have, t) {
				return false
			}
		}
		return true
	}
	hits := make([]store.AlertHit, 0, len(snaps))
	for _, snap := range snaps {
		var d alertDoc
		if err := snap.DataTo(&d); err != nil {
			continue
		}
		title := index.Terms(d.Title)
		score := 0.0
		for _, w := range words {
			if holds(d.Terms, w) {
				score++
			}
			if holds(title, w) {
				score++
			}
		}
		if score == 0 {
			continue // held only some bigrams of a CJK word, not the word
		}
		hits = append(hits, store.AlertHit{
			Alert:   d.alert(false),
			Score:   score / float64(2*len(words)),
			Snippet: alertSnippet(index.AlertText("", []byte(d.Data)), terms),
		})
	}
	slices.SortStableFunc(hits, func(a, b store.AlertHit) int { return cmp.Compare(b.Score, a.Score) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// alertQueryTerms are the terms an alert search asks for: the compounds of the query (an
// address, a domain, an ARN as typed), its single words and the bigrams of its CJK words, at
// most Firestore's limit; and the query's words as lists of terms, each found when an alert
// holds all of its terms (a single term, or a CJK word's bigrams: Firestore has no phrase
// query).
func alertQueryTerms(text string) (terms []string, words [][]string) {
	add := func(t string) bool {
		if t == "" || index.IsStop(t) {
			return false
		}
		if !slices.Contains(terms, t) {
			if len(terms) == maxQueryTerms {
				return false
			}
			terms = append(terms, t)
		}
		return true
	}
	seen := map[string]bool{}
	addWord := func(w []string) {
		if k := strings.Join(w, " "); !seen[k] {
			seen[k] = true
			words = append(words, w)
		}
	}
	for _, c := range index.Compounds(text) {
		if add(c) {
			addWord([]string{c})
		}
	}
	for _, p := range index.Phrases(text) {
		if len(p) == 1 {
			if add(p[0]) {
				addWord(p)
			}
			continue
		}
		if !index.HasCJK(p[0]) {
			continue // a dotted address: asked for through its compound
		}
		var kept []string
		for _, t := range p {
			if add(t) {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			addWord(kept)
		}
	}
	return terms, words
}

// alertSnippet is the line of text holding the first query term, its words marked.
func alertSnippet(text string, terms []string) string {
	words := map[string]bool{}
	for _, t := range terms {
		for _, w := range index.Words(t) {
			words[w] = true
		}
	}
	match := func(w string) bool { return words[w] }
	for _, line := range strings.Split(text, "\n") {
		lower := strings.ToLower(line)
		for _, t := range terms {
			if strings.Contains(lower, t) {
				return index.Snippet(line, match, 12, store.SnippetOpen, store.SnippetClose)
			}
		}
	}
	return ""
}
