package evidence

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// call runs a tool and returns its result as JSON decodes it (what the model reads).
func call(t *testing.T, s *Set, name string, args map[string]any) map[string]any {
	t.Helper()
	for _, tl := range s.Tools() {
		if tl.Declaration().Name == name {
			b, err := json.Marshal(tl.Call(context.Background(), args))
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestDeclarations(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	want := map[string][]string{
		"list_evidence":  {"limit", "path"},
		"grep_evidence":  {"context", "ignore_case", "limit", "path", "pattern"},
		"query_evidence": {"limit", "sql"},
	}
	for _, tl := range s.Tools() {
		d := tl.Declaration()
		var got []string
		for k := range d.Parameters.Properties {
			got = append(got, k)
		}
		slicesSort(got)
		if !reflect.DeepEqual(got, want[d.Name]) {
			t.Errorf("%s parameters = %v, want %v", d.Name, got, want[d.Name])
		}
	}
}

func slicesSort(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

func TestListEvidence(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	got := call(t, s, "list_evidence", nil)
	files := got["files"].([]any)
	type row struct{ path, kind, table, cols string }
	var rows []row
	for _, f := range files {
		m := f.(map[string]any)
		r := row{path: m["path"].(string), kind: m["kind"].(string)}
		if tb, ok := m["table"].(string); ok {
			r.table = tb
			b, _ := json.Marshal(m["columns"])
			r.cols = string(b)
		}
		if m["bytes"].(float64) <= 0 {
			t.Errorf("%s: bytes %v", r.path, m["bytes"])
		}
		rows = append(rows, r)
	}
	want := []row{
		{"auth.log", "text", "", ""},
		{"aws/cloudtrail.json.gz", "json", "aws_cloudtrail", `["eventTime","eventName","sourceIPAddress","userIdentity","awsRegion","errorCode"]`},
		{"dns.ndjson", "ndjson", "dns", `["ts","client","query","answer","blocked","ttl"]`},
		{"hosts.csv", "csv", "hosts", `["hostname","ip","owner","port"]`},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("files:\n got %v\nwant %v", rows, want)
	}
	if got["truncated"] != false {
		t.Errorf("truncated = %v", got["truncated"])
	}
	// A limit cuts the list and says so; a path narrows it.
	if got := call(t, s, "list_evidence", map[string]any{"limit": 2.0}); len(got["files"].([]any)) != 2 || got["truncated"] != true {
		t.Errorf("limit 2: %v", got)
	}
	if got := call(t, s, "list_evidence", map[string]any{"path": "aws"}); len(got["files"].([]any)) != 1 {
		t.Errorf("path aws: %v", got)
	}
	// Once indexed, the listing counts rows and the malformed ones skipped.
	call(t, s, "query_evidence", map[string]any{"sql": "SELECT count(*) FROM dns, hosts"})
	for _, f := range call(t, s, "list_evidence", nil)["files"].([]any) {
		m := f.(map[string]any)
		switch m["path"] {
		case "dns.ndjson", "hosts.csv":
			if m["rows"] != 3.0 || m["skipped"] != 1.0 {
				t.Errorf("%s: rows %v skipped %v, want 3 and 1", m["path"], m["rows"], m["skipped"])
			}
		}
	}
}

func TestGrepEvidence(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	for _, c := range []struct {
		name  string
		args  map[string]any
		want  []string // path:line of each match
		error string
	}{
		{"ip everywhere", map[string]any{"pattern": `203\.0\.113\.7`}, []string{"auth.log:1", "aws/cloudtrail.json.gz:2", "aws/cloudtrail.json.gz:3", "dns.ndjson:1"}, ""},
		{"glob by name", map[string]any{"pattern": `203\.0\.113\.7`, "path": "*.log"}, []string{"auth.log:1"}, ""},
		{"glob by folder", map[string]any{"pattern": `203\.0\.113\.7`, "path": "aws"}, []string{"aws/cloudtrail.json.gz:2", "aws/cloudtrail.json.gz:3"}, ""},
		{"deep glob", map[string]any{"pattern": `AccessDenied`, "path": "**/*.gz"}, []string{"aws/cloudtrail.json.gz:4"}, ""},
		{"japanese as text", map[string]any{"pattern": `ログイン`}, []string{"auth.log:4"}, ""},
		{"unicode ignore_case", map[string]any{"pattern": `été`, "ignore_case": true}, []string{"auth.log:4"}, ""},
		{"case kept", map[string]any{"pattern": `été`}, nil, ""},
		{"anchors are per line", map[string]any{"pattern": `^Nov 20 10:09`}, []string{"auth.log:5"}, ""},
		{"no match across lines", map[string]any{"pattern": `50522\s+Nov`}, nil, ""},
		{"limit", map[string]any{"pattern": `Nov 20`, "limit": 2.0}, []string{"auth.log:1", "auth.log:2"}, ""},
		{"bad RE2", map[string]any{"pattern": `(?<=x)y`}, nil, "invalid pattern (RE2 syntax): invalid named capture: `(?<=x)y`"},
		{"context too large", map[string]any{"pattern": `x`, "context": 6.0}, nil, `argument "context" must be a whole number from 0 to 5`},
		{"no pattern", map[string]any{}, nil, `missing argument "pattern"`},
		{"bad glob", map[string]any{"pattern": `x`, "path": "[a"}, nil, `invalid path glob "[a"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := call(t, s, "grep_evidence", c.args)
			if c.error != "" {
				if got["error"] != c.error {
					t.Fatalf("error = %v, want %q", got["error"], c.error)
				}
				return
			}
			if e, ok := got["error"]; ok {
				t.Fatalf("error %v", e)
			}
			var at []string
			for _, m := range got["matches"].([]any) {
				mm := m.(map[string]any)
				at = append(at, mm["path"].(string)+":"+jsonInt(mm["line"]))
			}
			if !reflect.DeepEqual(at, c.want) {
				t.Errorf("matches at %v, want %v", at, c.want)
			}
			if c.args["limit"] != nil && got["truncated"] != true {
				t.Errorf("truncated = %v", got["truncated"])
			}
		})
	}
	got := call(t, s, "grep_evidence", map[string]any{"pattern": `sudo`, "context": 2.0})
	m := got["matches"].([]any)[0].(map[string]any)
	b, _ := json.Marshal([]any{m["before"], m["text"], m["after"]})
	if want := `[["Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7 port 50522","Nov 20 10:00:02 web1 sshd[411]: pam_unix(sshd:session): session opened for user alice"],"Nov 20 10:03:00 web1 sudo: alice : TTY=pts/0 ; COMMAND=/usr/bin/cat /etc/shadow",["Nov 20 10:04:00 web1 app[99]: ユーザー アリス がログインしました (ÉTÉ)","Nov 20 10:09:00 web1 sshd[412]: Failed password for root from 198.51.100.20 port 4242"]]`; string(b) != want {
		t.Errorf("context:\n got %s\nwant %s", b, want)
	}
	if got["files_searched"] != 4.0 || got["bytes_searched"].(float64) < 1000 {
		t.Errorf("files_searched %v bytes_searched %v", got["files_searched"], got["bytes_searched"])
	}
}

func jsonInt(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestQueryEvidence(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	for _, c := range []struct {
		name, sql string
		limit     float64
		want      string // {"columns","rows","truncated"} as JSON, or the error
	}{
		{"cloudtrail by ip", `SELECT eventName, json_extract(userIdentity, '$.userName') AS user FROM aws_cloudtrail WHERE sourceIPAddress = '203.0.113.7' ORDER BY eventTime`, 0,
			`{"columns":["eventName","user"],"rows":[["ConsoleLogin","alice"],["ListBuckets","alice"]],"truncated":false}`},
		{"join across tables", `SELECT h.hostname, d.query FROM dns d JOIN hosts h ON h.ip = d.client WHERE d.blocked = 1`, 0,
			`{"columns":["hostname","query"],"rows":[["web1","evil.example.net"]],"truncated":false}`},
		{"typed values", `SELECT port, typeof(port), ttl, typeof(ttl) FROM hosts LEFT JOIN dns ON dns.client = hosts.ip AND ttl IS NOT NULL ORDER BY hostname`, 0,
			`{"columns":["port","typeof(port)","ttl","typeof(ttl)"],"rows":[["0022","text",null,"null"],[5432,"integer",300,"integer"],[22,"integer",null,"null"]],"truncated":false}`},
		{"row cap", `SELECT query FROM dns ORDER BY ts`, 2,
			`{"columns":["query"],"rows":[["login.example.com"],["evil.example.net"]],"truncated":true}`},
		{"quoted name", `SELECT count(*) AS n FROM "aws_cloudtrail" WHERE errorCode IS NOT NULL`, 0,
			`{"columns":["n"],"rows":[[1]],"truncated":false}`},
		{"unknown table", `SELECT * FROM cloudtrail`, 0, `{"error":"no such table: cloudtrail; the tables are: aws_cloudtrail, dns, hosts"}`},
		{"syntax", `SELECT FROM dns`, 0, `{"error":"near \"FROM\": syntax error"}`},
		{"insert", `INSERT INTO dns(query) VALUES ('x')`, 0, `{"error":"only reading queries run (SELECT or WITH), not INSERT"}`},
		{"cte delete", `WITH x AS (SELECT 1) DELETE FROM dns`, 0, `{"error":"only reading queries run: DELETE is refused"}`},
		{"attach", `SELECT 1; ATTACH DATABASE '/tmp/x.db' AS x`, 0, `{"error":"one statement at a time"}`},
		{"attach word", `WITH a AS (SELECT 1) SELECT * FROM a WHERE 1 = (ATTACH)`, 0, `{"error":"only reading queries run: ATTACH is refused"}`},
		{"pragma", `PRAGMA writable_schema = 1`, 0, `{"error":"only reading queries run (SELECT or WITH), not PRAGMA"}`},
		{"extension", `SELECT load_extension('/tmp/evil.so')`, 0, `{"error":"only reading queries run: LOAD_EXTENSION is refused"}`},
		{"two statements", `SELECT 1; SELECT 2`, 0, `{"error":"one statement at a time"}`},
		{"trailing semicolon", `SELECT 1 AS one; -- done`, 0, `{"columns":["one"],"rows":[[1]],"truncated":false}`},
		{"words in strings are data", `SELECT count(*) AS n FROM aws_cloudtrail WHERE eventName != 'DELETE; ATTACH'`, 0, `{"columns":["n"],"rows":[[3]],"truncated":false}`},
		{"index table hidden from writes", `SELECT * FROM alertchat_files`, 0, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"sql": c.sql}
			if c.limit > 0 {
				args["limit"] = c.limit
			}
			got := call(t, s, "query_evidence", args)
			b, _ := json.Marshal(got)
			if c.want != "" && string(b) != c.want {
				t.Errorf("\n got %s\nwant %s", b, c.want)
			}
		})
	}
}

// TestQueryCannotWrite checks the connection itself, under the statement check: a write that
// slipped past the words would still fail.
func TestQueryCannotWrite(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	if _, err := s.Query(context.Background(), "SELECT count(*) FROM dns", 10); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO dns(query) VALUES ('x')`,
		`DROP TABLE dns`,
		`ATTACH DATABASE 'file:x?mode=memory' AS x`,
		// The file is opened read-only: turning query_only off does not make it writable.
		`PRAGMA query_only = 0`,
		`INSERT INTO dns(query) VALUES ('x')`,
	} {
		if strings.HasPrefix(q, "PRAGMA") {
			_, _ = s.idx.query(context.Background(), q, 10)
			continue
		}
		if _, err := s.idx.query(context.Background(), q, 10); err == nil {
			t.Errorf("%s ran on the query connection", q)
		}
	}
	res, err := s.Query(context.Background(), "SELECT count(*) FROM dns", 10)
	if err != nil || res.Rows[0][0] != int64(3) {
		t.Errorf("after the refused writes: %v %v", res, err)
	}
}

func TestQueryTimeout(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	s.timeout = 200_000_000 // 200 ms
	got := call(t, s, "query_evidence", map[string]any{"sql": `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`})
	if got["error"] != "timed out" {
		t.Errorf("got %v, want timed out", got)
	}
}

func TestSeveralFolders(t *testing.T) {
	t.Parallel()
	a, b := caseFolder(t), caseFolder(t)
	s := openSet(t, a, b)
	files := call(t, s, "list_evidence", nil)["files"].([]any)
	if len(files) != 8 {
		t.Fatalf("%d files, want 8", len(files))
	}
	first := files[0].(map[string]any)["path"].(string)
	if !strings.Contains(first, "/auth.log") {
		t.Errorf("first path %q: want the folder's name in front", first)
	}
	got := call(t, s, "query_evidence", map[string]any{"sql": "SELECT name FROM sqlite_master WHERE 0"})
	if _, ok := got["error"]; ok {
		t.Errorf("%v", got)
	}
	g := call(t, s, "grep_evidence", map[string]any{"pattern": "ログイン"})
	if n := len(g["matches"].([]any)); n != 2 {
		t.Errorf("%d matches over two folders, want 2", n)
	}
}
