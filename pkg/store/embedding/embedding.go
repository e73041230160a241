// Package embedding is the store layer that embeds what each save adds to a history, after the
// save, and adds it to the history's vector in the backend (store.VectorSearcher), so that
// history search can rank by meaning; and the text of each team knowledge entry written, whose
// vector goes down with the entry (store.KnowledgeBase.NearestKnowledge finds it). It is storage: it sits in the command line's stack below
// the redaction layer (it only ever sees, and sends to the embedding model, what is stored) and
// above the retries, and search builds on it (search.IndexMissing embeds what a save missed
// with EmbedNew), never the other way round.
package embedding

import (
	"context"
	"log/slog"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// Embedder turns texts into vectors. query says whether the texts are search queries (true)
// or documents being indexed (false): embedding models treat the two differently.
type Embedder interface {
	Embed(ctx context.Context, texts []string, query bool) ([][]float32, error)
}

// next is the store below, embedded: every method but SaveHistory and PutKnowledge goes to it
// as it is.
type next = store.Store

// layer embeds what each save adds to a history, after the save. A failed embedding never
// fails the save: the history's vector lags, the next save embeds from where it stopped, and
// `history reindex` catches up.
type layer struct {
	next
	emb    Embedder
	logger *slog.Logger
}

// New wraps next; without an embedder next is returned as it is.
func New(next store.Store, emb Embedder, logger *slog.Logger) store.Store {
	if emb == nil {
		return next
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &layer{next: next, emb: emb, logger: logger}
}

var _ store.Store = (*layer)(nil)

// SaveHistory saves h, then embeds its new contents.
func (s *layer) SaveHistory(ctx context.Context, h *record.History) error {
	if err := s.next.SaveHistory(ctx, h); err != nil {
		return err
	}
	if err := EmbedNew(ctx, s.next, s.emb, h); err != nil {
		s.logger.Warn("failed to embed a history for search; a later save or 'history reindex' retries", "history_id", h.ID, "error", err)
	}
	return nil
}

// PutKnowledge embeds the entry's text as it is written (redacted: the layer sits below
// redaction) and writes the vector with the entry, in the same write. A retired entry is
// given no vector: it is never found again. A failed embedding never fails the write: the
// entry is written without a vector, found by its indicators, alert types and words until it
// is written again.
func (s *layer) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	e.Vector = nil
	if e.RetiredAt == nil {
		vecs, err := s.emb.Embed(ctx, []string{e.Text}, false)
		switch {
		case err != nil:
			s.logger.Warn("failed to embed a knowledge entry; it is found by its indicators, alert types and words until it is written again", "knowledge_id", e.ID, "error", err)
		case len(vecs) != 1 || len(vecs[0]) == 0:
			s.logger.Warn("the embedding model returned no vector for a knowledge entry", "knowledge_id", e.ID)
		default:
			e.Vector = vecs[0]
		}
	}
	return s.next.PutKnowledge(ctx, e)
}

// maxEmbedRunes bounds the text of one embedding request (the models take about 2,000
// tokens); a longer addition is embedded in pieces, each weighted by its length.
const maxEmbedRunes = 6000

// EmbedNew adds the embedding of h's contents not yet embedded to its stored vector. The
// first embedding of a history includes its title.
func EmbedNew(ctx context.Context, vs store.VectorSearcher, emb Embedder, h *record.History) error {
	from, err := vs.EmbeddedCount(ctx, h.ID)
	if err != nil {
		return err
	}
	if from > len(h.Contents) {
		from = 0 // rewritten shorter: PutEmbedding from 0 starts over only if nothing is stored
	}
	if from == len(h.Contents) {
		return nil
	}
	body := index.Contents(h.Contents[from:])
	if from == 0 {
		body = h.Title + "\n" + body
	}
	pieces := split(body, maxEmbedRunes)
	if len(pieces) == 0 {
		_, err := vs.PutEmbedding(ctx, h.ID, from, len(h.Contents), nil)
		return err
	}
	vecs, err := emb.Embed(ctx, pieces, false)
	if err != nil {
		return goerr.Wrap(err, "failed to embed history text", goerr.V("history_id", h.ID))
	}
	if len(vecs) != len(pieces) {
		return goerr.New("embedding model returned a wrong number of vectors", goerr.V("history_id", h.ID))
	}
	sum := make([]float32, len(vecs[0]))
	for i, v := range vecs {
		if len(v) != len(sum) {
			return goerr.New("embedding model returned vectors of different sizes", goerr.V("history_id", h.ID))
		}
		w := float32(utf8.RuneCountInString(pieces[i]))
		for j := range v {
			sum[j] += w * v[j]
		}
	}
	_, err = vs.PutEmbedding(ctx, h.ID, from, len(h.Contents), sum)
	return err
}

// split cuts s into pieces of at most n runes, at line or word boundaries when it can.
func split(s string, n int) []string {
	var out []string
	for s != "" {
		r := []rune(s)
		if len(r) <= n {
			out = append(out, s)
			break
		}
		cut := string(r[:n])
		for _, sep := range []byte{'\n', ' '} {
			if i := lastIndexByte(cut, sep); i > len(cut)/2 {
				cut = cut[:i+1]
				break
			}
		}
		out = append(out, cut)
		s = s[len(cut):]
	}
	return out
}

func lastIndexByte(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c {
			return i
		}
	}
	return -1
}
