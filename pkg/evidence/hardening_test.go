package evidence

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSwappedFolderNeverLeadsOutside swaps a subfolder for a symlink to a folder outside,
// over and over, while its file is read by every tool: nothing outside is ever read, however
// the swap falls between a path's check and its open.
func TestSwappedFolderNeverLeadsOutside(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, outside := filepath.Join(base, "case"), filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(dir, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "a.log"), []byte("INSIDE line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a.log"), []byte("SECRET-OUTSIDE line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openSet(t, dir)
	sub, real := filepath.Join(dir, "sub"), filepath.Join(dir, "real")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			// sub is the real folder, then a symlink to the outside, then the folder again
			_ = os.Rename(sub, real)
			_ = os.Symlink(outside, sub)
			_ = os.Remove(sub)
			_ = os.Rename(real, sub)
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	if testing.Short() {
		deadline = time.Now().Add(time.Second)
	}
	reads := 0
	for time.Now().Before(deadline) {
		for _, p := range []string{"sub/a.log", ""} {
			g := call(t, s, "grep_evidence", map[string]any{"pattern": "line", "path": p})
			if b, _ := json.Marshal(g); strings.Contains(string(b), "SECRET") {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("read outside the folder after %d reads: %s", reads, b)
			}
			reads++
		}
		f := s.folders[0]
		if fd, _, err := f.open("sub/a.log"); err == nil {
			b := make([]byte, 64)
			n, _ := fd.Read(b)
			_ = fd.Close()
			if strings.Contains(string(b[:n]), "SECRET") {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("open read outside the folder after %d reads", reads)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads", reads)
}

// TestHardLinkRefused: a hard link in the folder to a file outside is not read, and the
// listing says why.
func TestHardLinkRefused(t *testing.T) {
	t.Parallel()
	dir, outside := hostile(t)
	if err := os.Link(filepath.Join(outside, "passwd"), filepath.Join(dir, "linked.log")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if err := os.Link(filepath.Join(outside, "data.ndjson"), filepath.Join(dir, "linked.ndjson")); err != nil {
		t.Fatal(err)
	}
	s := openSet(t, dir)
	g := call(t, s, "grep_evidence", map[string]any{"pattern": "SECRET"})
	if b, _ := json.Marshal(g); strings.Contains(string(b), "SECRET-OUTSIDE") {
		t.Fatalf("grep read a hard link: %s", b)
	}
	q := call(t, s, "query_evidence", map[string]any{"sql": "SELECT * FROM linked"})
	if b, _ := json.Marshal(q); strings.Contains(string(b), "SECRET-OUTSIDE") {
		t.Fatalf("query read a hard link: %s", b)
	}
	l := call(t, s, "list_evidence", map[string]any{"path": "linked.log"})
	files, _ := l["files"].([]any)
	if len(files) != 1 {
		t.Fatalf("listing: %v", l)
	}
	if e, _ := files[0].(map[string]any)["error"].(string); !strings.Contains(e, "hard link") {
		t.Errorf("the listing does not say why the file is not read: %v", files[0])
	}
}

// TestBookkeepingNameNotShared: an evidence file named like the index's bookkeeping table
// gets a table of its own, and the bookkeeping is not disturbed.
func TestBookkeepingNameNotShared(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"alertchat_files.ndjson", "ALERTCHAT_FILES.csv"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := caseFolder(t)
			data := `{"tbl":"dns","path":"x","size":1}` + "\n" + `{"tbl":"hosts","path":"y","size":2}` + "\n"
			if strings.HasSuffix(name, ".csv") {
				data = "tbl,path,size\ndns,x,1\nhosts,y,2\n"
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openSet(t, dir)
			for i := range 2 { // the second time reads the bookkeeping the first wrote
				q := call(t, s, "query_evidence", map[string]any{"sql": "SELECT tbl, path, size FROM alertchat_files ORDER BY tbl"})
				b, _ := json.Marshal(q)
				if want := `{"columns":["tbl","path","size"],"rows":[["dns","x",1],["hosts","y",2]],"truncated":false}`; string(b) != want {
					t.Fatalf("query %d: %s, want %s", i, b, want)
				}
				d := call(t, s, "query_evidence", map[string]any{"sql": "SELECT count(*) AS n FROM dns"})
				if b, _ := json.Marshal(d); string(b) != `{"columns":["n"],"rows":[[3]],"truncated":false}` {
					t.Fatalf("query %d of another table: %s", i, b)
				}
			}
		})
	}
}

// TestRewrittenSameStamp: a file rewritten with the same path, size and modification time
// (cp -p, rsync -t, tar x) is indexed again.
func TestRewrittenSameStamp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		rewrite func(p string, data []byte) error
	}{
		{"in place", func(p string, data []byte) error { return os.WriteFile(p, data, 0o644) }},
		{"replaced", func(p string, data []byte) error {
			tmp := p + ".new"
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return err
			}
			return os.Rename(tmp, p)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "v.ndjson")
			if err := os.WriteFile(p, []byte(`{"v":"old"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			stamp := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
			s := openSet(t, dir)
			get := func() any {
				res, err := s.Query(context.Background(), "SELECT v FROM v", 1)
				if err != nil {
					t.Fatal(err)
				}
				return res.Rows[0][0]
			}
			if v := get(); v != "old" {
				t.Fatalf("first: %v", v)
			}
			if err := c.rewrite(p, []byte(`{"v":"new"}`+"\n")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
			if v := get(); v != "new" {
				t.Errorf("after a rewrite with the same size and time: %v, want new", v)
			}
		})
	}
}

// TestQueryBytesBounded: a query whose rows are large stops at maxQueryBytes and says it was
// cut; a value larger than SQLite's length limit is refused, not built.
func TestQueryBytesBounded(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	res, err := s.Query(context.Background(),
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 100) SELECT x, printf('%.*c', 100000, 'a') AS big FROM c`, MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Rows)
	if len(b) > maxQueryBytes+1024 || !res.Truncated || len(res.Rows) == 0 {
		t.Errorf("%d rows, %d bytes, truncated %v: want at most %d bytes, cut", len(res.Rows), len(b), res.Truncated, maxQueryBytes)
	}
	// One row larger than the bound by itself: cut too, the row kept.
	res, err = s.Query(context.Background(), `SELECT 1 AS n, printf('%.*c', 900000, 'a') AS a, printf('%.*c', 900000, 'b') AS b`, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res.Rows)
	if len(b) > maxQueryBytes+1024 || !res.Truncated || len(res.Rows) != 1 || res.Rows[0][0] != int64(1) {
		t.Errorf("one large row: %d rows, %d bytes, truncated %v", len(res.Rows), len(b), res.Truncated)
	}
	for _, q := range []string{
		fmt.Sprintf(`SELECT zeroblob(%d)`, maxValueLength+1),
		fmt.Sprintf(`SELECT length(printf('%%.*c', %d, 'a'))`, maxValueLength+1),
	} {
		if _, err := s.Query(context.Background(), q, 1); err == nil || !strings.Contains(err.Error(), "too big") {
			t.Errorf("%s: %v, want too big", q, err)
		}
	}
}

// TestGrepLineCutAtTokenBoundary: a line cut at maxLineText never ends in the first part of
// a token that straddles the cut.
func TestGrepLineCutAtTokenBoundary(t *testing.T) {
	t.Parallel()
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImFkbWluIjp0cnVlfQ.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU"
	ghp := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	for _, c := range []struct {
		name, line, token string
	}{
		{"jwt", strings.Repeat("x ", 480) + "Authorization: Bearer " + jwt + " end", jwt},
		{"ghp", strings.Repeat("y", 980) + " token=" + ghp + " end", ghp},
		{"jwt after a quote", strings.Repeat("z", 970) + `,"t":"` + jwt + `"}`, jwt},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := lineText([]byte(c.line))
			if !strings.HasSuffix(got, "…") {
				t.Fatalf("not cut: %d bytes", len(got))
			}
			if len(got) > maxLineText+len("…") {
				t.Errorf("%d bytes", len(got))
			}
			body := strings.TrimSuffix(got, "…")
			for n := 4; n <= len(c.token); n++ {
				if strings.HasSuffix(body, c.token[:n]) {
					t.Fatalf("the cut line ends in the token's first %d bytes: ...%s", n, body[max(0, len(body)-60):])
				}
			}
		})
	}
}

// TestOlderIndexEmptied: an index an older version wrote (its bookkeeping under another name)
// is emptied, so a table whose file went before the upgrade cannot be read.
func TestOlderIndexEmptied(t *testing.T) {
	t.Parallel()
	s := openSet(t, caseFolder(t))
	if err := os.MkdirAll(s.cacheDir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+s.idx.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE alertchat_files(tbl TEXT PRIMARY KEY, path TEXT, size INTEGER, mtime INTEGER, kind TEXT, rows INTEGER, skipped INTEGER, columns TEXT, error TEXT)`,
		`CREATE TABLE ghost(secret)`, `INSERT INTO ghost VALUES ('GONE-FILE')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	if _, err := s.Query(context.Background(), "SELECT count(*) FROM dns", 1); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT * FROM ghost", "SELECT * FROM alertchat_files"} {
		if res, err := s.Query(context.Background(), q, 10); err == nil {
			t.Errorf("%s: %v, want no such table", q, res.Rows)
		}
	}
}
