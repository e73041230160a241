package local

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/store"
)

// A history's embedding is kept as the sum of the embeddings of its parts, weighted by their
// length (vec_sum, float32): a save adds the embedding of what it added, never re-embeds the
// transcript. Cosine similarity ignores length, so the sum is the history's direction. For
// the scan, vec holds that direction normalised and quantised to int8: 100,000 histories of
// 768 dimensions are 77 MB to read instead of 307 MB.

// PutEmbedding implements store.VectorSearcher.
func (s *Store) PutEmbedding(ctx context.Context, id model.HistoryID, from, to int, v []float32) (bool, error) {
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
	if _, err := tx.ExecContext(ctx, `UPDATE search_state SET embedded = ?, vec_sum = ?, vec = ? WHERE history_id = ?`,
		to, encodeF32(acc), quantize(acc), string(id)); err != nil {
		return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
	}
	if err := tx.Commit(); err != nil {
		return false, goerr.Wrap(err, "failed to write embedding", goerr.V("history_id", id))
	}
	return true, nil
}

// EmbeddedCount implements store.VectorSearcher.
func (s *Store) EmbeddedCount(ctx context.Context, id model.HistoryID) (int, error) {
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

// SearchVector implements store.VectorSearcher by scanning the workspace's quantised vectors:
// no vector index, but a read of one small blob per history.
func (s *Store) SearchVector(ctx context.Context, v []float32, alertID model.AlertID, limit int) ([]store.SearchHit, error) {
	limit = store.ClampLimit(limit)
	q := quantizeF(v)
	query := `SELECT history_id, vec FROM search_state WHERE workspace = ? AND vec IS NOT NULL`
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
	type cand struct {
		id  string
		sim float64
		vec []byte
	}
	var top []cand // the limit best, unordered; the worst is found by a scan (limit is small)
	worst := -1
	for rows.Next() {
		var id string
		var raw sql.RawBytes
		if err := rows.Scan(&id, &raw); err != nil {
			return nil, goerr.Wrap(err, "failed to read embedding row")
		}
		if len(raw) != len(q) {
			continue // another dimension: an old embedding model
		}
		sim := dotI8(q, raw)
		if len(top) < limit {
			top = append(top, cand{id, sim, slices.Clone([]byte(raw))})
			if len(top) == limit {
				worst = minCand(top, func(c cand) float64 { return c.sim })
			}
			continue
		}
		if sim > top[worst].sim {
			top[worst] = cand{id, sim, slices.Clone([]byte(raw))}
			worst = minCand(top, func(c cand) float64 { return c.sim })
		}
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to scan embeddings")
	}
	slices.SortFunc(top, func(a, b cand) int { return cmpScore(b.sim, a.sim) })
	hits := make([]store.SearchHit, len(top))
	for i, c := range top {
		hits[i] = store.SearchHit{History: &model.History{ID: model.HistoryID(c.id)}, Score: c.sim, Vector: dequantize(c.vec)}
	}
	return s.fillMeta(ctx, hits)
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
	q := quantizeF(v)
	return q
}

func quantizeF(v []float32) []byte {
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

func dequantize(b []byte) []float32 {
	v := make([]float32, len(b))
	for i, x := range b {
		v[i] = float32(int8(x)) / 127
	}
	return v
}

// dotI8 is the cosine similarity of two quantised unit vectors.
func dotI8(a []byte, b []byte) float64 {
	var s int32
	for i := range a {
		s += int32(int8(a[i])) * int32(int8(b[i]))
	}
	return float64(s) / (127 * 127)
}
