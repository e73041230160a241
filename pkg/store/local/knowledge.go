package local

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

var _ store.KnowledgeBase = (*Store)(nil)

// knowledgeSchema is the team knowledge: one row per entry (the entry as JSON), and its keys
// (store.KnowledgeKeys) in a table of their own, so matching an alert's indicators is an index
// lookup whatever the number of entries; and the vector of an entry's text (embeddings on) in
// knowledge_vectors, as search_vectors and search_state keep a history's: the short quantised
// form a search scans, and the whole vector its best candidates are ranked by. A retired
// entry keeps no vector.
const knowledgeSchema = `
CREATE TABLE IF NOT EXISTS knowledge (
	workspace  TEXT NOT NULL,
	id         TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	retired    INTEGER NOT NULL,
	entry      TEXT NOT NULL,
	PRIMARY KEY (workspace, id)
);
CREATE INDEX IF NOT EXISTS knowledge_by_creation ON knowledge (workspace, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS knowledge_keys (
	workspace TEXT NOT NULL,
	key       TEXT NOT NULL,
	id        TEXT NOT NULL,
	PRIMARY KEY (workspace, key, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_keys_by_entry ON knowledge_keys (id);
CREATE TABLE IF NOT EXISTS knowledge_vectors (
	workspace TEXT NOT NULL,
	id        TEXT NOT NULL,
	scan      BLOB NOT NULL,
	vec       BLOB NOT NULL,
	PRIMARY KEY (workspace, id)
) WITHOUT ROWID;
`

// PutKnowledge implements store.KnowledgeBase: the row and its keys replaced in one
// transaction, so an entry is never half-written.
func (s *Store) PutKnowledge(ctx context.Context, e *record.Knowledge) error {
	if err := store.CheckKnowledge(e); err != nil {
		return err
	}
	c := *e
	c.Workspace = s.workspace
	data, err := json.Marshal(&c)
	if err != nil {
		return goerr.Wrap(err, "failed to encode knowledge entry", goerr.V("knowledge_id", e.ID))
	}
	s.calls.Add("sqlite.tx")
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge (workspace, id, created_at, retired, entry) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (workspace, id) DO UPDATE SET created_at = excluded.created_at, retired = excluded.retired, entry = excluded.entry`,
		s.workspace, string(e.ID), micros(e.CreatedAt), e.RetiredAt != nil, string(data)); err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge_keys WHERE workspace = ? AND id = ?`, s.workspace, string(e.ID)); err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO knowledge_keys (workspace, key, id) VALUES (?, ?, ?)`)
	if err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	defer ins.Close()
	for _, k := range store.KnowledgeKeys(e) {
		if _, err := ins.ExecContext(ctx, s.workspace, k, string(e.ID)); err != nil {
			return s.knowledgeWriteError(err, e.ID)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge_vectors WHERE workspace = ? AND id = ?`, s.workspace, string(e.ID)); err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	if e.RetiredAt == nil && len(e.Vector) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO knowledge_vectors (workspace, id, scan, vec) VALUES (?, ?, ?, ?)`,
			s.workspace, string(e.ID), scanVector(e.Vector), encodeF32(e.Vector)); err != nil {
			return s.knowledgeWriteError(err, e.ID)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.knowledgeWriteError(err, e.ID)
	}
	e.Workspace = s.workspace
	return nil
}

func (s *Store) knowledgeWriteError(err error, id record.KnowledgeID) error {
	if isNoSpace(err) {
		return goerr.Wrap(store.ErrNoSpace, "no space left on the device of "+s.dir+" to record knowledge entry "+string(id),
			goerr.V("knowledge_id", id), goerr.V("dir", s.dir), goerr.V("cause", err.Error()))
	}
	return goerr.Wrap(err, "failed to record knowledge entry", goerr.V("knowledge_id", id))
}

// GetKnowledge implements store.KnowledgeBase: one ID range.
func (s *Store) GetKnowledge(ctx context.Context, id string) (*record.Knowledge, error) {
	found, err := s.queryKnowledge(ctx, "find knowledge entries",
		`SELECT entry FROM knowledge WHERE workspace = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?`,
		s.workspace, id, id+"\uffff", store.KnowledgeCandidates)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read knowledge entry", goerr.V("knowledge_id", id))
	}
	return store.PickKnowledge(id, found)
}

// ListKnowledge implements store.KnowledgeBase on the knowledge_by_creation index.
func (s *Store) ListKnowledge(ctx context.Context, q store.KnowledgeQuery) ([]*record.Knowledge, error) {
	retired := ""
	if !q.All {
		retired = " AND retired = 0"
	}
	out, err := s.queryKnowledge(ctx, "list knowledge entries",
		`SELECT entry FROM knowledge WHERE workspace = ?`+retired+` ORDER BY created_at DESC, id DESC LIMIT ?`,
		s.workspace, store.ClampLimit(q.Limit))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list knowledge entries")
	}
	return out, nil
}

// MatchKnowledge implements store.KnowledgeBase: one query on the keys' primary key, the
// entries holding the most (store.KeyWeight) first, so a common word never crowds out an
// entry that shares an indicator. CROSS JOIN keeps SQLite from walking every entry in
// another order and probing the matches: the matches are read first, then their entries.
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	keys, err := s.selectiveKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	args := make([]any, 0, len(keys)+3)
	args = append(args, s.workspace)
	for _, k := range keys {
		args = append(args, k)
	}
	args = append(args, store.ClampLimit(limit), s.workspace)
	out, err := s.queryKnowledge(ctx, "match knowledge entries",
		`SELECT k.entry FROM (
	SELECT id, SUM(CASE substr(key, 1, 2) WHEN '`+store.KeyIndicator+`' THEN `+weight(store.KeyIndicator)+` WHEN '`+store.KeyAlertType+`' THEN `+weight(store.KeyAlertType)+` ELSE `+weight(store.KeyWord)+` END) AS score
	FROM knowledge_keys WHERE workspace = ? AND key IN (?`+strings.Repeat(", ?", len(keys)-1)+`)
	GROUP BY id ORDER BY score DESC, id LIMIT ?) m
CROSS JOIN knowledge k ON k.workspace = ? AND k.id = m.id
WHERE k.retired = 0 ORDER BY m.score DESC`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to match knowledge entries")
	}
	return out, nil
}

// NearestKnowledge implements store.KnowledgeBase as SearchVector does for histories: a scan of
// the workspace's short quantised vectors, then the exact cosine of the best candidates' whole
// vectors, read with their entries (retired ones left out).
func (s *Store) NearestKnowledge(ctx context.Context, v []float32, limit int) ([]store.KnowledgeHit, error) {
	if len(v) == 0 {
		return nil, nil
	}
	limit = store.ClampLimit(limit)
	keep := max(limit*4, rerankMin)
	q := scanVector(v)
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, `SELECT id, scan FROM knowledge_vectors WHERE workspace = ?`, s.workspace)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to scan knowledge vectors")
	}
	defer rows.Close()
	top, err := scanTop(rows, q, keep)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to scan knowledge vectors")
	}
	rows.Close()
	if len(top) == 0 {
		return nil, nil
	}
	args := []any{s.workspace, s.workspace}
	for _, id := range top {
		args = append(args, id)
	}
	s.calls.Add("sqlite.query")
	rows, err = s.db.QueryContext(ctx, `SELECT v.vec, k.entry FROM knowledge_vectors v JOIN knowledge k ON k.workspace = v.workspace AND k.id = v.id
WHERE v.workspace = ? AND k.workspace = ? AND k.retired = 0 AND v.id IN (?`+strings.Repeat(", ?", len(top)-1)+`)`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read knowledge vectors")
	}
	defer rows.Close()
	var hits []store.KnowledgeHit
	for rows.Next() {
		var vec []byte
		var data string
		if err := rows.Scan(&vec, &data); err != nil {
			return nil, goerr.Wrap(err, "failed to read a knowledge vector")
		}
		full := decodeF32(vec)
		if len(full) != len(v) {
			continue
		}
		e, err := decodeKnowledge(data)
		if err != nil {
			return nil, err
		}
		e.Workspace = s.workspace
		hits = append(hits, store.KnowledgeHit{Entry: e, Score: index.Cosine(v, full)})
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to read knowledge vectors")
	}
	slices.SortFunc(hits, func(a, b store.KnowledgeHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(string(a.Entry.ID), string(b.Entry.ID))
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// commonWord is how many entries a word may be in and still rank a search: a word most entries
// hold ("backup" in a team whose notes are about backups) tells little and costs a read of
// every entry holding it.
const commonWord = 1000

// selectiveKeys leaves out the words of keys that more than commonWord entries hold, unless
// nothing else is left (then the rarest word stays): counting is read from the keys' index
// alone, much cheaper than ranking every entry that holds a common word.
func (s *Store) selectiveKeys(ctx context.Context, keys []string) ([]string, error) {
	var words []any
	for _, k := range keys {
		if strings.HasPrefix(k, store.KeyWord) {
			words = append(words, k)
		}
	}
	if len(words) == 0 {
		return keys, nil
	}
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, `SELECT w.value, (SELECT COUNT(*) FROM (SELECT 1 FROM knowledge_keys kk WHERE kk.workspace = ? AND kk.key = w.value LIMIT `+strconv.Itoa(commonWord+1)+`))
FROM json_each(?) w`, s.workspace, jsonArray(words))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to count knowledge words")
	}
	defer rows.Close()
	common := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, goerr.Wrap(err, "failed to count knowledge words")
		}
		if n > commonWord {
			common[k] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to count knowledge words")
	}
	if len(common) == 0 {
		return keys, nil
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if _, ok := common[k]; !ok {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = append(out, keys[0]) // all common: the first word still ranks
	}
	return out, nil
}

func jsonArray(vs []any) string {
	data, _ := json.Marshal(vs)
	return string(data)
}

func weight(kind string) string { return strconv.Itoa(store.KeyWeight(kind)) }

func (s *Store) queryKnowledge(ctx context.Context, what, query string, args ...any) ([]*record.Knowledge, error) {
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to "+what)
	}
	defer rows.Close()
	var out []*record.Knowledge
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return nil, goerr.Wrap(err, "failed to read a knowledge row", goerr.V("query", what))
		}
		e, err := decodeKnowledge(data)
		if err != nil {
			return nil, err
		}
		e.Workspace = s.workspace
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to "+what)
	}
	return out, nil
}

func decodeKnowledge(data string) (*record.Knowledge, error) {
	var e record.Knowledge
	if err := json.Unmarshal([]byte(data), &e); err != nil {
		return nil, goerr.Wrap(err, "failed to decode knowledge entry")
	}
	return &e, nil
}
