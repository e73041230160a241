package cloud

import (
	"context"
	"errors"
	"slices"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// What search needs lives in the history's own document, written by the same write as the
// metadata (SaveHistory calls indexDoc on the document it is about to write), so it never
// disagrees with the metadata and goes away with it:
//
//   - terms: the normalised words, redaction tokens and compounds (addresses, e-mails) of the
//     title, the summary and the transcript, at most maxTerms, queried with array-contains-any;
//   - body_terms: the transcript's share of terms (not indexed), kept so that a rename or a
//     new summary replaces only the title's and summary's terms;
//   - indexed_count: how many contents body_terms covers, so a save adds only the terms of
//     what it adds;
//   - embedding, embedded_count: the sum of the embeddings of the history's parts (cosine
//     distance ignores length, so the sum is the history's direction) and how many contents it
//     covers, for FindNearest.
type searchFields struct {
	Terms         []string           `firestore:"terms,omitempty"`
	BodyTerms     []string           `firestore:"body_terms,omitempty"`
	IndexedCount  int64              `firestore:"indexed_count,omitempty"`
	SearchVersion int64              `firestore:"search_v,omitempty"`
	Embedding     firestore.Vector32 `firestore:"embedding,omitempty"`
	EmbeddedCount int64              `firestore:"embedded_count,omitempty"`
}

const (
	// searchVersion marks a document indexed by this code; a document without it, or with an
	// older one, is reported by Unindexed. 2: CJK text indexed as bigrams.
	searchVersion = 2
	// maxTerms caps a history's terms: past it, later turns add no new words (Firestore
	// indexes every element of an array, and a search reads whole documents).
	maxTerms = 800
	// maxQueryTerms is Firestore's limit of array-contains-any values.
	maxQueryTerms = 30
	// distanceField receives FindNearest's distance.
	distanceField = "search_distance"
)

var (
	_ store.Searcher       = (*Store)(nil)
	_ store.VectorSearcher = (*Store)(nil)
	_ store.Indexer        = (*Store)(nil)
)

// indexDoc fills next's search fields from prev (the stored document next replaces; nil for a
// new history) and h's contents beyond what prev covers. It may run more than once for one
// save (a retried transaction): it only reads prev and h.
func indexDoc(next *historyDoc, prev *historyDoc, h *record.History) {
	var body []string
	from := 0
	if prev != nil {
		body, from = prev.BodyTerms, int(prev.IndexedCount)
		next.Embedding, next.EmbeddedCount = prev.Embedding, prev.EmbeddedCount
	}
	if from > len(h.Contents) { // rewritten shorter: start over
		body, from = nil, 0
	}
	body = union(body, index.Terms(index.Contents(h.Contents[from:])), maxTerms)
	head := h.Title
	if h.Summary != nil {
		head += "\n" + h.Summary.Text
	}
	next.BodyTerms = body
	next.Terms = union(index.Terms(head), body, maxTerms)
	next.IndexedCount = int64(len(h.Contents))
	next.SearchVersion = searchVersion
}

// union appends the terms of add missing from base, up to max terms in all; base is not
// modified.
func union(base, add []string, max int) []string {
	out := slices.Clone(base)
	if len(out) >= max {
		return out[:max]
	}
	seen := make(map[string]bool, len(out)+len(add))
	for _, t := range out {
		seen[t] = true
	}
	for _, t := range add {
		if len(out) == max {
			break
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// queryTerms are the terms a search asks Firestore for: tokens and compounds first, then the
// single words. A phrase of several words (a dotted address) is asked for through its
// compound, never through its parts ("0", "7" would match everything).
func queryTerms(q store.SearchQuery) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if t != "" && !seen[t] && !index.IsStop(t) && len(out) < maxQueryTerms {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, t := range q.Terms {
		add(t)
	}
	for _, p := range q.Phrases {
		if len(p) == 1 {
			add(p[0])
		}
	}
	// A CJK word is the phrase of its bigrams: ask for them all (a document must then hold
	// every one, see cjkPhrases).
	for _, p := range cjkPhrases(q) {
		for _, t := range p {
			add(t)
		}
	}
	return out
}

// cjkPhrases are q's phrases of several terms that come from CJK text, without their stop
// terms: Firestore has no phrase query, so a document holding all of a phrase's terms is taken
// to hold the phrase.
func cjkPhrases(q store.SearchQuery) [][]string {
	var out [][]string
	for _, p := range q.Phrases {
		if len(p) < 2 || !index.HasCJK(p[0]) {
			continue
		}
		var kept []string
		for _, t := range p {
			if !index.IsStop(t) {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// SearchText implements store.Searcher with one array-contains-any query on the
// (workspace[, alert_id], terms, updated_at desc) index: it reads at most q's limit documents,
// however many histories match. Firestore does not rank: of the most recently updated
// matching histories, those matching more of the query (tokens and compounds count double, a
// title or summary match counts extra) come first. So an old history matching a common word
// can fall outside the window the query reads (see docs/histories-and-search.md).
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	terms := queryTerms(q)
	if len(terms) == 0 {
		return nil, nil
	}
	limit := store.ClampLimit(q.Limit)
	query := s.histories().Where("workspace", "==", s.workspace)
	if q.AlertID != "" {
		query = query.Where("alert_id", "==", string(q.AlertID))
	}
	iter := query.Where("terms", "array-contains-any", terms).OrderBy("updated_at", firestore.Desc).Limit(limit).Documents(ctx)
	defer iter.Stop()
	want := map[string]float64{}
	for _, t := range q.Terms {
		want[t] = 2
	}
	for _, p := range q.Phrases {
		if len(p) == 1 && !index.IsStop(p[0]) && want[p[0]] == 0 {
			want[p[0]] = 1
		}
	}
	phrases := cjkPhrases(q)
	var hits []store.SearchHit
	for {
		snap, err := iter.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to search histories")
		}
		d, err := decodeHistory(snap)
		if err != nil {
			continue // a corrupt document is fsck's business, not a failed search
		}
		h := d.history()
		head := h.Title
		if h.Summary != nil {
			head += " " + h.Summary.Text
		}
		inHead := map[string]bool{}
		for _, t := range index.Terms(head) {
			inHead[t] = true
		}
		var score float64
		has := make(map[string]bool, len(d.Terms))
		for _, t := range d.Terms {
			has[t] = true
			if w := want[t]; w > 0 {
				score += w
				if inHead[t] {
					score += 0.5 * w
				}
			}
		}
		inPhrase := map[string]bool{}
		for _, p := range phrases {
			all, allHead := true, true
			for _, t := range p {
				all = all && has[t]
				allHead = allHead && inHead[t]
			}
			if all {
				score++
				if allHead {
					score += 0.5
				}
				for _, t := range p {
					inPhrase[t] = true
				}
			}
		}
		if score == 0 {
			continue
		}
		matched := func(t string) bool { return want[t] > 0 || inPhrase[t] }
		hits = append(hits, store.SearchHit{
			History: h, Score: score, Features: d.Terms,
			Snippet: index.Snippet(head, matched, 12, store.SnippetOpen, store.SnippetClose),
		})
	}
	slices.SortStableFunc(hits, func(a, b store.SearchHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return hits, nil
}

// SearchVector implements store.VectorSearcher with Firestore's nearest-neighbour query,
// pre-filtered by workspace (and alert): it reads at most limit documents.
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	limit = store.ClampLimit(limit)
	query := s.histories().Where("workspace", "==", s.workspace)
	if alertID != "" {
		query = query.Where("alert_id", "==", string(alertID))
	}
	vq := query.FindNearest("embedding", firestore.Vector32(v), limit, firestore.DistanceMeasureCosine,
		&firestore.FindNearestOptions{DistanceResultField: distanceField})
	iter := vq.Documents(ctx)
	defer iter.Stop()
	var hits []store.SearchHit
	for {
		snap, err := iter.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to search histories by meaning")
		}
		d, err := decodeHistory(snap)
		if err != nil {
			continue
		}
		dist, _ := snap.DataAt(distanceField)
		f, _ := dist.(float64)
		hits = append(hits, store.SearchHit{History: d.history(), Score: 1 - f, Features: d.Terms, Vector: []float32(d.Embedding)})
	}
	return hits, nil
}

// PutEmbedding implements store.VectorSearcher: a transaction adds v to the stored vector when
// it still covers from contents.
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from, to int, v []float32) (bool, error) {
	if !store.ValidHistoryID(id) {
		return false, notFound(id)
	}
	ref := s.histories().Doc(string(id))
	applied := false
	// The transaction changes the document's update time, which the next save of this history
	// is conditional on: that save reads the document again.
	defer s.states.drop(id)
	err := s.fs.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		applied = false
		d, updated, err := s.txDoc(tx, ref, id)
		if err != nil {
			return err
		}
		if int(d.EmbeddedCount) != from {
			return nil
		}
		sum := slices.Clone([]float32(d.Embedding))
		if len(sum) != len(v) {
			if from != 0 {
				return nil
			}
			sum = make([]float32, len(v))
		}
		for i := range v {
			sum[i] += v[i]
		}
		applied = true
		upd := []firestore.Update{{Path: "embedded_count", Value: int64(to)}}
		if len(sum) > 0 {
			upd = append(upd, firestore.Update{Path: "embedding", Value: firestore.Vector32(sum)})
		}
		return tx.Update(ref, upd, firestore.LastUpdateTime(updated))
	})
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return false, err
		}
		return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
	}
	return applied, nil
}

// EmbeddedCount implements store.VectorSearcher.
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	d, _, err := s.getDoc(ctx, id)
	if err != nil {
		return 0, err
	}
	return int(d.EmbeddedCount), nil
}

// Unindexed implements store.Indexer. Firestore cannot query a missing field, so this reads
// the search version of every history of the workspace (a one-off of reindex and fsck). A
// history saved before verdicts existed (no verdict field: --open cannot find it) counts as
// unindexed too: Reindex writes the field.
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	limit = store.ClampLimit(limit)
	q := s.histories().Where("workspace", "==", s.workspace).OrderBy(firestore.DocumentID, firestore.Asc).Select("search_v", "verdict")
	if after != "" {
		q = q.StartAfter(string(after))
	}
	iter := q.Documents(ctx)
	defer iter.Stop()
	var out []record.HistoryID
	for len(out) < limit {
		snap, err := iter.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list unindexed histories")
		}
		v, err := snap.DataAt("search_v")
		_, verr := snap.DataAt("verdict")
		if err != nil || v == nil || asInt(v) < searchVersion || verr != nil {
			out = append(out, record.HistoryID(snap.Ref.ID))
		}
	}
	return out, nil
}

// Reindex implements store.Indexer: the document's search fields are rebuilt from the stored
// transcript, in a transaction conditional on the revision read.
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
	h, err := s.GetHistory(ctx, id)
	if err != nil {
		return err
	}
	ref := s.histories().Doc(string(id))
	defer s.states.drop(id) // see PutEmbedding
	err = s.fs.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		cur, updated, err := s.txDoc(tx, ref, id)
		if err != nil {
			return err
		}
		if cur.Revision != h.Revision {
			return nil // saved meanwhile, and indexed by that save
		}
		var f historyDoc
		indexDoc(&f, nil, h)
		vf := newVerdictFields(h)
		return tx.Update(ref, []firestore.Update{
			{Path: "terms", Value: f.Terms}, {Path: "body_terms", Value: f.BodyTerms},
			{Path: "indexed_count", Value: f.IndexedCount}, {Path: "search_v", Value: f.SearchVersion},
			{Path: "verdict", Value: vf.Verdict}, {Path: "analysts", Value: vf.Analysts},
		}, firestore.LastUpdateTime(updated))
	})
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return err
		}
		return goerr.Wrap(err, "failed to reindex history", goerr.V("history_id", id))
	}
	return nil
}

// txDoc reads a history's document and its update time in a transaction: another workspace's
// is ErrNotFound, like a missing one.
func (s *Store) txDoc(tx *firestore.Transaction, ref *firestore.DocumentRef, id record.HistoryID) (*historyDoc, time.Time, error) {
	snap, err := tx.Get(ref)
	if err != nil {
		if isCode(err, codes.NotFound) {
			return nil, time.Time{}, notFound(id)
		}
		return nil, time.Time{}, err
	}
	d, err := decodeHistory(snap)
	if err != nil {
		return nil, time.Time{}, err
	}
	if d.Workspace != s.workspace {
		return nil, time.Time{}, notFound(id)
	}
	return d, snap.UpdateTime, nil
}

func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}
