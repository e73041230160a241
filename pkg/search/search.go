// Package search finds past investigations: "history search QUERY". It asks the store's index
// (store.Searcher: words, phrases and redaction tokens; store.VectorSearcher: embeddings) for
// candidates, merges the two lists, and reorders them with Maximal Marginal Relevance so that
// near-duplicate conversations do not fill the first page.
//
// Nothing here reads a transcript: what a search costs depends on the number of candidates,
// not on the size of the histories.
package search

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/embedding"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// Embedder turns texts into vectors (the embedding layer's, pkg/store/embedding: search
// queries and the stored histories are embedded by the same model).
type Embedder = embedding.Embedder

// DefaultLambda weighs relevance against diversity in MMR (seed 000's default: 0.7 favours
// relevance; 0.5 balances; 0.3 favours diversity).
const DefaultLambda = 0.7

// Options configure a Searcher.
type Options struct {
	// IndicatorTokens returns the redaction tokens of the raw values in query that redaction
	// would replace (an IP address, an e-mail, a key, ...), as they appear in stored text,
	// e.g. "[REDACTED_IP_k3j2h1]". Nil: the query's words only.
	IndicatorTokens func(query string) []string
	// Embedder, when set, adds the histories nearest in meaning (the store must keep
	// embeddings: store.VectorSearcher).
	Embedder Embedder
	// Lambda is MMR's weight of relevance against diversity, in (0, 1]; 0 means DefaultLambda.
	Lambda float64
}

// Searcher runs searches.
type Searcher struct {
	o Options
}

// New returns a Searcher.
func New(o Options) *Searcher {
	if o.Lambda <= 0 || o.Lambda > 1 {
		o.Lambda = DefaultLambda
	}
	return &Searcher{o: o}
}

// Query is one search.
type Query struct {
	Text    string
	AlertID record.AlertID // optional filter
	Limit   int            // <= 0: store.DefaultLimit
}

// Result is one history found, best first.
type Result struct {
	History *record.History
	// Score is the relevance in [0, 1] the result was ranked with (before diversification).
	Score float64
	// Snippet is an excerpt of the match, the match between store.SnippetOpen and
	// store.SnippetClose; empty when the history was found by meaning only and has no summary.
	Snippet string
}

// Backend is what a search asks of the store: its word index and its embeddings (a history
// without an embedding is found by its words alone).
type Backend interface {
	store.Searcher
	store.VectorSearcher
}

// candidates is how many hits each source is asked for: MMR needs more than it keeps.
func candidates(limit int) int { return min(max(limit*3, 30), store.MaxLimit) }

// StoreQuery is the store's query for q: its phrases, plus its compounds (addresses, e-mails)
// and the redaction tokens of its raw values as single terms.
func (s *Searcher) StoreQuery(q Query) store.SearchQuery {
	sq := store.SearchQuery{Phrases: index.Phrases(q.Text), AlertID: q.AlertID, Limit: candidates(store.ClampLimit(q.Limit))}
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] {
			seen[t] = true
			sq.Terms = append(sq.Terms, t)
		}
	}
	for _, c := range index.Compounds(q.Text) {
		add(c)
	}
	if s.o.IndicatorTokens != nil {
		for _, tok := range s.o.IndicatorTokens(q.Text) {
			add(strings.Join(index.Words(tok), "_"))
		}
	}
	return sq
}

// Search finds the histories of st's workspace that match q. st is the store stack (or a
// backend).
func (s *Searcher) Search(ctx context.Context, st Backend, q Query) ([]Result, error) {
	limit := store.ClampLimit(q.Limit)
	sq := s.StoreQuery(q)
	textHits, err := st.SearchText(ctx, sq)
	if err != nil {
		return nil, err
	}
	var vecHits []store.SearchHit
	if s.o.Embedder != nil && strings.TrimSpace(q.Text) != "" {
		vs2, err := s.o.Embedder.Embed(ctx, []string{q.Text}, true)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to embed the query")
		}
		if len(vs2) == 1 && len(vs2[0]) > 0 {
			vecHits, err = st.SearchVector(ctx, vs2[0], q.AlertID, sq.Limit)
			if err != nil {
				return nil, err
			}
		}
	}
	merged := Merge(textHits, vecHits)
	return MMR(merged, limit, s.o.Lambda), nil
}

// Candidate is a result with what MMR compares it by.
type Candidate struct {
	Result
	Features []string
	Vector   []float32
}

// Merge joins the hits by words and by meaning into one list, best first. Scores by words
// are scaled to [0, 1] by the best of them; similarities by meaning are cosines, already in
// [-1, 1]. A history found both ways adds the two, so agreement ranks first; the sum is then
// scaled back to [0, 1].
func Merge(textHits, vecHits []store.SearchHit) []Candidate {
	var best float64
	for _, h := range textHits {
		best = max(best, h.Score)
	}
	at := map[record.HistoryID]int{}
	var out []Candidate
	add := func(h store.SearchHit, score float64) {
		if i, ok := at[h.History.ID]; ok {
			c := &out[i]
			c.Score += score
			if c.Vector == nil {
				c.Vector = h.Vector
			}
			if c.Snippet == "" {
				c.Snippet = h.Snippet
			}
			return
		}
		at[h.History.ID] = len(out)
		c := Candidate{Result: Result{History: h.History, Score: score, Snippet: h.Snippet}, Features: h.Features, Vector: h.Vector}
		if c.Features == nil {
			c.Features = index.Terms(h.History.Title)
		}
		if c.Snippet == "" && h.History.Summary != nil {
			c.Snippet = excerpt(h.History.Summary.Text, 160)
		}
		out = append(out, c)
	}
	for _, h := range textHits {
		s := 1.0
		if best > 0 {
			s = h.Score / best
		}
		add(h, s)
	}
	for _, h := range vecHits {
		if h.Score > 0 { // orthogonal or opposite: not related at all
			add(h, h.Score)
		}
	}
	var top float64
	for _, c := range out {
		top = max(top, c.Score)
	}
	if top > 0 {
		for i := range out {
			out[i].Score /= top
		}
	}
	slices.SortStableFunc(out, func(a, b Candidate) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return b.History.UpdatedAt.Compare(a.History.UpdatedAt)
	})
	return out
}

// MMR picks k of cs (best first by Score) one at a time, each time the one maximising
// lambda*Score - (1-lambda)*(its greatest similarity to those already picked): a
// near-duplicate of a picked result loses its place to a less relevant but different one.
// Similarity is the cosine of the two vectors when both are known, else the Jaccard index of
// their features.
func MMR(cs []Candidate, k int, lambda float64) []Result {
	if k > len(cs) {
		k = len(cs)
	}
	picked := make([]Result, 0, k)
	chosen := make([]int, 0, k)
	used := make([]bool, len(cs))
	// maxSim[i] is the greatest similarity of candidate i to the picked ones so far.
	maxSim := make([]float64, len(cs))
	for len(picked) < k {
		bestI, bestV := -1, math.Inf(-1)
		for i := range cs {
			if used[i] {
				continue
			}
			v := lambda * cs[i].Score
			if len(chosen) > 0 {
				v -= (1 - lambda) * maxSim[i]
			}
			if v > bestV {
				bestI, bestV = i, v
			}
		}
		used[bestI] = true
		chosen = append(chosen, bestI)
		picked = append(picked, cs[bestI].Result)
		// The picked candidate's words as a set once, not once a comparison (CJK text has many
		// terms: its bigrams).
		var set map[string]bool
		for i := range cs {
			if used[i] {
				continue
			}
			if len(cs[i].Vector) > 0 && len(cs[i].Vector) == len(cs[bestI].Vector) {
				maxSim[i] = max(maxSim[i], Cosine(cs[i].Vector, cs[bestI].Vector))
				continue
			}
			if set == nil {
				set = termSet(cs[bestI].Features)
			}
			maxSim[i] = max(maxSim[i], jaccardSet(set, cs[i].Features))
		}
	}
	return picked
}

// Cosine is the cosine similarity of a and b (0 when either is zero).
func Cosine(a, b []float32) float64 { return index.Cosine(a, b) }

func termSet(a []string) map[string]bool {
	set := make(map[string]bool, len(a))
	for _, x := range a {
		set[x] = true
	}
	return set
}

// jaccardSet is the Jaccard index of the set and b.
func jaccardSet(set map[string]bool, b []string) float64 {
	if len(set) == 0 || len(b) == 0 {
		return 0
	}
	inter, union := 0, len(set)
	seen := make(map[string]bool, len(b))
	for _, y := range b {
		if seen[y] {
			continue
		}
		seen[y] = true
		if set[y] {
			inter++
		} else {
			union++
		}
	}
	return float64(inter) / float64(union)
}

// excerpt cuts s to n display columns, at a word boundary in spaced scripts.
func excerpt(s string, n int) string {
	return format.TruncateWords(strings.Join(strings.Fields(s), " "), n, format.Ellipsis)
}
