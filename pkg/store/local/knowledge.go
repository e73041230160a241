package local

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.KnowledgeBase = (*Store)(nil)

// knowledgeSchema is the team knowledge: one row per entry (the entry as JSON), and its keys
// (store.KnowledgeKeys) in a table of their own, so matching an alert's indicators is an index
// lookup whatever the number of entries.
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
CREATE INDEX IF NOT EXISTS knowledge_keys_by_entry ON knowledge_keys (workspace, id);
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

// MatchKnowledge implements store.KnowledgeBase: one query on the keys' primary key.
func (s *Store) MatchKnowledge(ctx context.Context, keys []string, limit int) ([]*record.Knowledge, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(keys)+3)
	args = append(args, s.workspace)
	for _, k := range keys {
		args = append(args, k)
	}
	args = append(args, s.workspace, store.ClampLimit(limit))
	out, err := s.queryKnowledge(ctx, "match knowledge entries",
		`SELECT k.entry FROM knowledge k WHERE k.id IN (
	SELECT DISTINCT id FROM knowledge_keys WHERE workspace = ? AND key IN (?`+strings.Repeat(", ?", len(keys)-1)+`))
AND k.workspace = ? AND k.retired = 0 LIMIT ?`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to match knowledge entries")
	}
	return out, nil
}

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
