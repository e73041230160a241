package evidence

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGzipBomb: a .gz that decompresses past its bound is an error result, in bounded time,
// for every tool, and leaves no table behind.
func TestGzipBomb(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// 16 MB of zeros compress to about 16 KB: 1000 times, a bomb past the 200x ratio once the
	// floor is lowered to 1 MB for the test (the real floor is 256 MB).
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 16 {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	// Zeros are binary: make it look like NDJSON of one endless line.
	var nd bytes.Buffer
	zw2, _ := gzip.NewWriterLevel(&nd, gzip.BestCompression)
	_, _ = zw2.Write([]byte(`{"a":"`))
	line := bytes.Repeat([]byte("A"), 1<<20)
	for range 16 {
		_, _ = zw2.Write(line)
	}
	_ = zw2.Close()
	for name, data := range map[string][]byte{"bomb.log.gz": buf.Bytes(), "bomb.ndjson.gz": nd.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openSet(t, dir)
	s.bombFloor = 1 << 20
	start := time.Now()
	g := call(t, s, "grep_evidence", map[string]any{"pattern": "x", "path": "bomb.ndjson.gz"})
	if e, _ := g["error"].(string); !strings.Contains(e, "decompresses to more than") {
		t.Errorf("grep: %v", g)
	}
	q := call(t, s, "query_evidence", map[string]any{"sql": "SELECT count(*) FROM bomb"})
	if e, _ := q["error"].(string); !strings.Contains(e, "cannot be read") || !strings.Contains(e, "decompresses to more than") {
		t.Errorf("query: %v", q)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	// The failure is remembered for this version of the file: no table, and no second read.
	if _, err := s.idx.query(context.Background(), `SELECT count(*) FROM bomb`, 1); err == nil {
		t.Error("a table was left behind")
	}
	start = time.Now()
	call(t, s, "query_evidence", map[string]any{"sql": "SELECT count(*) FROM bomb"})
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the second query read the bomb again (%v)", d)
	}
}

// TestRebuiltWhenChanged: the index is reused across Sets (a later chat) and rebuilt when the
// file's size or time changes.
func TestRebuiltWhenChanged(t *testing.T) {
	t.Parallel()
	dir := caseFolder(t)
	cache := t.TempDir()
	count := func(s *Set) any {
		res, err := s.Query(context.Background(), "SELECT count(*) FROM dns", 1)
		if err != nil {
			t.Fatal(err)
		}
		return res.Rows[0][0]
	}
	s1, _ := Open([]string{dir}, Options{CacheDir: cache})
	if n := count(s1); n != int64(3) {
		t.Fatalf("count %v", n)
	}
	_ = s1.Close()
	s2, _ := Open([]string{dir}, Options{CacheDir: cache})
	defer s2.Close()
	cat, _ := s2.catalog()
	if _, ok := s2.idx.known(context.Background(), tables(cat)["dns"]); !ok {
		t.Error("a second chat does not find the index")
	}
	p := filepath.Join(dir, "dns.ndjson")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"ts":"2026-11-20T10:09:00Z","client":"10.0.3.7","query":"new.example.org"}` + "\n")
	_ = f.Close()
	if n := count(s2); n != int64(4) {
		t.Errorf("after a change: count %v, want 4", n)
	}
	// A file removed: its table goes.
	if err := os.Remove(filepath.Join(dir, "hosts.csv")); err != nil {
		t.Fatal(err)
	}
	count(s2)
	if _, err := s2.idx.query(context.Background(), "SELECT * FROM hosts", 1); err == nil {
		t.Error("the table of a removed file is still there")
	}
}

// TestReadRecords covers the shapes: envelopes, arrays, a single object, NDJSON in .log and
// .json, CSV with a BOM, blank and repeated header names, and what is skipped.
func TestReadRecords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, file, data string
		kind             string
		cols             []string
		rows, skipped    int64
		err              string
	}{
		{"records", "ct.json", `{"Records":[{"a":1},{"b":2}]}`, kindJSON, []string{"a", "b"}, 2, 0, ""},
		{"findings with more", "f.json", `{"NextToken":"x","Findings":[{"Id":"f1","Severity":{"Label":"HIGH"}}],"Other":[1]}`, kindJSON, []string{"Id", "Severity"}, 1, 0, ""},
		{"items", "i.json", `{"items":[{"x":1}]}`, kindJSON, []string{"x"}, 1, 0, ""},
		{"entries", "e.json", `{"entries":[{"x":1}]}`, kindJSON, []string{"x"}, 1, 0, ""},
		{"logs", "l.json", `{"logs":[{"x":1}]}`, kindJSON, []string{"x"}, 1, 0, ""},
		{"array", "a.json", `[{"x":1},{"x":2,"y":[1,2]}, 3]`, kindJSON, []string{"x", "y", "value"}, 3, 0, ""},
		{"one object", "o.json", `{"id":"x","nested":{"a":1}}`, kindJSON, []string{"id", "nested"}, 1, 0, ""},
		{"pretty envelope", "p.json", "{\n  \"Records\": [\n    {\"a\": 1}\n  ]\n}\n", kindJSON, []string{"a"}, 1, 0, ""},
		{"ndjson as .json", "n.json", "{\"a\":1}\n{\"a\":2}\n", kindNDJSON, []string{"a"}, 2, 0, ""},
		{"ndjson as .log", "n.log", "{\"a\":1}\n{\"a\":2}\nnot json\n[1]\n\n", kindNDJSON, []string{"a"}, 2, 2, ""},
		{"case-colliding keys", "c.jsonl", `{"Name":1,"name":2}` + "\n", kindNDJSON, []string{"Name", "name_2"}, 1, 0, ""},
		{"csv", "h.csv", "\ufeffhost,,host\nа,b,c\nx,y\n", kindCSV, []string{"host", "col_2", "host_2"}, 1, 1, ""},
		{"broken json", "b.json", `[{"a":1},{"a":`, kindJSON, nil, 0, 0, "the JSON ends early"},
		{"text", "t.txt", "hello\n", kindText, nil, 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openSet(t, dir)
			cat, err := s.catalog()
			if err != nil || len(cat) != 1 {
				t.Fatal(cat, err)
			}
			f := cat[0]
			if f.kind != c.kind {
				t.Fatalf("kind %s, want %s", f.kind, c.kind)
			}
			if !f.structured() {
				return
			}
			st, err := s.idx.ensure(context.Background(), cat, cat)
			if err != nil {
				t.Fatal(err)
			}
			b := st[f.table]
			if c.err != "" {
				if !strings.Contains(b.err, c.err) {
					t.Errorf("error %q, want %q", b.err, c.err)
				}
				return
			}
			if b.err != "" || !reflect.DeepEqual(b.columns, c.cols) || b.rows != c.rows || b.skipped != c.skipped {
				t.Errorf("got columns %v rows %d skipped %d err %q; want %v %d %d", b.columns, b.rows, b.skipped, b.err, c.cols, c.rows, c.skipped)
			}
		})
	}
}

func TestTableName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"aws/cloudtrail.json.gz":     "aws_cloudtrail",
		"dns.ndjson":                 "dns",
		"auth.log.jsonl":             "auth",
		"2026-11-20/vpc flow.csv.gz": "2026_11_20_vpc_flow",
		"hosts.CSV":                  "hosts",
		"data.tar.gz":                "data_tar",
		"ログ.json":                    "______",
	} {
		if got := tableName(in); got != want {
			t.Errorf("tableName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGrepMatchesNaive compares grep with a line-by-line reference over files larger than a
// chunk, with long lines, CRLF and context, so chunk edges are crossed.
func TestGrepMatchesNaive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; b.Len() < 3*grepChunk; i++ {
		switch r.IntN(150) {
		case 0:
			fmt.Fprintf(&b, "line %d NEEDLE here\n", i)
		case 1:
			fmt.Fprintf(&b, "%s needle %d\r\n", strings.Repeat("x", r.IntN(3*maxLineText)), i)
		default:
			fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("filler ", r.IntN(40)))
		}
	}
	text := b.String()
	if err := os.WriteFile(filepath.Join(dir, "big.log"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.log.gz"), gz(t, []byte(text)), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openSet(t, dir)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	re := regexp.MustCompile(`(?i)needle`)
	var want []Match
	for i, l := range lines {
		if re.MatchString(l) {
			m := Match{Path: "big.log", Line: int64(i + 1), Text: lineText([]byte(l)), Before: []string{}, After: []string{}}
			for j := max(0, i-3); j < i; j++ {
				m.Before = append(m.Before, lineText([]byte(lines[j])))
			}
			for j := i + 1; j < min(len(lines), i+4); j++ {
				m.After = append(m.After, lineText([]byte(lines[j])))
			}
			want = append(want, m)
		}
	}
	for _, path := range []string{"big.log", "big.log.gz"} {
		res, err := s.Grep(context.Background(), GrepOptions{Pattern: "needle", Path: path, IgnoreCase: true, Context: 3, Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != len(want) {
			t.Fatalf("%s: %d matches, want %d", path, len(res.Matches), len(want))
		}
		for i := range want {
			w := want[i]
			w.Path = path
			if !reflect.DeepEqual(res.Matches[i], w) {
				t.Fatalf("%s match %d:\n got %+v\nwant %+v", path, i, res.Matches[i], w)
			}
		}
		if res.BytesSearched != int64(len(text)) {
			t.Errorf("%s: bytes_searched %d, want %d", path, res.BytesSearched, len(text))
		}
	}
}

// FuzzObjectRecord: the hand-split members of any valid object are those encoding/json finds.
func FuzzObjectRecord(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a" : "x\"}" , "b":[1,{"c":"]"}],"d":null}`, `{"\u0041":true,"e":-1.5e3}`, ` {"a":{}} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rec, ok := objectRecord(bytes.TrimSpace([]byte(s)))
		var m map[string]json.RawMessage
		err := json.Unmarshal([]byte(s), &m)
		if ok != (err == nil && m != nil && strings.HasPrefix(strings.TrimSpace(s), "{")) {
			t.Fatalf("%q: ok %v, unmarshal %v", s, ok, err)
		}
		if !ok {
			return
		}
		got := map[string]string{}
		for i, k := range rec.keys {
			got[k] = string(rec.vals[i])
		}
		if len(got) != len(m) {
			t.Fatalf("%q: %v vs %v", s, got, m)
		}
		for k, v := range m {
			if got[k] != strings.TrimSpace(string(v)) {
				t.Fatalf("%q: key %q = %q, want %q", s, k, got[k], v)
			}
		}
	})
}

// TestNotGzip: a .gz that is not gzip is listed as binary with its error, skipped by grep, and
// a table that cannot be read says why.
func TestNotGzip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "fake.json.gz"), []byte(`{"Records":[]}`), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "ok.log"), []byte("Records here\n"), 0o644)
	s := openSet(t, dir)
	f := call(t, s, "list_evidence", nil)["files"].([]any)[0].(map[string]any)
	if f["kind"] != "binary" || !strings.Contains(fmt.Sprint(f["error"]), "not gzip") {
		t.Errorf("listing: %v", f)
	}
	g := call(t, s, "grep_evidence", map[string]any{"pattern": "Records"})
	if ms, _ := g["matches"].([]any); len(ms) != 1 || g["files_searched"] != 1.0 {
		t.Errorf("grep: %v", g)
	}
}
