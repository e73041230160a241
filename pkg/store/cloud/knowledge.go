package cloud

import (
	"context"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.KnowledgeBase = (*Store)(nil)

// knowledgeCollection holds the team knowledge: one document per entry and workspace,
// document ID "{workspace}:{entry ID}".
const knowledgeCollection = "knowledge"

// maxArrayContainsAny is how many values one array-contains-any filter takes.
const maxArrayContainsAny = 30

// knowledgeDoc is the Firestore document of a knowledge entry. retired mirrors retired_at so
// that "not retired" is an equality filter; keys are store.KnowledgeKeys, for
// array-contains-any; embedding is the text's vector (embeddings on), for FindNearest, absent
// on a retired entry.
type knowledgeDoc struct {
	ID         string              `firestore:"id"`
	Workspace  string              `firestore:"workspace"`
	Text       string              `firestore:"text"`
	Indicators []string            `firestore:"indicators"`
	AlertTypes []string            `firestore:"alert_types"`
	Source     *knowledgeSourceDoc `firestore:"source"`
	Author     string              `firestore:"author"`
	CreatedAt  time.Time           `firestore:"created_at"`
	ExpiresAt  *time.Time          `firestore:"expires_at"`
	RetiredAt  *time.Time          `firestore:"retired_at"`
	Retired    bool                `firestore:"retired"`
	Keys       []string            `firestore:"keys"`
	Embedding  firestore.Vector32  `firestore:"embedding,omitempty"`
}

type knowledgeSourceDoc struct {
	HistoryID string `firestore:"history_id"`
	Verdict   string `firestore:"verdict"`
}

func (s *Store) knowledge() *firestore.CollectionRef { return s.fs.Collection(knowledgeCollection) }

func knowledgeDocID(workspace, id string) string { return workspace + ":" + idEscaper.Replace(id) }

func timePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := normTime(*t)
	return &u
}

func (d *knowledgeDoc) entry() *record.Knowledge {
	e := &record.Knowledge{
		ID: record.KnowledgeID(d.ID), Workspace: d.Workspace, Text: d.Text, Indicators: d.Indicators,
		AlertTypes: d.AlertTypes, Author: d.Author, CreatedAt: d.CreatedAt.UTC(),
	}
	if d.Source != nil {
		e.Source = &record.KnowledgeSource{HistoryID: record.HistoryID(d.Source.HistoryID), Verdict: record.Verdict(d.Source.Verdict)}
	}
	if d.ExpiresAt != nil {
		t := d.ExpiresAt.UTC()
		e.ExpiresAt = &t
	}
	if d.RetiredAt != nil {
		t := d.RetiredAt.UTC()
		e.RetiredAt = &t
	}
	return e
}

// PutKnowledge implements store.KnowledgeBase: one Set of the whole document, so a retried
// write is the same write.
func (s *Store) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	if err := store.CheckKnowledge(e); err != nil {
		return err
	}
	doc := &knowledgeDoc{
		ID: string(e.ID), Workspace: s.workspace, Text: e.Text, Indicators: e.Indicators, AlertTypes: e.AlertTypes,
		Author: e.Author, CreatedAt: normTime(e.CreatedAt), ExpiresAt: timePtr(e.ExpiresAt), RetiredAt: timePtr(e.RetiredAt),
		Retired: e.RetiredAt != nil, Keys: store.KnowledgeKeys(e),
	}
	if e.Source != nil {
		doc.Source = &knowledgeSourceDoc{HistoryID: string(e.Source.HistoryID), Verdict: string(e.Source.Verdict)}
	}
	if e.RetiredAt == nil && len(e.Vector) > 0 {
		doc.Embedding = firestore.Vector32(e.Vector)
	}
	s.calls.Add("firestore.set")
	if _, err := s.knowledge().Doc(knowledgeDocID(s.workspace, string(e.ID))).Set(ctx, doc); err != nil {
		return goerr.Wrap(err, "failed to record knowledge entry", goerr.V("knowledge_id", e.ID))
	}
	e.Workspace, e.CreatedAt = s.workspace, doc.CreatedAt
	return nil
}

// GetKnowledge implements store.KnowledgeBase: one document ID range of the workspace.
func (s *Store) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	if id == "" || len(id) > 64 {
		return nil, goerr.Wrap(store.ErrNotFound, "knowledge entry "+id+" not found", goerr.V("knowledge_id", id))
	}
	coll := s.knowledge()
	from := knowledgeDocID(s.workspace, id)
	s.calls.Add("firestore.query")
	snaps, err := coll.Where(firestore.DocumentID, ">=", coll.Doc(from)).
		Where(firestore.DocumentID, "<", coll.Doc(from+"\uf8ff")).
		OrderBy(firestore.DocumentID, firestore.Asc).Limit(store.KnowledgeCandidates).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read knowledge entry", goerr.V("knowledge_id", id))
	}
	found, err := s.decodeKnowledge(snaps)
	if err != nil {
		return nil, err
	}
	return store.PickKnowledge(id, found)
}

// ListKnowledge implements store.KnowledgeBase: one query on the (workspace, [retired,]
// created_at desc, __name__ desc) index.
func (s *Store) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	s.calls.Add("firestore.query")
	snaps, err := s.listKnowledgeQuery(q.All).Limit(store.ClampLimit(q.Limit)).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list knowledge entries", goerr.V("workspace", s.workspace))
	}
	return s.decodeKnowledge(snaps)
}

// MatchKnowledge implements store.KnowledgeBase: one array-contains-any query per 30 keys on
// the (workspace, retired, keys) index, all at once, so the keys of one alert cost one round
// trip. The entries of the indicator and alert type queries come first.
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	limit = store.ClampLimit(limit)
	// Indicators and alert types are asked apart from words, so that a word many entries hold
	// never fills a query's limit before an entry sharing an indicator is read.
	var chunks [][]string
	var strong, words []string
	for _, k := range keys {
		if store.KeyWeight(k) > store.KeyWeight(store.KeyWord) {
			strong = append(strong, k)
		} else {
			words = append(words, k)
		}
	}
	for _, group := range [][]string{strong, words} {
		for len(group) > 0 {
			n := min(len(group), maxArrayContainsAny)
			chunks = append(chunks, group[:n])
			group = group[n:]
		}
	}
	results := make([][]*firestore.DocumentSnapshot, len(chunks))
	errs := make([]error, len(chunks))
	var wg sync.WaitGroup
	for i, chunk := range chunks {
		vals := make([]any, len(chunk))
		for j, k := range chunk {
			vals[j] = k
		}
		s.calls.Add("firestore.query")
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = s.matchKnowledgeQuery(vals).Limit(limit).Documents(ctx).GetAll()
		}()
	}
	wg.Wait()
	var out []*record.Knowledge
	seen := map[record.KnowledgeID]bool{}
	for i := range chunks {
		if errs[i] != nil {
			return nil, goerr.Wrap(errs[i], "failed to match knowledge entries", goerr.V("workspace", s.workspace))
		}
		es, err := s.decodeKnowledge(results[i])
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if !seen[e.ID] && len(out) < limit {
				seen[e.ID] = true
				out = append(out, e)
			}
		}
	}
	return out, nil
}

// NearestKnowledge implements store.KnowledgeBase: one nearest-neighbour query on the
// (workspace, retired, embedding) vector index; it reads at most limit documents.
func (s *Store) NearestKnowledge(ctx context.Context, v []float32, limit int) ([]store.KnowledgeHit, error) {
	if len(v) == 0 {
		return nil, nil
	}
	s.calls.Add("firestore.query")
	snaps, err := s.nearestKnowledgeQuery(v, store.ClampLimit(limit)).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to search knowledge entries by meaning", goerr.V("workspace", s.workspace))
	}
	hits := make([]store.KnowledgeHit, 0, len(snaps))
	for _, snap := range snaps {
		es, err := s.decodeKnowledge([]*firestore.DocumentSnapshot{snap})
		if err != nil {
			return nil, err
		}
		if len(es) == 0 {
			continue
		}
		dist, _ := snap.DataAt(distanceField)
		f, _ := dist.(float64)
		hits = append(hits, store.KnowledgeHit{Entry: es[0], Score: 1 - f})
	}
	return hits, nil
}

// nearestKnowledgeQuery asks for the workspace's entries not retired nearest to v.
func (s *Store) nearestKnowledgeQuery(v []float32, limit int) firestore.VectorQuery {
	return s.knowledge().Where("workspace", "==", s.workspace).Where("retired", "==", false).
		FindNearest("embedding", firestore.Vector32(v), limit, firestore.DistanceMeasureCosine,
			&firestore.FindNearestOptions{DistanceResultField: distanceField})
}

// listKnowledgeQuery lists the workspace's entries (the retired ones with all), newest first.
func (s *Store) listKnowledgeQuery(all bool) firestore.Query {
	query := s.knowledge().Where("workspace", "==", s.workspace)
	if !all {
		query = query.Where("retired", "==", false)
	}
	return query.OrderBy("created_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc)
}

// matchKnowledgeQuery selects the workspace's entries not retired holding any of vals.
func (s *Store) matchKnowledgeQuery(vals []any) firestore.Query {
	return s.knowledge().Where("workspace", "==", s.workspace).Where("retired", "==", false).
		Where("keys", "array-contains-any", vals)
}

// decodeKnowledge decodes query results, dropping any document of another workspace (the
// queries never return one; the check keeps isolation independent of them).
func (s *Store) decodeKnowledge(snaps []*firestore.DocumentSnapshot) ([]*record.Knowledge, error) {
	out := make([]*record.Knowledge, 0, len(snaps))
	for _, snap := range snaps {
		var d knowledgeDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, goerr.Wrap(err, "failed to decode knowledge entry", goerr.V("doc", snap.Ref.ID))
		}
		if d.Workspace != s.workspace {
			continue
		}
		out = append(out, d.entry())
	}
	return out, nil
}
