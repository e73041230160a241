package evidence

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/alertchat/alertchat/pkg/tool"
)

// Query limits.
const (
	// QueryTimeout bounds a query's run (not the index build before it).
	QueryTimeout = 10 * time.Second
	// maxValueLength bounds any string or blob a query makes or reads (SQLITE_LIMIT_LENGTH):
	// a row is read whole, so a row of many such values is what it bounds. A stored value
	// longer than this cannot be read by a query (SQLite says "string or blob too big").
	maxValueLength = 4 << 20
	// maxQueryBytes bounds a query's rows, as JSON, counted while they are scanned: the rows
	// past it are left out, and a first row larger by itself has its long strings cut.
	maxQueryBytes = 1 << 20
)

// QueryResult is query_evidence's answer.
type QueryResult struct {
	Columns   []string
	Rows      [][]any
	Truncated bool
}

// UserError is a failure the model is told as it is (bad SQL, an unknown table, a time out);
// other errors are the machine's and are said more briefly.
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

func userErrorf(format string, a ...any) error { return &UserError{Msg: fmt.Sprintf(format, a...)} }

// Query runs one reading SQL statement over the folders' tables, building the tables it names
// first (or rebuilding them when their files changed), and returns at most limit rows.
func (s *Set) Query(ctx context.Context, q string, limit int) (*QueryResult, error) {
	if err := checkSQL(q); err != nil {
		return nil, err
	}
	cat, err := s.catalog()
	if err != nil {
		return nil, err
	}
	byName := tables(cat)
	var need []file
	seen := map[string]bool{}
	for _, w := range sqlIdentifiers(q) {
		lw := strings.ToLower(w)
		if f, ok := byName[lw]; ok && !seen[lw] {
			seen[lw] = true
			need = append(need, f)
		}
	}
	state, err := s.idx.ensure(ctx, need, cat)
	if err != nil {
		return nil, err
	}
	for _, f := range need {
		if b := state[f.table]; b.err != "" {
			return nil, userErrorf("table %s (%s) cannot be read: %s", f.table, f.logical(), b.err)
		}
	}
	qctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.idx.query(qctx, q, limit)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(qctx.Err(), context.DeadlineExceeded):
			return nil, userErrorf("timed out")
		}
		msg := sqliteMessage(err)
		if strings.HasPrefix(msg, "string or blob too big") {
			return nil, userErrorf("%s: a query may make or read values of at most %d MB", msg, maxValueLength>>20)
		}
		if strings.HasPrefix(msg, "no such table") {
			names := tableNames(cat)
			if len(names) == 0 {
				return nil, userErrorf("%s; the evidence folders hold no tables", msg)
			}
			return nil, userErrorf("%s; the tables are: %s", msg, strings.Join(names, ", "))
		}
		return nil, userErrorf("%s", msg)
	}
	return res, nil
}

func (x *indexer) query(ctx context.Context, q string, limit int) (*QueryResult, error) {
	conn, err := x.ro.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	// No ATTACH (it would reach any database file on the machine), and no value large enough
	// to exhaust memory.
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_ATTACHED, 0); err != nil {
		return nil, err
	}
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, maxValueLength); err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	b := newRowBudget(limit)
	for b.room() && rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			row[i] = cell(v)
		}
		b.add(row)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	b.truncated = b.truncated || !b.room() && rows.Next()
	return &QueryResult{Columns: cols, Rows: b.rows, Truncated: b.truncated}, ctx.Err()
}

// rowBudget collects a result's rows within its row limit and maxQueryBytes of JSON, counted
// as the rows come.
type rowBudget struct {
	limit, size int
	rows        [][]any
	truncated   bool
	full        bool
}

func newRowBudget(limit int) *rowBudget {
	return &rowBudget{limit: limit, size: 2 /* the rows' "[]" */, rows: [][]any{}}
}

// room reports whether another row may be taken.
func (b *rowBudget) room() bool { return !b.full && len(b.rows) < b.limit }

// add takes row, its cells JSON-friendly already: past the bytes, it is left out (a first row
// larger by itself has its long strings cut) and no more are taken.
func (b *rowBudget) add(row []any) {
	n := 3 // "[]" and the comma before the row
	for _, v := range row {
		n += jsonSize(v) + 1
	}
	if b.size+n > maxQueryBytes {
		b.truncated, b.full = true, true
		if len(b.rows) == 0 {
			b.rows = append(b.rows, cutRow(row, maxQueryBytes-b.size))
		}
		return
	}
	b.size += n
	b.rows = append(b.rows, row)
}

// jsonSize is about the bytes v takes in JSON: exact for strings (escapes counted), an upper
// bound for numbers.
func jsonSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		n := len(x) + 2
		for i := 0; i < len(x); i++ {
			switch c := x[i]; {
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 5 // \u00XX
			case c == '"' || c == '\\':
				n++
			case c == 0xE2 && i+2 < len(x) && x[i+1] == 0x80 && (x[i+2] == 0xA8 || x[i+2] == 0xA9):
				n += 3 // U+2028, U+2029 as \u2028
			}
		}
		return n
	}
	return 24
}

// cutRow cuts the strings of row, a row larger than budget by itself, to an equal share of
// it each, at a token boundary, so that the row fits and its small cells stay whole.
func cutRow(row []any, budget int) []any {
	share := max(budget/max(len(row), 1)-8, 0)
	for i, v := range row {
		if s, ok := v.(string); ok && jsonSize(s) > share {
			row[i] = tool.CutText(s, share/6) + "…" // a share that holds it even if every byte is escaped
			if c := tool.CutText(s, share-3); jsonSize(c) <= share-3 {
				row[i] = c + "…"
			}
		}
	}
	return row
}

// cell makes a value JSON-friendly: blobs and text as valid UTF-8 strings.
func cell(v any) any {
	switch x := v.(type) {
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		return strings.ToValidUTF8(string(x), "\ufffd")
	case string:
		if !utf8.ValidString(x) {
			return strings.ToValidUTF8(x, "\ufffd")
		}
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

var sqliteCode = regexp.MustCompile(`\s*\(\d+\)$`)

// sqliteMessage is the driver's error without its prefix and code.
func sqliteMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "SQL logic error: ")
	return sqliteCode.ReplaceAllString(msg, "")
}

// refusedWords may not appear as words of a query (outside strings and quoted names): they
// write, reach other files or load code. The connection is read-only and query_only too; this
// says why early and plainly.
var refusedWords = map[string]bool{
	"ATTACH": true, "DETACH": true, "PRAGMA": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"CREATE": true, "DROP": true, "ALTER": true, "VACUUM": true, "REINDEX": true, "ANALYZE": true,
	"SAVEPOINT": true, "RELEASE": true, "BEGIN": true, "COMMIT": true, "ROLLBACK": true,
	"LOAD_EXTENSION": true, "WRITEFILE": true, "READFILE": true, "EDIT": true, "FTS3_TOKENIZER": true,
}

// checkSQL admits one statement that reads: it starts with SELECT, WITH or VALUES, names
// none of refusedWords, and nothing but blanks and comments follows its end.
func checkSQL(q string) error {
	words, err := sqlWords(q)
	if err != nil {
		return err
	}
	return admitReading(words, refusedWords, "SELECT", "WITH", "VALUES")
}

// admitReading admits the words of one statement when the first is one of starts and none is
// refused.
func admitReading(words []string, refused map[string]bool, starts ...string) error {
	if len(words) == 0 {
		return userErrorf("the query is empty")
	}
	if first := strings.ToUpper(words[0]); !slices.Contains(starts, first) {
		return userErrorf("only reading queries run (SELECT or WITH), not %s", first)
	}
	for _, w := range words {
		if refused[strings.ToUpper(w)] {
			return userErrorf("only reading queries run: %s is refused", strings.ToUpper(w))
		}
	}
	return nil
}

// sqlWords are the bare words of q outside strings, quoted names and comments; a ";" may
// only end the text.
func sqlWords(q string) ([]string, error) {
	var words []string
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return words, nil
			}
			i += j + 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return words, nil
			}
			i += j + 4
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == end {
					if end != ']' && j+1 < len(q) && q[j+1] == end {
						j++ // a doubled quote
						continue
					}
					break
				}
			}
			i = j + 1
		case c == ';':
			if hasCode(q[i+1:]) {
				return nil, userErrorf("one statement at a time")
			}
			return words, nil
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			words = append(words, q[i:j])
			i = j
		default:
			i++
		}
	}
	return words, nil
}

// hasCode reports whether q holds anything but blanks, comments and semicolons.
func hasCode(q string) bool {
	w, _ := sqlWords(strings.ReplaceAll(q, ";", " "))
	return len(w) > 0
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// sqlIdentifiers are the names q may use for tables: its bare words and its quoted names.
func sqlIdentifiers(q string) []string {
	words, _ := sqlWords(q)
	for _, m := range quotedName.FindAllStringSubmatch(q, -1) {
		for _, g := range m[1:] {
			if g != "" {
				words = append(words, g)
			}
		}
	}
	return words
}

var quotedName = regexp.MustCompile("\"([^\"]+)\"|`([^`]+)`|\\[([^\\]]+)\\]")
