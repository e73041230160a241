package local

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/search/text"
	"github.com/alertchat/alertchat/pkg/store"
)

// The search index lives in the same database as the metadata and is written in the same
// transaction (SaveHistory calls indexTx before its commit; a trigger follows every deletion of
// a metadata row: rm, prune, fsck), so the index never disagrees with the metadata.
//
// search_fts holds one row of a history's title and summary (kind 0, replaced on every save)
// and one row per save of the text of the contents that save added (kind 1): a save indexes
// only what is new, never the whole transcript again. search_rows maps those rows to their
// history and workspace (FTS5 cannot look rows up by an unindexed column without a scan).
// search_state remembers how many contents are indexed, and the history's embedding.
const searchSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(title, body, tokenize = "unicode61 tokenchars '_'");
CREATE TABLE IF NOT EXISTS search_rows (
	rid        INTEGER PRIMARY KEY,
	history_id TEXT NOT NULL,
	workspace  TEXT NOT NULL,
	alert_id   TEXT NOT NULL,
	kind       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS search_rows_by_history ON search_rows (history_id, kind);
CREATE TABLE IF NOT EXISTS search_state (
	history_id    TEXT PRIMARY KEY,
	workspace     TEXT NOT NULL,
	alert_id      TEXT NOT NULL,
	indexed_count INTEGER NOT NULL,
	embedded      INTEGER NOT NULL DEFAULT 0,
	vec_sum       BLOB,
	vec           BLOB
);
CREATE INDEX IF NOT EXISTS search_state_vectors ON search_state (workspace, alert_id) WHERE vec IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS search_forget AFTER DELETE ON histories BEGIN
	DELETE FROM search_fts WHERE rowid IN (SELECT rid FROM search_rows WHERE history_id = old.id);
	DELETE FROM search_rows WHERE history_id = old.id;
	DELETE FROM search_state WHERE history_id = old.id;
END;
`

const (
	kindMeta = 0
	kindBody = 1
)

var (
	_ store.Searcher       = (*Store)(nil)
	_ store.VectorSearcher = (*Store)(nil)
	_ store.Indexer        = (*Store)(nil)
)

// indexTx brings the index of h up to date inside the save's transaction tx: its title and
// summary, and the text of the contents added since the last indexed save. h.Contents is what
// is being stored, already redacted: nothing else reaches the index.
func (s *Store) indexTx(ctx context.Context, tx *sql.Tx, h, meta *model.History) error {
	var indexed int
	err := tx.QueryRowContext(ctx, `SELECT indexed_count FROM search_state WHERE history_id = ?`, string(h.ID)).Scan(&indexed)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return goerr.Wrap(err, "failed to read search state", goerr.V("history_id", h.ID))
	}
	kinds := []int{kindMeta}
	if indexed > len(h.Contents) { // the transcript was rewritten shorter: start over
		kinds, indexed = []int{kindMeta, kindBody}, 0
	}
	if err := s.dropRows(ctx, tx, h.ID, kinds...); err != nil {
		return err
	}
	summary := ""
	if meta.Summary != nil {
		summary = meta.Summary.Text
	}
	if err := s.addRow(ctx, tx, meta, kindMeta, meta.Title, summary); err != nil {
		return err
	}
	if body := text.Contents(h.Contents[indexed:]); body != "" {
		if err := s.addRow(ctx, tx, meta, kindBody, "", body); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO search_state (history_id, workspace, alert_id, indexed_count) VALUES (?, ?, ?, ?)
		ON CONFLICT (history_id) DO UPDATE SET indexed_count = excluded.indexed_count`,
		string(h.ID), s.workspace, string(meta.AlertID), len(h.Contents))
	if err != nil {
		return goerr.Wrap(err, "failed to write search state", goerr.V("history_id", h.ID))
	}
	return nil
}

func (s *Store) dropRows(ctx context.Context, tx *sql.Tx, id model.HistoryID, kinds ...int) error {
	for _, k := range kinds {
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_fts WHERE rowid IN (SELECT rid FROM search_rows WHERE history_id = ? AND kind = ?)`, string(id), k); err != nil {
			return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", id))
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search_rows WHERE history_id = ? AND kind = ?`, string(id), k); err != nil {
			return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", id))
		}
	}
	return nil
}

func (s *Store) addRow(ctx context.Context, tx *sql.Tx, meta *model.History, kind int, title, body string) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO search_rows (history_id, workspace, alert_id, kind) VALUES (?, ?, ?, ?)`,
		string(meta.ID), s.workspace, string(meta.AlertID), kind)
	if err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	rid, err := res.LastInsertId()
	if err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_fts (rowid, title, body) VALUES (?, ?, ?)`, rid, title, body); err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	return nil
}

// matchExpr is the FTS5 query of q: every phrase and term quoted (so nothing the analyst
// types is FTS5 syntax), joined by OR; bm25 ranks histories matching more and rarer ones
// higher.
func matchExpr(q store.SearchQuery) string {
	var parts []string
	seen := map[string]bool{}
	add := func(ws []string) {
		var kept []string
		for _, w := range ws {
			if len(ws) == 1 && text.IsStop(w) {
				continue
			}
			kept = append(kept, strings.ReplaceAll(w, `"`, `""`))
		}
		if len(kept) == 0 {
			return
		}
		p := `"` + strings.Join(kept, " ") + `"`
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	for _, p := range q.Phrases {
		add(p)
	}
	for _, t := range q.Terms {
		add(text.Words(t))
	}
	return strings.Join(parts, " OR ")
}

// Relative weights of the title (and summary) columns in bm25.
const titleWeight, bodyWeight = 4.0, 1.0

// SearchText implements store.Searcher with the FTS5 index: one query, bounded by the limit,
// whatever the size of the transcripts.
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	expr := matchExpr(q)
	if expr == "" {
		return nil, nil
	}
	limit := store.ClampLimit(q.Limit)
	var sb strings.Builder
	sb.WriteString(`SELECT r.history_id, bm25(search_fts, ?, ?) AS score,
		snippet(search_fts, -1, '` + store.SnippetOpen + `', '` + store.SnippetClose + `', '…', 12)
		FROM search_fts JOIN search_rows r ON r.rid = search_fts.rowid
		WHERE search_fts MATCH ? AND r.workspace = ?`)
	args := []any{titleWeight, bodyWeight, expr, s.workspace}
	if q.AlertID != "" {
		sb.WriteString(` AND r.alert_id = ?`)
		args = append(args, string(q.AlertID))
	}
	// Several rows of one history may match: read a few more rows than histories asked.
	sb.WriteString(` ORDER BY score LIMIT ?`)
	args = append(args, limit*4)
	rows, err := s.db.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to search histories")
	}
	defer rows.Close()
	var hits []store.SearchHit
	at := map[model.HistoryID]int{}
	for rows.Next() {
		var id, snippet string
		var score float64
		if err := rows.Scan(&id, &score, &snippet); err != nil {
			return nil, goerr.Wrap(err, "failed to read search row")
		}
		// bm25 is lower for better matches; a history's rows add up, so one that matches
		// in its title and its turns ranks above one that matches in one place.
		if i, ok := at[model.HistoryID(id)]; ok {
			hits[i].Score -= score
			continue
		}
		at[model.HistoryID(id)] = len(hits)
		hits = append(hits, store.SearchHit{History: &model.History{ID: model.HistoryID(id)}, Score: -score, Snippet: snippet})
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to search histories")
	}
	slices.SortStableFunc(hits, func(a, b store.SearchHit) int { return cmpScore(b.Score, a.Score) })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	hits, err = s.fillMeta(ctx, hits)
	if err != nil {
		return nil, err
	}
	for i := range hits {
		hits[i].Features = text.Terms(hits[i].History.Title + " " + strings.NewReplacer(store.SnippetOpen, "", store.SnippetClose, "").Replace(hits[i].Snippet))
	}
	return hits, nil
}

func cmpScore(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fillMeta replaces each hit's placeholder history with its metadata, dropping hits whose
// metadata is gone (cannot happen inside one transaction, but a corrupt row is skipped, not
// fatal).
func (s *Store) fillMeta(ctx context.Context, hits []store.SearchHit) ([]store.SearchHit, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	args := []any{s.workspace}
	marks := make([]string, len(hits))
	for i, h := range hits {
		marks[i] = "?"
		args = append(args, string(h.History.ID))
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, meta FROM histories WHERE workspace = ? AND id IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read metadata of search results")
	}
	defer rows.Close()
	metas := map[model.HistoryID]*model.History{}
	for rows.Next() {
		var id, meta string
		if err := rows.Scan(&id, &meta); err != nil {
			return nil, goerr.Wrap(err, "failed to read history row")
		}
		if h, err := decodeMeta(model.HistoryID(id), meta); err == nil {
			metas[h.ID] = h
		}
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to read metadata of search results")
	}
	kept := hits[:0]
	for _, h := range hits {
		if m := metas[h.History.ID]; m != nil {
			h.History = m
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// Unindexed implements store.Indexer: histories saved before the index existed (or by an
// older version) have no search state.
func (s *Store) Unindexed(ctx context.Context, after model.HistoryID, limit int) ([]model.HistoryID, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT h.id FROM histories h LEFT JOIN search_state st ON st.history_id = h.id
		WHERE h.workspace = ? AND st.history_id IS NULL AND h.id > ? ORDER BY h.id LIMIT ?`,
		s.workspace, string(after), store.ClampLimit(limit))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list unindexed histories")
	}
	defer rows.Close()
	var ids []model.HistoryID
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, goerr.Wrap(err, "failed to read history row")
		}
		ids = append(ids, model.HistoryID(id))
	}
	return ids, rows.Err()
}

// Reindex implements store.Indexer: the stored transcript is indexed again from its start, in
// one transaction conditional on the revision read, so a save meanwhile (which indexes
// itself) is never undone.
func (s *Store) Reindex(ctx context.Context, id model.HistoryID) error {
	h, err := s.GetHistory(ctx, id)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return goerr.Wrap(err, "failed to begin reindex", goerr.V("history_id", id))
	}
	defer func() { _ = tx.Rollback() }()
	var rev int64
	err = tx.QueryRowContext(ctx, `SELECT revision FROM histories WHERE id = ? AND workspace = ?`, string(id), s.workspace).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(id)
	}
	if err != nil {
		return goerr.Wrap(err, "failed to read history revision", goerr.V("history_id", id))
	}
	if rev != h.Revision {
		return nil // saved meanwhile, and indexed by that save
	}
	if err := s.dropRows(ctx, tx, id, kindMeta, kindBody); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE search_state SET indexed_count = 0 WHERE history_id = ?`, string(id)); err != nil {
		return goerr.Wrap(err, "failed to reset search state", goerr.V("history_id", id))
	}
	if err := s.indexTx(ctx, tx, h, h); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return goerr.Wrap(err, "failed to commit reindex", goerr.V("history_id", id))
	}
	return nil
}
