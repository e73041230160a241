package local

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/index"
)

// The search index lives in the same database as the metadata and is written in the same
// transaction (SaveHistory calls indexTx before its commit; a trigger follows every deletion of
// a metadata row: rm, prune, fsck), so the index never disagrees with the metadata.
//
// search_fts holds one row of a history's title and summary (kind 0, replaced on every save)
// and one row per save of the text of the contents that save added (kind 1): a save indexes
// only what is new, never the whole transcript again. search_rows maps those rows to their
// history and workspace (FTS5 cannot look rows up by an unindexed column without a scan).
// search_state remembers how many contents are indexed and embedded, and the sum of the
// embeddings; search_vectors holds only what a scan by meaning reads (see vector.go).
const searchSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(title, body, tokenize = "unicode61 tokenchars '_'");
CREATE VIRTUAL TABLE IF NOT EXISTS search_vocab USING fts5vocab(search_fts, 'row');
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
	head          TEXT NOT NULL DEFAULT '',
	embedded      INTEGER NOT NULL DEFAULT 0,
	vec_sum       BLOB
);
CREATE TABLE IF NOT EXISTS search_vectors (
	workspace  TEXT NOT NULL,
	history_id TEXT NOT NULL,
	alert_id   TEXT NOT NULL,
	vec        BLOB NOT NULL,
	PRIMARY KEY (workspace, history_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS search_vectors_by_alert ON search_vectors (workspace, alert_id);
CREATE TRIGGER IF NOT EXISTS search_forget AFTER DELETE ON histories BEGIN
	DELETE FROM search_fts WHERE rowid IN (SELECT rid FROM search_rows WHERE history_id = old.id);
	DELETE FROM search_rows WHERE history_id = old.id;
	DELETE FROM search_state WHERE history_id = old.id;
	DELETE FROM search_vectors WHERE workspace = old.workspace AND history_id = old.id;
END;
`

// searchFormat is the database's user_version once its index holds CJK text as bigrams.
const searchFormat = 1

// migrateSearch forgets the index rows of histories indexed before CJK text was indexed as
// bigrams (their Japanese words cannot be found): they become unindexed, which fsck reports and
// reindex repairs. The alert index is dropped, to be built again by createAlertIndex, which
// runs after it. It runs once per database.
func migrateSearch(ctx context.Context, tx *sql.Tx) error {
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v >= searchFormat {
		return nil
	}
	const stale = `SELECT r.history_id FROM search_fts f JOIN search_rows r ON r.rid = f.rowid
		WHERE (f.title || f.body) GLOB '*[ぁ-ヿ㐀-鿿가-힯ｦ-ﾟ]*' AND instr(f.title || f.body, char(30)) = 0`
	for _, q := range []string{
		`DELETE FROM search_state WHERE history_id IN (` + stale + `)`,
		`DELETE FROM search_fts WHERE rowid IN (SELECT rid FROM search_rows WHERE history_id NOT IN (SELECT history_id FROM search_state))`,
		`DELETE FROM search_rows WHERE history_id NOT IN (SELECT history_id FROM search_state)`,
		// The alert index is built again, from the alerts, by createAlertIndex.
		`DROP TABLE IF EXISTS alert_fts`,
		`DROP TABLE IF EXISTS alert_rows`,
		`PRAGMA user_version = ` + strconv.Itoa(searchFormat),
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return goerr.Wrap(err, "failed to migrate search index")
		}
	}
	return nil
}

const (
	kindMeta = 0
	kindBody = 1
)

// searchStmts are the statements of every indexed save, prepared once: preparing them on each
// save cost a third of the index's share of a save.
type searchStmts struct {
	once                               sync.Once
	err                                error
	state, insRow, insFTS, upsertState *sql.Stmt
	delFTS, delRows                    *sql.Stmt
}

const (
	sqlState       = `SELECT indexed_count, head FROM search_state WHERE history_id = ?`
	sqlInsRow      = `INSERT INTO search_rows (history_id, workspace, alert_id, kind) VALUES (?, ?, ?, ?)`
	sqlInsFTS      = `INSERT INTO search_fts (rowid, title, body) VALUES (?, ?, ?)`
	sqlUpsertState = `INSERT INTO search_state (history_id, workspace, alert_id, indexed_count, head) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (history_id) DO UPDATE SET indexed_count = excluded.indexed_count, head = excluded.head`
	sqlDelFTS  = `DELETE FROM search_fts WHERE rowid IN (SELECT rid FROM search_rows WHERE history_id = ? AND kind = ?)`
	sqlDelRows = `DELETE FROM search_rows WHERE history_id = ? AND kind = ?`
)

// stmt returns the prepared statement *p of the store, bound to tx.
func (s *Store) stmt(ctx context.Context, tx *sql.Tx, p **sql.Stmt) (*sql.Stmt, error) {
	st := &s.stmts
	st.once.Do(func() {
		for _, x := range []struct {
			p *(*sql.Stmt)
			q string
		}{{&st.state, sqlState}, {&st.insRow, sqlInsRow}, {&st.insFTS, sqlInsFTS}, {&st.upsertState, sqlUpsertState}, {&st.delFTS, sqlDelFTS}, {&st.delRows, sqlDelRows}} {
			if *x.p, st.err = s.db.PrepareContext(context.WithoutCancel(ctx), x.q); st.err != nil {
				return
			}
		}
	})
	if st.err != nil {
		return nil, goerr.Wrap(st.err, "failed to prepare search index statements")
	}
	return tx.StmtContext(ctx, *p), nil
}

var (
	_ store.Searcher       = (*Store)(nil)
	_ store.VectorSearcher = (*Store)(nil)
	_ store.Indexer        = (*Store)(nil)
)

// indexTx brings the index of h up to date inside the save's transaction tx: its title and
// summary, and the text of the contents added since the last indexed save. h.Contents is what
// is being stored, already redacted: nothing else reaches the index.
func (s *Store) indexTx(ctx context.Context, tx *sql.Tx, h, meta *record.History) error {
	if s.noIndex {
		return nil
	}
	// head is the indexed title and summary: a save that changes neither (most turns) leaves
	// their row alone.
	summary := ""
	if meta.Summary != nil {
		summary = meta.Summary.Text
	}
	head := meta.Title + "\x00" + summary
	var indexed int
	var prevHead string
	stState, err := s.stmt(ctx, tx, &s.stmts.state)
	if err != nil {
		return err
	}
	err = stState.QueryRowContext(ctx, string(h.ID)).Scan(&indexed, &prevHead)
	fresh := errors.Is(err, sql.ErrNoRows)
	if err != nil && !fresh {
		return goerr.Wrap(err, "failed to read search state", goerr.V("history_id", h.ID))
	}
	var kinds []int
	if fresh || head != prevHead {
		kinds = append(kinds, kindMeta)
	}
	if indexed > len(h.Contents) { // the transcript was rewritten shorter: start over
		kinds, indexed = []int{kindMeta, kindBody}, 0
	}
	if !fresh { // a history without search state has no rows (the trigger removes both)
		if err := s.dropRows(ctx, tx, h.ID, kinds...); err != nil {
			return err
		}
	}
	if len(kinds) > 0 && kinds[0] == kindMeta {
		if err := s.addRow(ctx, tx, meta, kindMeta, meta.Title, summary); err != nil {
			return err
		}
	}
	if body := index.Contents(h.Contents[indexed:]); body != "" {
		if err := s.addRow(ctx, tx, meta, kindBody, "", body); err != nil {
			return err
		}
	}
	stUpsert, err := s.stmt(ctx, tx, &s.stmts.upsertState)
	if err != nil {
		return err
	}
	_, err = stUpsert.ExecContext(ctx, string(h.ID), s.workspace, string(meta.AlertID), len(h.Contents), head)
	if err != nil {
		return goerr.Wrap(err, "failed to write search state", goerr.V("history_id", h.ID))
	}
	return nil
}

func (s *Store) dropRows(ctx context.Context, tx *sql.Tx, id record.HistoryID, kinds ...int) error {
	if len(kinds) == 0 {
		return nil
	}
	delFTS, err := s.stmt(ctx, tx, &s.stmts.delFTS)
	if err != nil {
		return err
	}
	delRows, err := s.stmt(ctx, tx, &s.stmts.delRows)
	if err != nil {
		return err
	}
	for _, k := range kinds {
		if _, err := delFTS.ExecContext(ctx, string(id), k); err != nil {
			return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", id))
		}
		if _, err := delRows.ExecContext(ctx, string(id), k); err != nil {
			return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", id))
		}
	}
	return nil
}

func (s *Store) addRow(ctx context.Context, tx *sql.Tx, meta *record.History, kind int, title, body string) error {
	insRow, err := s.stmt(ctx, tx, &s.stmts.insRow)
	if err != nil {
		return err
	}
	insFTS, err := s.stmt(ctx, tx, &s.stmts.insFTS)
	if err != nil {
		return err
	}
	res, err := insRow.ExecContext(ctx, string(meta.ID), s.workspace, string(meta.AlertID), kind)
	if err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	rid, err := res.LastInsertId()
	if err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	// CJK runs go in as their bigrams (index.Segmented), which unicode61 then splits like words.
	if _, err := insFTS.ExecContext(ctx, rid, index.Segmented(title), index.Segmented(body)); err != nil {
		return goerr.Wrap(err, "failed to update search index", goerr.V("history_id", meta.ID))
	}
	return nil
}

// queryPhrases are q's phrases and terms as lists of index terms, deduplicated, without
// single stop words.
func queryPhrases(q store.SearchQuery) [][]string {
	var out [][]string
	seen := map[string]bool{}
	add := func(ws []string) {
		if len(ws) == 0 || len(ws) == 1 && index.IsStop(ws[0]) {
			return
		}
		k := strings.Join(ws, " ")
		if !seen[k] {
			seen[k] = true
			out = append(out, ws)
		}
	}
	for _, p := range q.Phrases {
		add(p)
	}
	for _, t := range q.Terms {
		add(index.Words(t))
	}
	return out
}

// matchExpr is the FTS5 query of phrases: each quoted (so nothing the analyst types is FTS5
// syntax), joined by OR. A one-character CJK word is a prefix query: it is the first half of
// the bigrams it starts, or a run's last character (see index.Segmented).
func matchExpr(phrases [][]string) string {
	parts := make([]string, len(phrases))
	for i, p := range phrases {
		parts[i] = `"` + strings.ReplaceAll(strings.Join(p, " "), `"`, `""`) + `"`
		if isCJKChar(p) {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, " OR ")
}

// isCJKChar reports whether phrase p is one CJK character.
func isCJKChar(p []string) bool {
	return len(p) == 1 && utf8.RuneCountInString(p[0]) == 1 && index.IsCJK([]rune(p[0])[0])
}

// Ranking every row a common word matches would cost in proportion to the corpus, so:
const (
	// selectiveRows: a phrase found in at most this many index rows is ranked over all its
	// matches (bm25). Commoner phrases rank low anyway (bm25's IDF), and are left out when the
	// query has a selective one.
	selectiveRows = 4000
	// recentRows: a query of common phrases only ranks its matches among the most recently
	// indexed rows, this many.
	recentRows = 3000
)

// Relative weights of the title (and summary) columns in bm25.
const titleWeight, bodyWeight = 4.0, 1.0

// rowsOf is how many index rows hold phrase p, at most: the fewest rows of any of its terms.
func (s *Store) rowsOf(ctx context.Context, p []string) (int, error) {
	if isCJKChar(p) {
		// Every term starting with the character: the prefix query's rows, at most.
		var n sql.NullInt64
		err := s.db.QueryRowContext(ctx, `SELECT sum(doc) FROM search_vocab WHERE term >= ? AND term < ?`, p[0], p[0]+"\U0010FFFF").Scan(&n)
		if err != nil {
			return 0, goerr.Wrap(err, "failed to read search vocabulary")
		}
		return int(n.Int64), nil
	}
	least := -1
	for _, w := range p {
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT doc FROM search_vocab WHERE term = ?`, w).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, goerr.Wrap(err, "failed to read search vocabulary")
		}
		if least < 0 || n < least {
			least = n
		}
	}
	return max(least, 0), nil
}

// SearchText implements store.Searcher with the FTS5 index. Its cost is bounded whatever the
// size of the transcripts and of the corpus: selective phrases are ranked over their (few)
// matches, a query of common words only over the most recent matches; snippets are made for
// the results only.
func (s *Store) SearchText(ctx context.Context, q store.SearchQuery) ([]store.SearchHit, error) {
	phrases := queryPhrases(q)
	var selective [][]string
	for _, p := range phrases {
		n, err := s.rowsOf(ctx, p)
		if err != nil {
			return nil, err
		}
		if n > 0 && n <= selectiveRows {
			selective = append(selective, p)
		}
	}
	recent := len(selective) == 0
	if !recent {
		phrases = selective
	}
	if len(phrases) == 0 {
		return nil, nil
	}
	expr := matchExpr(phrases)
	limit := store.ClampLimit(q.Limit)
	var sb strings.Builder
	// CROSS JOIN keeps the full-text match the outer loop: the planner would otherwise scan
	// search_rows and probe the index row by row.
	sb.WriteString(`SELECT f.rowid, r.history_id, bm25(search_fts, ?, ?) AS score
		FROM search_fts f CROSS JOIN search_rows r ON r.rid = f.rowid
		WHERE search_fts MATCH ? AND r.workspace = ?`)
	args := []any{titleWeight, bodyWeight, expr, s.workspace}
	if q.AlertID != "" {
		sb.WriteString(` AND r.alert_id = ?`)
		args = append(args, string(q.AlertID))
	}
	if recent {
		sb.WriteString(` ORDER BY f.rowid DESC LIMIT ?`)
		args = append(args, recentRows)
	} else {
		// Several rows of one history may match: read a few more rows than histories asked.
		sb.WriteString(` ORDER BY score LIMIT ?`)
		args = append(args, limit*4)
	}
	rows, err := s.db.QueryContext(ctx, sb.String(), args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to search histories")
	}
	defer rows.Close()
	var hits []store.SearchHit
	var best []int64 // the best matching row of each hit, for its snippet
	var bestScore []float64
	at := map[record.HistoryID]int{}
	for rows.Next() {
		var rid int64
		var id string
		var score float64
		if err := rows.Scan(&rid, &id, &score); err != nil {
			return nil, goerr.Wrap(err, "failed to read search row")
		}
		// bm25 is lower for better matches; a history's rows add up, so one that matches
		// in its title and its turns ranks above one that matches in one place.
		if i, ok := at[record.HistoryID(id)]; ok {
			hits[i].Score -= score
			if score < bestScore[i] {
				best[i], bestScore[i] = rid, score
			}
			continue
		}
		at[record.HistoryID(id)] = len(hits)
		hits = append(hits, store.SearchHit{History: &record.History{ID: record.HistoryID(id)}, Score: -score})
		best = append(best, rid)
		bestScore = append(bestScore, score)
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to search histories")
	}
	rows.Close()
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(hits[b].Score, hits[a].Score) })
	if len(order) > limit {
		order = order[:limit]
	}
	top := make([]store.SearchHit, len(order))
	rids := make([]int64, len(order))
	for i, j := range order {
		top[i], rids[i] = hits[j], best[j]
	}
	cjk := slices.ContainsFunc(phrases, func(p []string) bool { return index.HasCJK(strings.Join(p, "")) })
	snippets, err := s.snippets(ctx, expr, phraseMatcher(phrases), cjk, rids)
	if err != nil {
		return nil, err
	}
	for i := range top {
		top[i].Snippet = snippets[rids[i]]
	}
	top, err = s.fillMeta(ctx, top)
	if err != nil {
		return nil, err
	}
	for i := range top {
		top[i].Features = index.Terms(top[i].History.Title + " " + store.PlainSnippet(top[i].Snippet))
	}
	return top, nil
}

// snippets makes the snippets of the given index rows: a few words around the match, marked.
// FTS5 makes them, except for a query holding CJK text: FTS5 would cut and mark the indexed
// form of CJK text (its bigrams), so those snippets are made in Go from the rows' own text.
func (s *Store) snippets(ctx context.Context, expr string, match func(string) bool, cjk bool, rids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(rids))
	if len(rids) == 0 {
		return out, nil
	}
	marks := make([]string, len(rids))
	args := []any{expr}
	for i, r := range rids {
		marks[i] = "?"
		args = append(args, r)
	}
	q := `SELECT rowid, snippet(search_fts, -1, '` + store.SnippetOpen + `', '` + store.SnippetClose + `', '…', 12), '', ''
		FROM search_fts WHERE search_fts MATCH ? AND rowid IN (` + strings.Join(marks, ",") + `)`
	if cjk {
		q = `SELECT rowid, '', title, body FROM search_fts WHERE rowid IN (` + strings.Join(marks, ",") + `)`
		args = args[1:]
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to make search snippets")
	}
	defer rows.Close()
	for rows.Next() {
		var rid int64
		var sn, title, body string
		if err := rows.Scan(&rid, &sn, &title, &body); err != nil {
			return nil, goerr.Wrap(err, "failed to make search snippets")
		}
		if cjk {
			for _, text := range []string{title, body} {
				if sn = index.Snippet(index.Unsegment(text), match, 12, store.SnippetOpen, store.SnippetClose); sn != "" {
					break
				}
			}
		}
		out[rid] = sn
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to make search snippets")
	}
	return out, nil
}

// phraseMatcher reports whether a term is one of the phrases' terms (a one-character CJK
// phrase also matches the bigrams it starts, as its prefix query does).
func phraseMatcher(phrases [][]string) func(string) bool {
	want := map[string]bool{}
	var prefixes []string
	for _, p := range phrases {
		for _, t := range p {
			want[t] = true
		}
		if isCJKChar(p) {
			prefixes = append(prefixes, p[0])
		}
	}
	return func(t string) bool {
		if want[t] {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(t, p) {
				return true
			}
		}
		return false
	}
}

// fillMeta replaces each hit's placeholder history with its metadata, dropping hits whose
// metadata is gone (cannot happen inside one transaction, but a corrupt row is skipped, not
// fatal).
func (s *Store) fillMeta(ctx context.Context, hits []store.SearchHit) ([]store.SearchHit, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	args := make([]any, len(hits))
	marks := make([]string, len(hits))
	for i, h := range hits {
		marks[i] = "?"
		args[i] = string(h.History.ID)
	}
	// By primary key, the workspace checked on each row: "workspace = ? AND id IN (...)"
	// lets the planner walk the workspace's whole listing index instead.
	rows, err := s.db.QueryContext(ctx, `SELECT id, workspace, meta FROM histories WHERE id IN (`+strings.Join(marks, ",")+`)`, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read metadata of search results")
	}
	defer rows.Close()
	metas := map[record.HistoryID]*record.History{}
	for rows.Next() {
		var id, ws, meta string
		if err := rows.Scan(&id, &ws, &meta); err != nil {
			return nil, goerr.Wrap(err, "failed to read history row")
		}
		if ws != s.workspace {
			continue
		}
		if h, err := decodeMeta(record.HistoryID(id), meta); err == nil {
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
func (s *Store) Unindexed(ctx context.Context, after record.HistoryID, limit int) ([]record.HistoryID, error) {
	return queryIDs[record.HistoryID](ctx, s.db, "list unindexed histories",
		`SELECT h.id FROM histories h LEFT JOIN search_state st ON st.history_id = h.id
		WHERE h.workspace = ? AND st.history_id IS NULL AND h.id > ? ORDER BY h.id LIMIT ?`,
		s.workspace, string(after), store.ClampLimit(limit))
}

// Reindex implements store.Indexer: the stored transcript is indexed again from its start, in
// one transaction conditional on the revision read, so a save meanwhile (which indexes
// itself) is never undone.
func (s *Store) Reindex(ctx context.Context, id record.HistoryID) error {
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
	if _, err := tx.ExecContext(ctx, `UPDATE search_state SET indexed_count = 0, head = '' WHERE history_id = ?`, string(id)); err != nil {
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
