package evidence

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"

	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// putObject writes an object through the client, as a user's upload would (encoding "gzip"
// sets Content-Encoding, as gsutil -Z does).
func putObject(t testing.TB, c *storage.Client, name string, data []byte, encoding string) {
	t.Helper()
	w := c.Bucket(testenv.Bucket).Object(name).NewWriter(context.Background())
	w.ChunkSize = 0
	w.ContentEncoding = encoding
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBucketEvidence: on fake-gcs-server, the objects under gs://BUCKET/PREFIX are the
// folder: listed by their path relative to the prefix, .gz read through (also when stored
// with Content-Encoding: gzip), tables named as for a folder, an event log read in place;
// objects of other prefixes, names with "..", empty or hidden elements are neither listed nor
// reachable; an object written again is read again (the index is keyed by its generation).
func TestBucketEvidence(t *testing.T) {
	t.Parallel()
	_, c := testenv.GCS(t)
	conn, err := os.ReadFile(filepath.Join("..", "..", "testdata", "evidence", "conn.log"))
	if err != nil {
		t.Fatal(err)
	}
	ct := []byte(`{"eventTime":"2026-11-20T10:01:00Z","eventName":"ConsoleLogin","sourceIPAddress":"203.0.113.7"}
{"eventTime":"2026-11-20T10:05:00Z","eventName":"ListBuckets","sourceIPAddress":"198.51.100.4"}
`)
	for name, o := range map[string]struct {
		data     []byte
		encoding string
	}{
		"case-7/cloudtrail/ct.json.gz":   {gzipped(t, ct), ""},
		"case-7/cloudtrail/ct2.json.gz":  {gzipped(t, ct), "gzip"},
		"case-7/zeek/conn.log":           {conn, ""},
		"case-7/win/Security.evtx":       {evtxSample(t, "new-user-security.evtx"), ""},
		"case-7/notes.txt":               {[]byte("the attacker came from 203.0.113.7\n"), ""},
		"case-7/folder/":                 {nil, ""},
		"case-7/.hidden/secret.json":     {[]byte(`{"secret":"hunter2"}` + "\n"), ""},
		"case-7/a//double.txt":           {[]byte("hunter2\n"), ""},
		"case-7/../escape.txt":           {[]byte("hunter2\n"), ""},
		"case-70/other.txt":              {[]byte("hunter2\n"), ""},
		"other/secret.txt":               {[]byte("hunter2\n"), ""},
		"case-7x/cloudtrail/ct.json.gz":  {gzipped(t, []byte(`{"secret":"hunter2"}`+"\n")), ""},
		"case-7/cloudtrail/ct.json.gz.x": {[]byte("hunter2\n"), ""},
	} {
		putObject(t, c, name, o.data, o.encoding)
	}
	ctx := context.Background()
	s, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/case-7"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if got := s.Folders(); !reflect.DeepEqual(got, []string{"gs://" + testenv.Bucket + "/case-7/"}) {
		t.Errorf("folders %v", got)
	}

	files, _, err := s.List(ctx, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	kinds := map[string]FileInfo{}
	for _, f := range files {
		paths = append(paths, f.Path)
		kinds[f.Path] = f
	}
	slices.Sort(paths)
	want := []string{"cloudtrail/ct.json.gz", "cloudtrail/ct.json.gz.x", "cloudtrail/ct2.json.gz", "notes.txt", "win/Security.evtx", "zeek/conn.log"}
	if !reflect.DeepEqual(paths, want) {
		t.Errorf("listed %v\nwant %v", paths, want)
	}
	for p, k := range map[string]string{"cloudtrail/ct.json.gz": kindNDJSON, "cloudtrail/ct2.json.gz": kindNDJSON, "zeek/conn.log": kindZeek, "win/Security.evtx": kindEVTX, "notes.txt": kindText} {
		if kinds[p].Kind != k {
			t.Errorf("%s: kind %q, want %q (%+v)", p, kinds[p].Kind, k, kinds[p])
		}
	}

	res, err := s.Query(ctx, `SELECT a.eventName, b.eventName FROM cloudtrail_ct a JOIN cloudtrail_ct2 b USING (eventTime) ORDER BY eventTime`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{"ConsoleLogin", "ConsoleLogin"}, {"ListBuckets", "ListBuckets"}}; !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("cloudtrail rows %v", res.Rows)
	}
	for q, want := range map[string]any{
		`SELECT count(*) FROM zeek_conn WHERE "id.resp_h" = '203.0.113.7'`:                   nil,
		`SELECT json_extract(EventData, '$.TargetUserName') FROM win_Security LIMIT 1`:       "None",
		`SELECT count(*) FROM cloudtrail_ct WHERE sourceIPAddress = '203.0.113.7'`:           int64(1),
		`SELECT count(*) FROM win_Security WHERE Computer = 'IE8Win7' AND EventID = 4728`:    int64(1),
		`SELECT Provider FROM win_Security WHERE EventRecordID = 111`:                        "Microsoft-Windows-Security-Auditing",
		`SELECT count(*) FROM zeek_conn WHERE "id.resp_h" = '203.0.113.7' AND proto = 'tcp'`: nil,
	} {
		res, err := s.Query(ctx, q, 10)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if want != nil && (len(res.Rows) != 1 || res.Rows[0][0] != want) {
			t.Errorf("%s: %v, want %v", q, res.Rows, want)
		}
	}

	g, err := s.Grep(ctx, GrepOptions{Pattern: "hunter2|203\\.0\\.113\\.7", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, m := range g.Matches {
		hits = append(hits, m.Path)
		if strings.Contains(m.Text, "hunter2") && m.Path != "cloudtrail/ct.json.gz.x" {
			t.Errorf("grep reached an object outside the prefix's plain paths: %+v", m)
		}
	}
	for _, p := range []string{"notes.txt", "cloudtrail/ct.json.gz", "cloudtrail/ct2.json.gz"} {
		if !slices.Contains(hits, p) {
			t.Errorf("grep found nothing in %s: %v", p, hits)
		}
	}

	for _, p := range []string{"../other/secret.txt", "../case-70/other.txt", ".hidden/secret.json", "/etc/passwd", "a\\..\\x"} {
		if _, _, err := s.List(ctx, p, 10); err == nil || !strings.Contains(err.Error(), ErrOutside) {
			t.Errorf("list %q: %v", p, err)
		}
		if _, err := s.Grep(ctx, GrepOptions{Pattern: "hunter2", Path: p, Limit: 10}); err == nil {
			t.Errorf("grep %q: no error", p)
		}
	}
	if _, _, err := s.List(ctx, "cloudtrail/ct", 10); !errors.Is(err, errNotFound) && (err == nil || !strings.Contains(err.Error(), "no such file")) {
		t.Errorf("a prefix of a name is not a folder: %v", err)
	}

	// Written again: a new generation, so the table is built again from the new bytes.
	putObject(t, c, "case-7/cloudtrail/ct.json.gz", gzipped(t, append(bytes.Clone(ct), `{"eventTime":"2026-11-20T11:00:00Z","eventName":"DeleteTrail"}`+"\n"...)), "")
	res, err = s.Query(ctx, `SELECT count(*) FROM cloudtrail_ct`, 10)
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != int64(3) {
		t.Errorf("after the object was written again: %v %v", res, err)
	}
}

// TestBucketEvidenceOpen: a bucket that does not exist, or a value that is not
// gs://BUCKET/PREFIX, is refused when the set is opened, naming it.
func TestBucketEvidenceOpen(t *testing.T) {
	t.Parallel()
	_, c := testenv.GCS(t)
	for _, tc := range []struct{ dir, want string }{
		{"gs://no-such-bucket-here/logs", "evidence bucket gs://no-such-bucket-here/logs does not exist"},
		{"gs:///logs", "is not gs://BUCKET/PREFIX"},
		{"gs://" + testenv.Bucket + "/a/../b", "is not gs://BUCKET/PREFIX"},
	} {
		_, err := OpenContext(context.Background(), []string{tc.dir}, Options{CacheDir: t.TempDir(), Storage: c})
		var de *DirError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a DirError with %q", tc.dir, err, tc.want)
		}
	}
	s, err := OpenContext(context.Background(), []string{"gs://" + testenv.Bucket + "/empty", "gs://" + testenv.Bucket}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatalf("an empty prefix and a whole bucket: %v", err)
	}
	_ = s.Close()
}

// TestBucketGrep: objects are searched several at a time, and the matches come in path order
// and stop at the limit as a folder's do (the same files in a folder are the reference).
func TestBucketGrep(t *testing.T) {
	t.Parallel()
	_, c := testenv.GCS(t)
	dir := t.TempDir()
	for i := range 9 {
		name := fmt.Sprintf("logs/%02d.log", i)
		var b strings.Builder
		for j := range 3 {
			fmt.Fprintf(&b, "line %d of %s: hit %d\nquiet line\n", j, name, i*3+j)
		}
		putObject(t, c, "grep/"+name, []byte(b.String()), "")
		if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	bs, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/grep"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bs.Close() })
	fs := openSet(t, dir)
	for _, o := range []GrepOptions{
		{Pattern: "hit", Limit: 100},
		{Pattern: "hit", Limit: 10, Context: 1},
		{Pattern: "HIT 1", IgnoreCase: true, Limit: 5},
		{Pattern: "hit", Path: "logs/0[3-5].log", Limit: 100},
	} {
		got, err := bs.Grep(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fs.Grep(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Matches, want.Matches) || got.Truncated != want.Truncated || len(got.Matches) == 0 {
			t.Errorf("%+v:\n bucket %+v\n folder %+v", o, got, want)
		}
	}
}

// TestBucketEvidenceNetworkFailure: the server gone mid-chat, each tool answers an error within
// seconds (the client's retries are bounded), and the set stays usable.
func TestBucketEvidenceNetworkFailure(t *testing.T) {
	t.Parallel()
	srv, c := testenv.GCS(t)
	putObject(t, c, "n/a.ndjson", []byte(`{"a":1}`+"\n"), "")
	ctx := context.Background()
	s, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/n"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	srv.Stop()
	start := time.Now()
	if _, _, err := s.List(ctx, "", 10); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("list: %v", err)
	}
	if _, err := s.Grep(ctx, GrepOptions{Pattern: "a", Limit: 10}); err == nil {
		t.Error("grep: no error")
	}
	if _, err := s.Query(ctx, `SELECT * FROM a`, 10); err == nil {
		t.Error("query: no error")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("three failing calls took %v", d)
	}
}

// TestBucketEvidenceRequests: a prefix of 1,000 objects is walked by one paged request
// sequence (not a request per object), and a second listing of a prefix reads no object
// again (kinds are known by generation).
func TestBucketEvidenceRequests(t *testing.T) {
	t.Parallel()
	srv, _ := testenv.GCS(t)
	total := 1000
	if testing.Short() {
		total = 200 // fake-gcs-server takes a while to create a thousand objects under -race
	}
	for i := range total {
		name := fmt.Sprintf("many/%04d.log", i)
		if i < 20 {
			name = fmt.Sprintf("few/%04d.log", i)
		}
		srv.CreateObject(fakestorage.Object{
			ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testenv.Bucket, Name: name},
			Content:     []byte(fmt.Sprintf("line %d\n", i)),
		})
	}
	p := testenv.NewFaultProxy(t, srv.URL())
	c := testenv.StorageClient(t, p.URL())
	ctx := context.Background()
	s, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/many"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	before := p.Requests()
	n := 0
	if err := s.files("", func(entry) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	if listed := p.Requests() - before; n != total-20 || listed > 2 {
		t.Errorf("%d objects listed with %d requests", n, listed)
	}
	few, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/few"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = few.Close() })
	files, _, err := few.List(ctx, "", 100)
	if err != nil || len(files) != 20 || files[0].Kind != kindText {
		t.Fatalf("%d files, %v", len(files), err)
	}
	before = p.Requests()
	if _, _, err := few.List(ctx, "", 100); err != nil {
		t.Fatal(err)
	}
	if again := p.Requests() - before; again > 2 {
		t.Errorf("a second listing made %d requests", again)
	}
}

// TestBucketEvidenceStall: Cloud Storage that stops answering fails the tool call after the
// stall bound, and the next call works once it answers again; time spent between reads of a
// stream is not a stall.
func TestBucketEvidenceStall(t *testing.T) {
	t.Parallel()
	srv, _ := testenv.GCS(t)
	for _, name := range []string{"case/a.log", "case/b.ndjson"} {
		srv.CreateObject(fakestorage.Object{
			ObjectAttrs: fakestorage.ObjectAttrs{BucketName: testenv.Bucket, Name: name},
			Content:     []byte(strings.Repeat(`{"host":"web-1","msg":"203.0.113.7 login"}`+"\n", 2000)),
		})
	}
	p := testenv.NewFaultProxy(t, srv.URL())
	c := testenv.StorageClient(t, p.URL())
	ctx := context.Background()
	s, err := OpenContext(ctx, []string{"gs://" + testenv.Bucket + "/case"}, Options{CacheDir: t.TempDir(), Storage: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	const stall = 300 * time.Millisecond
	s.folders[0].gcs.stall = stall

	p.Set(testenv.Hang)
	start := time.Now()
	out := call(t, s, "grep_evidence", map[string]any{"pattern": "203"})
	if msg, _ := out["error"].(string); !strings.Contains(msg, "Cloud Storage sent nothing for 300ms") {
		t.Errorf("a hung bucket: %v", out)
	}
	if d := time.Since(start); d > 20*stall {
		t.Errorf("the call took %s with a stall bound of %s", d, stall)
	}
	p.Set(testenv.Pass)
	out = call(t, s, "query_evidence", map[string]any{"sql": "SELECT COUNT(*) FROM b"})
	if rows, _ := out["rows"].([]any); len(rows) != 1 || fmt.Sprint(rows[0]) != "[2000]" {
		t.Errorf("once it answers again: %#v", out)
	}

	// A slow reader is not a stalled server.
	f, err := s.folders[0].gcs.open("a.log", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for range 3 {
		if _, err := f.Read(buf); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * stall)
	}
}
