package local

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// A history's embedding is kept as the sum of the embeddings of its parts, weighted by their
// length (search_state.vec_sum, float32): a save adds the embedding of what it added, never
// re-embeds the transcript. Cosine similarity ignores length, so the sum is the history's
// direction.
//
// A search scans search_vectors, which holds only the leading scanDims dimensions of each
// direction, normalised and quantised to int8 (embedding models trained Matryoshka-style, as
// Gemini's are, keep their leading dimensions meaningful on their own): 100,000 histories are
// 25 MB to read. The best candidates of that scan are then ranked by the exact cosine of their
// full vectors.
const (
	scanDims = 256
	// rerankMin is how many candidates of the scan, at least, are ranked exactly.
	rerankMin = 200
)

// scanVector is what search_vectors holds of v.
func scanVector(v []float32) []byte { return quantize(v[:min(len(v), scanDims)]) }

// PutEmbedding implements store.VectorSearcher.
func (s *Store) PutEmbedding(ctx context.Context, id record.HistoryID, from, to int, v []float32) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, goerr.Wrap(err, "failed to begin embedding update", goerr.V("history_id", id))
	}
	defer func() { _ = tx.Rollback() }()
	var embedded int
	var sum []byte
	err = tx.QueryRowContext(ctx, `SELECT embedded, vec_sum FROM search_state WHERE history_id = ? AND workspace = ?`, string(id), s.workspace).Scan(&embedded, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return false, notFound(id) // not saved, or deleted meanwhile
	}
	if err != nil {
		return false, goerr.Wrap(err, "failed to read embedding", goerr.V("history_id", id))
	}
	if embedded != from {
		return false, nil
	}
	acc := decodeF32(sum)
	if len(acc) != len(v) {
		acc = make([]float32, len(v)) // first vector, or the dimension changed: start over
		if from != 0 {
			return false, nil
		}
	}
	for i := range v {
		acc[i] += v[i]
	}
	if _, err := tx.ExecContext(ctx, `UPDATE search_state SET embedded = ?, vec_sum = ? WHERE history_id = ?`,
		to, encodeF32(acc), string(id)); err != nil {
		return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
	}
	if len(acc) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO search_vectors (workspace, history_id, alert_id, vec) SELECT workspace, history_id, alert_id, ? FROM search_state WHERE history_id = ?
			ON CONFLICT (workspace, history_id) DO UPDATE SET vec = excluded.vec`, scanVector(acc), string(id)); err != nil {
			return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
		}
	}
	if err := tx.Commit(); err != nil {
		return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
	}
	return true, nil
}

// EmbeddedCount implements store.VectorSearcher.
func (s *Store) EmbeddedCount(ctx context.Context, id record.HistoryID) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT embedded FROM search_state WHERE history_id = ? AND workspace = ?`, string(id), s.workspace).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound(id)
	}
	if err != nil {
		return 0, goerr.Wrap(err, "failed to read embedding state", goerr.V("history_id", id))
	}
	return n, nil
}

// SearchVector implements store.VectorSearcher: a scan of the workspace's short quantised
// vectors (no vector index: one small row a history), then the exact cosine of the best
// candidates' full vectors.
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID record.AlertID, limit int) ([]store.SearchHit, error) {
	limit = store.ClampLimit(limit)
	keep := max(limit*4, rerankMin)
	q := scanVector(v)
	query := `SELECT history_id, vec FROM search_vectors WHERE workspace = ?`
	args := []any{s.workspace}
	if alertID != "" {
		query += ` AND alert_id = ?`
		args = append(args, string(alertID))
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to scan embeddings")
	}
	defer rows.Close()
	top, err := scanTop(rows, q, keep)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to scan embeddings")
	}
	rows.Close()
	hits, err := s.rerank(ctx, v, slices.Values(top), len(top))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(hits, func(a, b store.SearchHit) int { return cmp.Compare(b.Score, a.Score) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return s.fillMeta(ctx, hits)
}

// rerank scores the candidates by the exact cosine of their full vectors with v.
func (s *Store) rerank(ctx context.Context, v []float32, ids func(func(string) bool), n int) ([]store.SearchHit, error) {
	if n == 0 {
		return nil, nil
	}
	args := make([]any, 0, n)
	marks := make([]string, 0, n)
	for id := range ids {
		args = append(args, id)
		marks = append(marks, "?")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT history_id, workspace, vec_sum FROM search_state WHERE history_id IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read embeddings")
	}
	defer rows.Close()
	var hits []store.SearchHit
	for rows.Next() {
		var id, ws string
		var sum []byte
		if err := rows.Scan(&id, &ws, &sum); err != nil {
			return nil, goerr.Wrap(err, "failed to read embedding row")
		}
		if ws != s.workspace {
			continue
		}
		full := decodeF32(sum)
		if len(full) != len(v) {
			continue
		}
		hits = append(hits, store.SearchHit{History: &record.History{ID: record.HistoryID(id)}, Score: index.Cosine(v, full), Vector: full})
	}
	return hits, rows.Err()
}

// scanTop reads rows of (id, short quantised vector) and returns the IDs of the keep nearest
// to q, unordered: the first pass of a vector search, before the exact rerank. A vector of
// another dimension (an old embedding model) is passed over.
func scanTop(rows *sql.Rows, q []byte, keep int) ([]string, error) {
	type cand struct {
		id  string
		sim float64
	}
	var top []cand // the keep best, unordered; the worst is found again on a replacement
	worst := -1
	for rows.Next() {
		var id, raw sql.RawBytes
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, err
		}
		if len(raw) != len(q) {
			continue
		}
		sim := dotI8(q, raw)
		switch {
		case len(top) < keep:
			top = append(top, cand{string(id), sim})
			if len(top) == keep {
				worst = minCand(top, func(c cand) float64 { return c.sim })
			}
		case sim > top[worst].sim:
			top[worst] = cand{string(id), sim}
			worst = minCand(top, func(c cand) float64 { return c.sim })
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids := make([]string, len(top))
	for i, c := range top {
		ids[i] = c.id
	}
	return ids, nil
}

func minCand[T any](cs []T, key func(T) float64) int {
	m := 0
	for i := range cs {
		if key(cs[i]) < key(cs[m]) {
			m = i
		}
	}
	return m
}

func encodeF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// quantize normalises v and scales it to int8 (stored as bytes).
func quantize(v []float32) []byte {
	var n float64
	for _, f := range v {
		n += float64(f) * float64(f)
	}
	n = math.Sqrt(n)
	b := make([]byte, len(v))
	if n == 0 {
		return b
	}
	for i, f := range v {
		b[i] = byte(int8(math.Round(float64(f) / n * 127)))
	}
	return b
}

// dotI8 is the cosine similarity of two quantised unit vectors.
func dotI8(a []byte, b []byte) float64 {
	var s int32
	for i := range a {
		s += int32(int8(a[i])) * int32(int8(b[i]))
	}
	return float64(s) / (127 * 127)
}
