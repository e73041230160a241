package knowledge

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
)

// Notes by meaning (embeddings on): each entry's stored (redacted) text is embedded when it is
// written (pkg/store/embedding) and its vector kept beside it; an investigation's alert, or a
// search's query, is embedded the same way (redacted with the workspace's keyed tokens, as the
// entries are stored) and the store's nearest entries are asked for
// (store.KnowledgeBase.NearestKnowledge). Only those at least MinSimilarity near count: a
// nearest-neighbour search always answers, however far the nearest are.

// Embedder turns texts into vectors: the embedding model of --embeddings (pkg/store/embedding
// embeds the entries with the same one). query says the texts are queries, not documents.
type Embedder interface {
	Embed(ctx context.Context, texts []string, query bool) ([][]float32, error)
}

// Nearer finds the entries nearest to a vector (store.KnowledgeBase).
type Nearer interface {
	NearestKnowledge(ctx context.Context, v []float32, limit int) ([]store.KnowledgeHit, error)
}

// DefaultMinSimilarity is the cosine similarity an entry must reach to count as near in
// meaning. It is set high: embedding models give unrelated texts of one field (two security
// notes) a similarity well above zero, and a note given to the model on a weak likeness
// costs attention and may mislead.
const DefaultMinSimilarity = 0.7

// maxMeaningRunes bounds the text embedded for an alert or a query (the embedding models take
// about 2,000 tokens).
const maxMeaningRunes = 6000

// Meaning finds entries by meaning.
type Meaning struct {
	Store    Nearer
	Embedder Embedder
	// MinSimilarity is the cosine an entry must reach (0: DefaultMinSimilarity).
	MinSimilarity float64
	// Warn is told, once, why the notes could not be looked up by meaning (the embedding
	// model or the store failed): the lookup goes on with the notes found by indicator, alert
	// type and words. Nil tells nobody.
	Warn func(error)
	once sync.Once
}

func (m *Meaning) min() float64 {
	if m.MinSimilarity <= 0 {
		return DefaultMinSimilarity
	}
	return m.MinSimilarity
}

func (m *Meaning) warn(err error) {
	m.once.Do(func() {
		if m.Warn != nil {
			m.Warn(err)
		}
	})
}

// pendingVector is an embedding under way: asked while the store is asked for the matches by
// key, so meaning adds the model's time only where it is the longer of the two.
type pendingVector struct {
	done   chan struct{}
	v      []float32
	err    error
	cancel context.CancelFunc
}

// stop gives the embedding up and waits for it to end.
func (p *pendingVector) stop() {
	p.cancel()
	<-p.done
}

// embed starts embedding text as a query.
func (m *Meaning) embed(ctx context.Context, text string) *pendingVector {
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingVector{done: make(chan struct{}), cancel: cancel}
	text = strings.TrimSpace(text)
	if r := []rune(text); len(r) > maxMeaningRunes {
		text = string(r[:maxMeaningRunes])
	}
	if text == "" {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		vs, err := m.Embedder.Embed(ctx, []string{text}, true)
		switch {
		case err != nil:
			// The text is the alert's or the query: never in the error.
			p.err = goerr.Wrap(err, "failed to embed the text to look the notes up by")
		case len(vs) != 1:
			p.err = goerr.New("the embedding model returned a wrong number of vectors")
		default:
			p.v = vs[0]
		}
	}()
	return p
}

// nearest waits for p and returns the active entries at least MinSimilarity near its vector,
// nearest first, at most limit. A failure is told to Warn and finds none.
func (m *Meaning) nearest(ctx context.Context, p *pendingVector, limit int, now func() time.Time) []store.KnowledgeHit {
	defer p.stop()
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil
	}
	if p.err != nil {
		m.warn(p.err)
		return nil
	}
	if len(p.v) == 0 {
		return nil
	}
	limit = store.ClampLimit(limit)
	// Expired entries are among the nearest until someone retires them: read a few more.
	hits, err := m.Store.NearestKnowledge(ctx, p.v, max(2*limit, 16))
	if err != nil {
		m.warn(goerr.Wrap(err, "failed to search the notes by meaning"))
		return nil
	}
	at := now()
	out := make([]store.KnowledgeHit, 0, len(hits))
	for _, h := range hits {
		if h.Score >= m.min() && h.Entry.Active(at) {
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(x, y store.KnowledgeHit) int {
		switch {
		case x.Score > y.Score:
			return -1
		case x.Score < y.Score:
			return 1
		}
		return newerFirst(x.Entry, y.Entry)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// mergeByMeaning ranks a search's entries found by keys (scored) and by meaning (near): an
// entry's score is its share of the best score by keys, plus its similarity, so an entry
// found both ways comes first; ties newer first.
func mergeByMeaning(scored []scoredEntry, near []store.KnowledgeHit, limit int) []*record.Knowledge {
	best := 0
	for _, s := range scored {
		best = max(best, s.score)
	}
	type merged struct {
		e     *record.Knowledge
		score float64
	}
	var out []merged
	at := map[record.KnowledgeID]int{}
	for _, s := range scored {
		v := 1.0
		if best > 0 {
			v = float64(s.score) / float64(best)
		}
		at[s.e.ID] = len(out)
		out = append(out, merged{s.e, v})
	}
	for _, h := range near {
		if i, ok := at[h.Entry.ID]; ok {
			out[i].score += h.Score
			continue
		}
		at[h.Entry.ID] = len(out)
		out = append(out, merged{h.Entry, h.Score})
	}
	slices.SortStableFunc(out, func(x, y merged) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return newerFirst(x.e, y.e)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	es := make([]*record.Knowledge, len(out))
	for i, m := range out {
		es[i] = m.e
	}
	return es
}

// describingKeys name the fields in which alerts describe themselves in words: what an alert
// is about, beside its title and type, without the identifiers, timestamps and counters that
// fill the rest of its JSON and say nothing of its meaning.
var describingKeys = []string{"description", "summary", "message", "msg", "output", "detail-type", "explanation", "signature", "category"}

// AlertMeaningText is what an alert's notes are looked up by meaning with: its title, its type
// or rule name, and the text of its describing fields, each once, redacted with eng's keyed
// tokens as the entries are stored.
func AlertMeaningText(a *record.Alert, eng *redact.Redactor) string {
	var parts []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	add(a.Title)
	add(alert.Type(a.Data))
	var v any
	if json.Unmarshal(a.Data, &v) == nil {
		var walk func(v any, depth int)
		walk = func(v any, depth int) {
			if depth > 5 {
				return
			}
			switch x := v.(type) {
			case map[string]any:
				keys := make([]string, 0, len(x))
				for k := range x {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				for _, k := range keys {
					if s, ok := x[k].(string); ok && slices.Contains(describingKeys, strings.ToLower(k)) {
						add(s)
						continue
					}
					walk(x[k], depth+1)
				}
			case []any:
				for _, e := range x {
					walk(e, depth+1)
				}
			}
		}
		walk(v, 0)
	}
	text := strings.Join(parts, "\n")
	if eng.Enabled() {
		text, _ = eng.String(text)
	}
	return text
}
