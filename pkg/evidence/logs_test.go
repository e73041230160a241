package evidence

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// copyTestdata copies files of testdata/evidence (real Zeek and W3C logs, see its README)
// into a temporary folder.
func copyTestdata(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "evidence", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLogTables: a Zeek conn.log, an IIS log (space separated, its header written twice) and
// a gzip'd CloudFront log (tab separated) are tables, told by their header lines, queried by
// their columns' own names.
func TestLogTables(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, table, kind string
		rows, skipped     int64
		sql               string
		want              [][]any
	}{
		{"conn.log", "conn", kindZeek, 4, 1,
			`SELECT "id.orig_h", "id.resp_p", duration, local_orig, service, tunnel_parents, orig_bytes FROM conn WHERE "id.resp_h" = '203.0.113.7' ORDER BY ts`,
			[][]any{{"10.0.3.7", int64(443), 0.254352, int64(1), "ssl", "[]", int64(77)},
				{"10.0.3.7", int64(22), nil, int64(1), nil, `["Cq1a2b3c4d5e6f7g8h","Cz9y8x7w6v5u4t3s2r"]`, nil}}},
		{"u_ex261120.log", "u_ex261120", kindW3C, 4, 1,
			`SELECT "c-ip", "cs-uri-stem", "cs-uri-query", "sc-status", "cs(User-Agent)" FROM u_ex261120 WHERE "sc-status" >= 300 ORDER BY time`,
			[][]any{{"203.0.113.7", "/owa/auth.owa", nil, int64(302), "Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)"},
				{"203.0.113.7", "/aspnet_client/system_web/shell.aspx", "cmd=whoami", int64(404), "python-requests/2.31.0"}}},
		{"E2EXAMPLE123.2026-11-20-10.a1b2c3d4.gz", "E2EXAMPLE123_2026_11_20_10_a1b2c3d4", kindW3C, 3, 0,
			`SELECT "c-ip", "cs-uri-stem", "sc-status", "time-taken", "cs(User-Agent)" FROM E2EXAMPLE123_2026_11_20_10_a1b2c3d4 WHERE "x-edge-result-type" = 'Error'`,
			[][]any{{"203.0.113.7", "/.env", int64(403), 0.002, "curl/8.5.0"}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			s := openSet(t, copyTestdata(t, c.file))
			res, err := s.Query(context.Background(), c.sql, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Rows, c.want) {
				t.Errorf("rows %v, want %v", res.Rows, c.want)
			}
			files, _, err := s.List(context.Background(), "", 10)
			if err != nil || len(files) != 1 {
				t.Fatal(files, err)
			}
			f := files[0]
			if f.Kind != c.kind || f.Table != c.table || f.Rows != c.rows || f.Skipped != c.skipped || !f.Indexed {
				t.Errorf("listed %+v, want kind %s table %s rows %d skipped %d", f, c.kind, c.table, c.rows, c.skipped)
			}
		})
	}
}

// TestReadZeek covers the header lines a Zeek log may set, the types, and what is skipped.
func TestReadZeek(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data    string
		cols          []string
		rows          [][]any
		skipped       int64
		wantRowsCount int64
	}{
		{"types", "#separator \\x09\n#set_separator\t,\n#empty_field\t(empty)\n#unset_field\t-\n#fields\tts\tn\tok\tnames\tports\tnote\tbig\n" +
			"#types\ttime\tcount\tbool\tset[string]\tvector[port]\tstring\tcount\n" +
			"1.5\t7\tF\ta,(empty),b\t80,443\ttab\\x09here\t18446744073709551615\n" +
			"-\t-\t-\t-\t(empty)\t(empty)\t-\n",
			[]string{"ts", "n", "ok", "names", "ports", "note", "big"},
			[][]any{{1.5, int64(7), int64(0), `["a","","b"]`, `[80,443]`, "tab\there", 1.8446744073709552e19},
				{nil, nil, nil, nil, "[]", "", nil}}, 0, 2},
		{"other separators", "#separator \\x7c\n#set_separator|;\n#empty_field|EMPTY\n#unset_field|NONE\n#fields|a|b\n#types|string|set[count]\nx y|1;2\nNONE|EMPTY\n",
			[]string{"a", "b"}, [][]any{{"x y", "[1,2]"}, {nil, "[]"}}, 0, 2},
		{"malformed lines", "#separator \\x09\nx\t1\n#fields\ta\tb\n#types\tstring\tint\nonly-one\nq\tnot-a-number\r\n\n#close\t2026\n",
			[]string{"a", "b"}, [][]any{{"q", "not-a-number"}}, 2, 1},
		{"header again with a new column", "#separator \\x09\n#fields\ta\tb\n#types\tstring\tcount\nx\t1\n#fields\ta\tb\tc\n#types\tstring\tcount\tdouble\ny\t2\t0.5\n",
			[]string{"a", "b", "c"}, [][]any{{"x", int64(1), nil}, {"y", int64(2), 0.5}}, 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkLogTable(t, "x.log", c.data, kindZeek, c.cols, c.rows, c.wantRowsCount, c.skipped)
		})
	}
}

// TestReadW3C covers IIS (spaces) and CloudFront (tabs) lines, "-" as NULL, numbers, and what
// is skipped.
func TestReadW3C(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, data string
		cols             []string
		rows             [][]any
		skipped          int64
	}{
		{"iis", "u_ex1.log", "#Software: Microsoft Internet Information Services 10.0\r\n#Version: 1.0\r\n#Fields: date c-ip sc-status time-taken\r\n2026-11-20 203.0.113.7 200 0.5\r\n2026-11-20 - 0022 1\r\nshort line\r\n",
			[]string{"date", "c-ip", "sc-status", "time-taken"}, [][]any{{"2026-11-20", "203.0.113.7", int64(200), 0.5}, {"2026-11-20", nil, "0022", int64(1)}}, 1},
		{"cloudfront", "cf", "#Version: 1.0\n#Fields: date time c-ip cs(User-Agent)\n2026-11-20\t10:00:00\t203.0.113.7\tcurl/8.5.0%20x\n",
			[]string{"date", "time", "c-ip", "cs(User-Agent)"}, [][]any{{"2026-11-20", "10:00:00", "203.0.113.7", "curl/8.5.0%20x"}}, 0},
		{"lines before the header", "w.txt", "#Fields: a b\n#Remark: hi\n1 2\n",
			[]string{"a", "b"}, [][]any{{int64(1), int64(2)}}, 0},
		{"as .csv", "w.csv", "#Version: 1.0\n#Fields: a b\nx y\n",
			[]string{"a", "b"}, [][]any{{"x", "y"}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkLogTable(t, c.file, c.data, kindW3C, c.cols, c.rows, int64(len(c.rows)), c.skipped)
		})
	}
}

func checkLogTable(t *testing.T, file, data, kind string, cols []string, rows [][]any, nrows, skipped int64) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openSet(t, dir)
	cat, err := s.catalog()
	if err != nil || len(cat) != 1 {
		t.Fatal(cat, err)
	}
	if cat[0].kind != kind {
		t.Fatalf("kind %s, want %s", cat[0].kind, kind)
	}
	if sample, err := sampleColumns(cat[0], s.bombFloor); err != nil || len(sample) == 0 {
		t.Errorf("sample columns %v %v", sample, err)
	}
	st, err := s.idx.ensure(context.Background(), cat, cat)
	if err != nil {
		t.Fatal(err)
	}
	b := st[cat[0].table]
	if b.err != "" || !reflect.DeepEqual(b.columns, cols) || b.rows != nrows || b.skipped != skipped {
		t.Fatalf("columns %v rows %d skipped %d err %q; want %v %d %d", b.columns, b.rows, b.skipped, b.err, cols, nrows, skipped)
	}
	res, err := s.Query(context.Background(), `SELECT * FROM "`+cat[0].table+`" ORDER BY rowid`, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Rows, rows) {
		t.Errorf("rows %v, want %v", res.Rows, rows)
	}
}

// TestLogKind: the header lines decide, not the name; a text file whose first line is a
// comment stays text.
func TestLogKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ head, want string }{
		{"#separator \\x09\n#set_separator\t,\n#fields\ta\n", kindZeek},
		{"#separator \\x09\n", ""},
		{"#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n#Fields: date time\n", kindW3C},
		{"#Version: 1.0\n#Fields: date time\n", kindW3C},
		{"#Version: 1.0\nno fields\n", ""},
		{"# a comment\n#Fields: x\n", ""},
		{"#!/bin/sh\n", ""},
	} {
		if got := logKind([]byte(c.head)); got != c.want {
			t.Errorf("logKind(%q) = %q, want %q", c.head, got, c.want)
		}
	}
	if got := tableName("zeek/conn.tsv.gz"); got != "zeek_conn" {
		t.Errorf("tableName of a .tsv: %s", got)
	}
}

// fuzzLog checks that read never fails on text, that every row has a value for each column,
// and that no more rows and skipped lines come out than there are lines.
func fuzzLog(t *testing.T, data string, read func(*strings.Reader, func(record) error) (parseStats, error)) {
	var rows int64
	st, err := read(strings.NewReader(data), func(rec record) error {
		if rec.schema {
			return nil
		}
		if len(rec.typed) != len(rec.keys) {
			t.Fatalf("%q: %d values for %d columns", data, len(rec.typed), len(rec.keys))
		}
		rows++
		return nil
	})
	if err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	if st.rows != rows || st.rows+st.skipped > int64(strings.Count(data, "\n")+1) {
		t.Fatalf("%q: rows %d (emitted %d) skipped %d", data, st.rows, rows, st.skipped)
	}
}

func FuzzReadZeek(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "evidence", "conn.log")); err == nil {
		f.Add(string(data))
	}
	f.Add("#separator \\x7c\n#set_separator|;\n#fields|a|b\n#types|set[count]|vector[bool]\n1;x|T;F\n\\x\\x4|-\n")
	f.Add("#separator \\x\n#fields\n\n")
	f.Fuzz(func(t *testing.T, data string) {
		fuzzLog(t, data, func(r *strings.Reader, emit func(record) error) (parseStats, error) { return readZeek(r, emit) })
	})
}

func FuzzReadW3C(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "evidence", "u_ex261120.log")); err == nil {
		f.Add(string(data))
	}
	f.Add("#Version: 1.0\n#Fields: a b\n1\t2\n- -\n#Fields:\n\n x\n")
	f.Fuzz(func(t *testing.T, data string) {
		fuzzLog(t, data, func(r *strings.Reader, emit func(record) error) (parseStats, error) { return readW3C(r, emit) })
	})
}

// TestLogsWorkedExample runs the worked example's queries of docs/evidence.md over the
// testdata logs, in the folders the example puts them in.
func TestLogsWorkedExample(t *testing.T) {
	t.Parallel()
	src := copyTestdata(t, "conn.log", "u_ex261120.log")
	dir := t.TempDir()
	for from, to := range map[string]string{"conn.log": "zeek", "u_ex261120.log": "iis"} {
		if err := os.MkdirAll(filepath.Join(dir, to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(src, from), filepath.Join(dir, to, from)); err != nil {
			t.Fatal(err)
		}
	}
	s := openSet(t, dir)
	for _, c := range []struct {
		sql  string
		want [][]any
	}{
		{`SELECT datetime(ts, 'unixepoch') AS at, "id.orig_h", "id.resp_p", service, orig_bytes, resp_bytes
FROM zeek_conn WHERE "id.resp_h" = '203.0.113.7' ORDER BY ts`,
			[][]any{{"2026-11-20 10:00:01", "10.0.3.7", int64(443), "ssl", int64(77), int64(295)}, {"2026-11-20 10:01:40", "10.0.3.7", int64(22), nil, nil, nil}}},
		{`SELECT date || ' ' || time AS at, "cs-method", "cs-uri-stem", "cs-uri-query", "sc-status", "cs(User-Agent)"
FROM iis_u_ex261120 WHERE "c-ip" = '203.0.113.7' AND "sc-status" >= 300`,
			[][]any{{"2026-11-20 10:00:05", "POST", "/owa/auth.owa", nil, int64(302), "Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64)"},
				{"2026-11-20 10:02:10", "GET", "/aspnet_client/system_web/shell.aspx", "cmd=whoami", int64(404), "python-requests/2.31.0"}}},
	} {
		res, err := s.Query(context.Background(), c.sql, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Rows, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.sql, res.Rows, c.want)
		}
	}
}

// TestLogLongLine: a line longer than a record may be (checked, as for NDJSON, at each 256 KB
// read) is skipped and counted, and the lines after it are read.
func TestLogLongLine(t *testing.T) {
	t.Parallel()
	data := "#Version: 1.0\n#Fields: a b\n1 " + strings.Repeat("x", maxRecord+(512<<10)) + "\n2 y\n"
	checkLogTable(t, "u_ex1.log", data, kindW3C, []string{"a", "b"}, [][]any{{int64(2), "y"}}, 1, 1)
}
