package evidence

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/m-mizutani/goerr/v2"
	_ "modernc.org/sqlite" // the SQL engine of the index
)

// The index is one SQLite database per set of folders, in the cache directory (never in a
// folder), holding one table per structured file and the bookkeeping table, which records the
// version (path, size, modification time, device, inode, change time) each table was built
// from. A table is built the
// first time a query names it and rebuilt when its file changes.
//
// The bookkeeping table's name has a "-", which a file's table name never has (tableName
// makes everything outside [A-Za-z0-9_] a "_"): no evidence file can take it over.
const metaTable = `"alertchat-files"`

type indexer struct {
	s    *Set
	mu   sync.Mutex // one build at a time
	path string
	rw   *sql.DB // builds
	ro   *sql.DB // queries: read-only, query_only
	err  error
}

func newIndexer(s *Set) *indexer {
	h := sha256.New()
	for _, f := range s.folders {
		h.Write([]byte(f.root))
		h.Write([]byte{0})
	}
	return &indexer{s: s, path: filepath.Join(s.cacheDir, hex.EncodeToString(h.Sum(nil))[:32]+".db")}
}

// open opens the databases once; an error is kept and returned again.
func (x *indexer) open() error {
	if x.rw != nil || x.err != nil {
		return x.err
	}
	if x.s.cacheDir == "" {
		x.err = errors.New("no cache directory for the evidence index")
		return x.err
	}
	for _, f := range x.s.folders {
		if f.inside(x.path) || strings.HasPrefix(x.path, f.root+string(filepath.Separator)) {
			x.err = errors.New("the cache directory is inside an evidence folder: the index is not written there")
			return x.err
		}
	}
	if err := os.MkdirAll(x.s.cacheDir, 0o700); err != nil {
		x.err = goerr.Wrap(err, "cannot create the evidence cache directory", goerr.V("dir", x.s.cacheDir))
		return x.err
	}
	rw, err := sql.Open("sqlite", "file:"+x.path+"?_pragma=busy_timeout(30000)&_pragma=synchronous(OFF)")
	if err != nil {
		x.err = goerr.Wrap(err, "cannot open the evidence index")
		return x.err
	}
	rw.SetMaxOpenConns(1)
	if err := dropUnrecorded(rw); err != nil {
		_ = rw.Close()
		x.err = goerr.Wrap(err, "cannot open the evidence index")
		return x.err
	}
	if _, err := rw.Exec(`CREATE TABLE IF NOT EXISTS ` + metaTable + `(tbl TEXT PRIMARY KEY, path TEXT, size INTEGER, mtime INTEGER,
		dev INTEGER, ino INTEGER, ctime INTEGER, kind TEXT, rows INTEGER, skipped INTEGER, columns TEXT, error TEXT)`); err != nil {
		_ = rw.Close()
		x.err = goerr.Wrap(err, "cannot open the evidence index")
		return x.err
	}
	_ = os.Chmod(x.path, 0o600)
	ro, err := sql.Open("sqlite", "file:"+x.path+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		_ = rw.Close()
		x.err = goerr.Wrap(err, "cannot open the evidence index")
		return x.err
	}
	x.rw, x.ro = rw, ro
	return nil
}

// dropUnrecorded empties an index that has no bookkeeping table (one an older version wrote,
// under another name): its tables are recorded nowhere, so none would be dropped when its file
// goes, and a query could still read them.
func dropUnrecorded(db *sql.DB) error {
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, strings.Trim(metaTable, `"`)).Scan(&n); err != nil || n > 0 {
		return err
	}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			_ = rows.Close()
			return err
		}
		names = append(names, t)
	}
	_ = rows.Close()
	for _, t := range names {
		if _, err := db.Exec(`DROP TABLE IF EXISTS ` + quoteIdent(t)); err != nil {
			return err
		}
	}
	return nil
}

func (x *indexer) close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	var errs []error
	if x.ro != nil {
		errs = append(errs, x.ro.Close())
	}
	if x.rw != nil {
		errs = append(errs, x.rw.Close())
	}
	x.rw, x.ro = nil, nil
	return errors.Join(errs...)
}

// built is what the index knows of a table.
type built struct {
	path      string
	size, mod int64
	stamp     fileStamp
	kind      string
	rows      int64
	skipped   int64
	columns   []string
	err       string
}

func (b built) current(f file) bool {
	return b.path == f.logical() && b.size == f.size && b.mod == f.mod && b.stamp == f.stamp && b.kind == f.kind
}

// state reads what the index holds for table (ok false when nothing).
func (x *indexer) state(ctx context.Context, table string) (built, bool) {
	var b built
	var cols string
	var dev, ino int64 // SQLite integers are signed: the bits are kept
	err := x.rw.QueryRowContext(ctx, `SELECT path, size, mtime, dev, ino, ctime, kind, rows, skipped, columns, error FROM `+metaTable+` WHERE tbl = ?`, table).
		Scan(&b.path, &b.size, &b.mod, &dev, &ino, &b.stamp.ctime, &b.kind, &b.rows, &b.skipped, &cols, &b.err)
	if err != nil {
		return b, false
	}
	b.stamp.dev, b.stamp.ino = uint64(dev), uint64(ino)
	_ = json.Unmarshal([]byte(cols), &b.columns)
	return b, true
}

// known returns what the index holds for f, when it is current, without building.
func (x *indexer) known(ctx context.Context, f file) (built, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, err := os.Stat(x.path); err != nil {
		return built{}, false // no index yet: do not create one just to look
	}
	if x.open() != nil {
		return built{}, false
	}
	b, ok := x.state(ctx, f.table)
	return b, ok && b.current(f)
}

// ensure builds the tables of files that are missing or out of date, and drops the tables of
// files that are gone. It returns what the index holds for each file.
func (x *indexer) ensure(ctx context.Context, files []file, all []file) (map[string]built, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.open(); err != nil {
		return nil, err
	}
	x.dropGone(ctx, all)
	out := map[string]built{}
	for _, f := range files {
		b, ok := x.state(ctx, f.table)
		if !ok || !b.current(f) {
			var err error
			if b, err = x.build(ctx, f); err != nil {
				return nil, err
			}
		}
		out[f.table] = b
	}
	return out, nil
}

// dropGone drops tables whose file is no longer in the catalog.
func (x *indexer) dropGone(ctx context.Context, all []file) {
	keep := map[string]bool{}
	for _, f := range all {
		if f.table != "" {
			keep[f.table] = true
		}
	}
	rows, err := x.rw.QueryContext(ctx, `SELECT tbl FROM `+metaTable)
	if err != nil {
		return
	}
	var gone []string
	for rows.Next() {
		var t string
		if rows.Scan(&t) == nil && !keep[t] {
			gone = append(gone, t)
		}
	}
	_ = rows.Close()
	for _, t := range gone {
		_, _ = x.rw.ExecContext(ctx, `DROP TABLE IF EXISTS `+quoteIdent(t))
		_, _ = x.rw.ExecContext(ctx, `DELETE FROM `+metaTable+` WHERE tbl = ?`, t)
	}
}

// build (re)creates f's table in one transaction: a failure leaves the old state, and the
// failure is recorded for this version of the file, so it is not read again.
func (x *indexer) build(ctx context.Context, f file) (built, error) {
	b := built{path: f.logical(), size: f.size, mod: f.mod, stamp: f.stamp, kind: f.kind}
	if f.err != "" {
		b.err = f.err
		return b, x.record(ctx, f.table, b)
	}
	conn, err := x.rw.Conn(ctx)
	if err != nil {
		return b, goerr.Wrap(err, "cannot open the evidence index")
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return b, goerr.Wrap(err, "cannot write the evidence index")
	}
	t := &tableBuilder{ctx: ctx, tx: tx, table: f.table, floor: x.s.bombFloor}
	st, rerr := t.fill(f)
	if rerr == nil {
		rerr = t.finish()
	}
	if rerr != nil {
		_ = tx.Rollback()
		_ = conn.Close() // the one connection, which record needs
		if ctx.Err() != nil {
			return b, ctx.Err()
		}
		b.err = rerr.Error()
		b.rows, b.skipped = 0, 0
		return b, x.record(ctx, f.table, b)
	}
	b.rows, b.skipped, b.columns = st.rows, st.skipped, t.names
	if err := recordTx(ctx, tx, f.table, b); err != nil {
		_ = tx.Rollback()
		return b, err
	}
	if err := tx.Commit(); err != nil {
		return b, goerr.Wrap(err, "cannot write the evidence index")
	}
	return b, nil
}

func (x *indexer) record(ctx context.Context, table string, b built) error {
	tx, err := x.rw.BeginTx(ctx, nil)
	if err != nil {
		return goerr.Wrap(err, "cannot write the evidence index")
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+quoteIdent(table)); err != nil {
		_ = tx.Rollback()
		return goerr.Wrap(err, "cannot write the evidence index")
	}
	if err := recordTx(ctx, tx, table, b); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func recordTx(ctx context.Context, tx *sql.Tx, table string, b built) error {
	cols, _ := json.Marshal(b.columns)
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO `+metaTable+`(tbl, path, size, mtime, dev, ino, ctime, kind, rows, skipped, columns, error)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, table, b.path, b.size, b.mod, int64(b.stamp.dev), int64(b.stamp.ino), b.stamp.ctime,
		b.kind, b.rows, b.skipped, string(cols), b.err)
	if err != nil {
		return goerr.Wrap(err, "cannot write the evidence index")
	}
	return nil
}

// tableBuilder streams one file's records into its table, adding a column for every new
// top-level field.
type tableBuilder struct {
	ctx     context.Context
	tx      *sql.Tx
	table   string
	names   []string       // columns, in order
	byKey   map[string]int // field -> column
	lower   map[string]bool
	created bool
	floor   int64
	// dryRun only names the columns (a listing's sample): nothing is written.
	dryRun bool
	insert *sql.Stmt
	ncols  int // columns insert was prepared for
	vals   []any
	n      int64
}

func (t *tableBuilder) fill(f file) (parseStats, error) {
	t.byKey, t.lower = map[string]int{}, map[string]bool{}
	if _, err := t.tx.ExecContext(t.ctx, `DROP TABLE IF EXISTS `+quoteIdent(t.table)); err != nil {
		return parseStats{}, err
	}
	return readEntry(f.entry, f.kind, t.floor, func(rec record) error {
		switch {
		case rec.header != nil:
			return t.columns(rec.header)
		case rec.fields != nil:
			return t.addCSV(rec.fields)
		}
		return t.addJSON(rec) // JSON members, or a log's header and its typed rows
	})
}

func (t *tableBuilder) finish() error {
	if t.insert != nil {
		_ = t.insert.Close()
	}
	if !t.created {
		return t.columns([]string{"value"})
	}
	return nil
}

// columns adds columns for keys (new fields), creating the table the first time.
func (t *tableBuilder) columns(keys []string) error {
	for _, k := range keys {
		name := k
		if name == "" {
			name = "_"
		}
		base := name
		for n := 2; t.lower[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		t.lower[strings.ToLower(name)] = true
		t.byKey[k] = len(t.names)
		t.names = append(t.names, name)
		if t.created && !t.dryRun {
			if _, err := t.tx.ExecContext(t.ctx, `ALTER TABLE `+quoteIdent(t.table)+` ADD COLUMN `+quoteIdent(name)); err != nil {
				return err
			}
		}
	}
	if !t.created && len(t.names) > 0 {
		q := make([]string, len(t.names))
		for i, n := range t.names {
			q[i] = quoteIdent(n)
		}
		if _, err := t.tx.ExecContext(t.ctx, `CREATE TABLE `+quoteIdent(t.table)+`(`+strings.Join(q, ", ")+`)`); err != nil {
			return err
		}
		t.created = true
	}
	return nil
}

func (t *tableBuilder) addCSV(fields []string) error {
	t.vals = t.vals[:0]
	for _, s := range fields {
		t.vals = append(t.vals, csvValue(s))
	}
	return t.exec()
}

func (t *tableBuilder) addJSON(rec record) error {
	var fresh []string
	for _, k := range rec.keys {
		if _, ok := t.byKey[k]; !ok && !slices.Contains(fresh, k) {
			fresh = append(fresh, k) // new fields in the order of the record's text
		}
	}
	if len(fresh) > 0 {
		if err := t.columns(fresh); err != nil {
			return err
		}
	}
	if t.dryRun || rec.schema {
		return nil
	}
	t.vals = append(t.vals[:0], make([]any, len(t.names))...)
	for i, k := range rec.keys {
		if rec.typed != nil {
			t.vals[t.byKey[k]] = rec.typed[i]
		} else {
			t.vals[t.byKey[k]] = jsonValue(rec.vals[i])
		}
	}
	return t.exec()
}

func (t *tableBuilder) exec() error {
	if t.insert == nil || t.ncols != len(t.names) {
		if t.insert != nil {
			_ = t.insert.Close()
		}
		q := `INSERT INTO ` + quoteIdent(t.table) + ` VALUES (?` + strings.Repeat(", ?", len(t.names)-1) + `)`
		st, err := t.tx.PrepareContext(t.ctx, q)
		if err != nil {
			return err
		}
		t.insert, t.ncols = st, len(t.names)
	}
	for len(t.vals) < t.ncols {
		t.vals = append(t.vals, nil)
	}
	if _, err := t.insert.ExecContext(t.ctx, t.vals...); err != nil {
		return err
	}
	t.n++
	if t.n%4096 == 0 && t.ctx.Err() != nil {
		return t.ctx.Err()
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
