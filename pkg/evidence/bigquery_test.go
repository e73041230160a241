package evidence

import (
	"context"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"
	"google.golang.org/api/googleapi"
)

// fakeBQ is a BigQuery of its own for the guard's arithmetic, which the emulator cannot check:
// it reports no referenced tables, always says SELECT and ignores maximumBytesBilled.
type fakeBQ struct {
	checkErr error
	est      bqEstimate
	dryErr   error
	rows     *bqRows
	runErr   error
	list     []bqTable

	mu      sync.Mutex
	dryRuns []string
	runs    []fakeRun
	closed  bool
}

type fakeRun struct {
	sql      string
	maxBytes int64
	limit    int
}

func (f *fakeBQ) check(context.Context) error               { return f.checkErr }
func (f *fakeBQ) tables(context.Context) ([]bqTable, error) { return f.list, nil }
func (f *fakeBQ) close() error                              { f.closed = true; return nil }
func (f *fakeBQ) dryRun(_ context.Context, sql string) (bqEstimate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dryRuns = append(f.dryRuns, sql)
	return f.est, f.dryErr
}

func (f *fakeBQ) run(_ context.Context, sql string, maxBytes int64, limit int) (*bqRows, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, fakeRun{sql, maxBytes, limit})
	if f.runErr != nil {
		return &bqRows{BytesScanned: 10 << 20}, f.runErr
	}
	return f.rows, nil
}

// openFake opens a Set of the datasets given, each answered by the fake of its name.
func openFake(t *testing.T, maxBytes int64, fakes map[string]*fakeBQ, dirs ...string) *Set {
	t.Helper()
	s, err := Open(dirs, Options{CacheDir: t.TempDir(), BQMaxBytes: maxBytes, bqEngine: func(p, d string) bqEngine {
		f, ok := fakes[p+"."+d]
		if !ok {
			t.Fatalf("no fake for %s.%s", p, d)
		}
		return f
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestParseDataset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, project, dataset, err string
	}{
		{in: "bq://sec-lake.udm_events", project: "sec-lake", dataset: "udm_events"},
		{in: "bq://example.com:sec-lake.udm/", project: "example.com:sec-lake", dataset: "udm"},
		{in: "bq://sec-lake", err: "is not bq://PROJECT.DATASET"},
		{in: "bq://Sec-Lake.x", err: "valid project"},
		{in: "bq://sec-lake.bad-name", err: "valid dataset"},
		{in: "bq://sec-lake.", err: "valid dataset"},
		{in: "bq://sec-lake.a.b", err: "valid project"},
	} {
		p, d, err := parseDataset(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseDataset(%q) = %v, want error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || p != tc.project || d != tc.dataset {
			t.Errorf("parseDataset(%q) = %q, %q, %v", tc.in, p, d, err)
		}
	}
}

func TestCheckGoogleSQL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q   string
		err string
	}{
		{q: "SELECT 1"},
		{q: "select count(*) from logs;  -- done\n"},
		{q: "WITH a AS (SELECT 1) SELECT * FROM a"},
		{q: "SELECT 'it\\'s; DELETE FROM x' AS s"},
		{q: `SELECT """a ; DROP TABLE t""" AS s`},
		{q: `SELECT r'\'; DELETE', b"x;y"`},
		{q: "SELECT `delete`.x FROM `p.d.delete` # a comment; DROP\n"},
		{q: "SELECT 1 /* ; DELETE */"},
		{q: "", err: "empty"},
		{q: "-- only a comment", err: "empty"},
		{q: "DELETE FROM logs WHERE true", err: "not DELETE"},
		{q: "EXPORT DATA OPTIONS(uri='gs://x/*') AS SELECT 1", err: "not EXPORT"},
		{q: "SELECT 1; SELECT 2", err: "one statement"},
		{q: "SELECT 1; DROP TABLE t", err: "one statement"},
		{q: "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", err: "INSERT is refused"},
		{q: "SELECT 'open", err: "not closed"},
		{q: "SELECT `open", err: "not closed"},
		{q: "SELECT 1 /* open", err: "not closed"},
		{q: "SELECT 'a\nb'", err: "not closed"},
		{q: "DECLARE x INT64 DEFAULT 1; SELECT x", err: "one statement"},
		{q: "DECLARE x INT64 DEFAULT 1", err: "not DECLARE"},
		{q: "SELECT * FROM t FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP(); CALL p()", err: "one statement"},
	} {
		err := checkGoogleSQL(tc.q)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("checkGoogleSQL(%q) = %v, want nil", tc.q, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("checkGoogleSQL(%q) = %v, want error with %q", tc.q, err, tc.err)
		}
	}
}

// FuzzCheckGoogleSQL: the check never panics, and what it admits starts with SELECT or WITH.
func FuzzCheckGoogleSQL(f *testing.F) {
	for _, s := range []string{"SELECT 1", "SELECT 'a\\'b'", `SELECT """x"""`, "SELECT `a`", "SELECT r'x' # c\n;", "WITH a AS (SELECT 1) SELECT 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if checkGoogleSQL(q) != nil {
			return
		}
		w, err := googleSQLWords(q)
		if err != nil || len(w) == 0 {
			t.Fatalf("admitted %q with words %v, %v", q, w, err)
		}
		if u := strings.ToUpper(w[0]); u != "SELECT" && u != "WITH" {
			t.Fatalf("admitted %q starting with %s", q, u)
		}
	})
}

func TestBigQueryGuard(t *testing.T) {
	t.Parallel()
	const limit = 1 << 30
	rows := &bqRows{Columns: []string{"n"}, Rows: [][]any{{int64(3)}}, BytesScanned: 5 << 20}
	for _, tc := range []struct {
		name    string
		est     bqEstimate
		dryErr  error
		runErr  error
		err     string
		ran     bool
		scanned int64
	}{
		{name: "within the limit", est: bqEstimate{Bytes: limit, StatementType: "SELECT",
			Referenced: []bqTableRef{{"sec-lake", "udm", "events"}}}, ran: true, scanned: 5 << 20},
		{name: "one byte over", est: bqEstimate{Bytes: limit + 1, StatementType: "SELECT"},
			err: "would scan 1.0 GiB, above the limit of 1.0 GiB"},
		{name: "far over", est: bqEstimate{Bytes: 3 << 40, StatementType: "SELECT"}, err: "would scan 3.0 TiB"},
		{name: "a statement that writes", est: bqEstimate{StatementType: "DELETE"}, err: "BigQuery reads this as DELETE"},
		{name: "a script", est: bqEstimate{StatementType: "SCRIPT"}, err: "as SCRIPT"},
		{name: "a table of another dataset", est: bqEstimate{StatementType: "SELECT",
			Referenced: []bqTableRef{{"sec-lake", "udm", "events"}, {"hr-prod", "people", "salaries"}}},
			err: "reads hr-prod.people.salaries, outside the datasets given (sec-lake.udm)"},
		{name: "the same dataset name in another project", est: bqEstimate{StatementType: "SELECT",
			Referenced: []bqTableRef{{"other-proj", "udm", "events"}}}, err: "outside the datasets given"},
		{name: "too many tables to check", est: bqEstimate{StatementType: "SELECT",
			Referenced: make([]bqTableRef, maxReferencedTables)}, err: "too many to check"},
		{name: "the dry run fails", dryErr: &UserError{Msg: "BigQuery: Unrecognized name: foo"}, err: "Unrecognized name: foo"},
		{name: "the job fails", est: bqEstimate{StatementType: "SELECT"}, runErr: &UserError{Msg: "BigQuery: Query exceeded limit for bytes billed"},
			err: "bytes billed", ran: true, scanned: 10 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fakeBQ{est: tc.est, dryErr: tc.dryErr, rows: rows, runErr: tc.runErr}
			s := openFake(t, limit, map[string]*fakeBQ{"sec-lake.udm": f}, "bq://sec-lake.udm")
			res, err := s.QueryBigQuery(context.Background(), "", "SELECT n FROM events", 7)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := len(f.runs) > 0; got != tc.ran {
				t.Fatalf("ran = %v, want %v", got, tc.ran)
			}
			if tc.ran {
				if r := f.runs[0]; r.maxBytes != limit || r.limit != 7 {
					t.Errorf("run with maximumBytesBilled %d, limit %d; want %d, 7", r.maxBytes, r.limit, int64(limit))
				}
			}
			if got := s.BigQueryBytes(); got != tc.scanned {
				t.Errorf("bytes counted %d, want %d", got, tc.scanned)
			}
			if err == nil && (res.Dataset != "sec-lake.udm" || res.BytesScanned != 5<<20 || len(res.Rows) != 1) {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestBigQueryGuardRefusesBeforeTheDryRun(t *testing.T) {
	t.Parallel()
	f := &fakeBQ{est: bqEstimate{StatementType: "SELECT"}}
	s := openFake(t, 0, map[string]*fakeBQ{"sec-lake.udm": f}, "bq://sec-lake.udm")
	for _, q := range []string{"DELETE FROM events WHERE true", "SELECT 1; DROP TABLE events"} {
		if _, err := s.QueryBigQuery(context.Background(), "", q, 10); err == nil {
			t.Errorf("%q ran", q)
		}
	}
	if len(f.dryRuns) != 0 || len(f.runs) != 0 {
		t.Errorf("BigQuery was asked: dry runs %v, runs %v", f.dryRuns, f.runs)
	}
	if s.bqMaxBytes != DefaultBQMaxBytes {
		t.Errorf("default limit %d", s.bqMaxBytes)
	}
}

func TestBigQueryDatasetChoice(t *testing.T) {
	t.Parallel()
	ok := func() *fakeBQ {
		return &fakeBQ{est: bqEstimate{StatementType: "SELECT"}, rows: &bqRows{Columns: []string{"x"}, Rows: [][]any{}}}
	}
	a, b := ok(), ok()
	s := openFake(t, 0, map[string]*fakeBQ{"sec-lake.udm": a, "sec-lake.cloudtrail": b},
		"bq://sec-lake.udm", "bq://sec-lake.cloudtrail", "bq://sec-lake.udm")
	if got := strings.Join(s.Datasets(), ","); got != "sec-lake.udm,sec-lake.cloudtrail" {
		t.Fatalf("datasets %s", got)
	}
	if _, err := s.QueryBigQuery(context.Background(), "", "SELECT 1", 5); err == nil || !strings.Contains(err.Error(), "name the dataset") {
		t.Errorf("no dataset with two: %v", err)
	}
	if _, err := s.QueryBigQuery(context.Background(), "other.x", "SELECT 1", 5); err == nil || !strings.Contains(err.Error(), "not a dataset given") {
		t.Errorf("unknown dataset: %v", err)
	}
	if _, err := s.QueryBigQuery(context.Background(), "bq://sec-lake.cloudtrail", "SELECT 1", 5); err != nil {
		t.Fatal(err)
	}
	if len(b.runs) != 1 || len(a.runs) != 0 {
		t.Errorf("runs: udm %d, cloudtrail %d", len(a.runs), len(b.runs))
	}
}

func TestOpenDatasetChecksIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{err: &googleapi.Error{Code: 404, Message: "Not found: Dataset sec-lake:gone"}, want: "evidence dataset bq://sec-lake.gone does not exist"},
		{err: &googleapi.Error{Code: 403, Message: "Access Denied: Dataset sec-lake:gone"}, want: "cannot be read with these credentials: Access Denied"},
		{err: errors.New("dial tcp: connection refused"), want: "cannot be read: dial tcp"},
	} {
		f := &fakeBQ{checkErr: tc.err}
		_, err := Open([]string{t.TempDir(), "bq://sec-lake.gone"}, Options{CacheDir: t.TempDir(), bqEngine: func(string, string) bqEngine { return f }})
		var de *DirError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open = %v, want a DirError with %q", err, tc.want)
		}
		if !f.closed {
			t.Error("the engine of a refused dataset was not closed")
		}
	}
}

func TestBigQueryTools(t *testing.T) {
	t.Parallel()
	f := &fakeBQ{
		est:  bqEstimate{Bytes: 100, StatementType: "SELECT"},
		rows: &bqRows{Columns: []string{"principal", "n"}, Rows: [][]any{{"alice", int64(4)}}, BytesScanned: 2048},
		list: []bqTable{{Name: "events", Columns: []string{"ts", "principal"}, Types: []string{"TIMESTAMP", "STRING"}, Counted: true, Rows: 12, Bytes: 900}},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dns.ndjson"), []byte(`{"q":"example.com"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openFake(t, 0, map[string]*fakeBQ{"sec-lake.udm": f}, dir, "bq://sec-lake.udm")
	byName := map[string]func(context.Context, map[string]any) map[string]any{}
	for _, tl := range s.Tools() {
		d := tl.Declaration()
		byName[d.Name] = tl.Call
		if d.Name == "query_evidence" && (!strings.Contains(d.Description, "sec-lake.udm") || d.Parameters.Properties["dataset"] == nil) {
			t.Errorf("query_evidence does not offer the dataset: %s", d.Description)
		}
	}
	if len(byName) != 3 {
		t.Fatalf("tools %v", byName)
	}
	out := byName["list_evidence"](context.Background(), map[string]any{})
	files := out["files"].([]any)
	if len(files) != 2 {
		t.Fatalf("listed %v", files)
	}
	tbl := files[1].(map[string]any)
	if tbl["kind"] != "bigquery" || tbl["path"] != "bq://sec-lake.udm/events" || tbl["table"] != "`sec-lake.udm.events`" ||
		tbl["rows"] != int64(12) || tbl["types"].([]any)[0] != "TIMESTAMP" {
		t.Errorf("table listed as %v", tbl)
	}
	if _, ok := tbl["skipped"]; ok {
		t.Errorf("a BigQuery table has no skipped lines: %v", tbl)
	}
	out = byName["list_evidence"](context.Background(), map[string]any{"path": "bq://sec-lake.udm"})
	if n := len(out["files"].([]any)); n != 1 {
		t.Errorf("listing the dataset gave %d entries", n)
	}
	out = byName["query_evidence"](context.Background(), map[string]any{"sql": "SELECT principal, COUNT(*) n FROM events GROUP BY 1", "dataset": "sec-lake.udm"})
	if out["bytes_scanned"] != int64(2048) || out["dataset"] != "sec-lake.udm" || len(out["rows"].([]any)) != 1 {
		t.Errorf("query_evidence = %v", out)
	}
	out = byName["query_evidence"](context.Background(), map[string]any{"sql": "SELECT q FROM dns"})
	if _, ok := out["bytes_scanned"]; ok || out["error"] != nil {
		t.Errorf("without dataset the folder's tables answer: %v", out)
	}
	if len(f.runs) != 1 {
		t.Errorf("BigQuery ran %d times", len(f.runs))
	}

	only := openFake(t, 0, map[string]*fakeBQ{"sec-lake.udm": f}, "bq://sec-lake.udm")
	for _, tl := range only.Tools() {
		if tl.Declaration().Name == "grep_evidence" {
			t.Error("grep_evidence offered with no folder to grep")
		}
	}
	out = (queryTool{only}).Call(context.Background(), map[string]any{"sql": "SELECT 1"})
	if out["dataset"] != "sec-lake.udm" {
		t.Errorf("the only dataset is the default: %v", out)
	}
}

func TestBQSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{1: "1 byte", 1023: "1023 bytes", 1536: "1.5 KiB", 10 << 30: "10.0 GiB", 5 << 40: "5.0 TiB"} {
		if got := bqSize(n); got != want {
			t.Errorf("bqSize(%d) = %q, want %q", n, got, want)
		}
	}
	if got := BQCost(2 << 40); !strings.Contains(got, "2.0 TiB scanned, about $12.50 at $6.25/TiB") {
		t.Errorf("BQCost = %q", got)
	}
}

func TestBQCell(t *testing.T) {
	t.Parallel()
	rec := &bigquery.FieldSchema{Name: "resources", Type: bigquery.RecordFieldType, Repeated: true, Schema: bigquery.Schema{
		{Name: "type", Type: bigquery.StringFieldType}, {Name: "arn", Type: bigquery.StringFieldType}}}
	one := *rec
	one.Repeated = false
	for _, tc := range []struct {
		v    bigquery.Value
		f    *bigquery.FieldSchema
		want any
	}{
		{v: nil, want: nil},
		{v: int64(7), want: int64(7)},
		{v: "bad \xff", want: "bad \ufffd"},
		{v: []byte{0, 1, 2}, want: "AAEC"},
		{v: time.Date(2026, 11, 20, 3, 15, 2, 0, time.FixedZone("x", 3600)), want: "2026-11-20T02:15:02Z"},
		{v: civil.Date{Year: 2026, Month: 11, Day: 20}, want: "2026-11-20"},
		{v: big.NewRat(314159, 100000), want: "3.141590000"},
		{v: []bigquery.Value{[]bigquery.Value{"AWS::S3::Object", "arn:aws:s3:::b/k"}, []bigquery.Value{"AWS::S3::Bucket", nil}}, f: rec,
			want: `[{"arn":"arn:aws:s3:::b/k","type":"AWS::S3::Object"},{"arn":null,"type":"AWS::S3::Bucket"}]`},
		{v: []bigquery.Value{"AWS::S3::Object", "arn:aws:s3:::b/k"}, f: &one, want: `{"arn":"arn:aws:s3:::b/k","type":"AWS::S3::Object"}`},
		{v: []bigquery.Value{"192.0.2.10", "192.0.2.11"}, f: &bigquery.FieldSchema{Type: bigquery.StringFieldType, Repeated: true},
			want: `["192.0.2.10","192.0.2.11"]`},
	} {
		if got := bqCell(tc.v, tc.f); got != tc.want {
			t.Errorf("bqCell(%#v) = %#v, want %#v", tc.v, got, tc.want)
		}
	}
}
