package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"cloud.google.com/go/bigquery"

	"github.com/alertchat/alertchat/internal/testenv"
)

// openLake starts a BigQuery emulator serving testdata/bigquery/secops.yaml and opens a Set of
// dirs on it.
func openLake(t *testing.T, dirs ...string) (*Set, error) {
	t.Helper()
	e := testenv.StartBigQuery(t, "sec-lake", filepath.Join("testdata", "bigquery", "secops.yaml"))
	s, err := Open(dirs, Options{CacheDir: t.TempDir(), BigQuery: func(ctx context.Context, project string) (*bigquery.Client, error) {
		return NewBigQueryClient(ctx, project, e.Host)
	}})
	if s != nil {
		t.Cleanup(func() { _ = s.Close() })
	}
	return s, err
}

// TestBigQueryOnTheEmulator runs the tools on a real engine: goccy/bigquery-emulator answers
// the client as BigQuery does (INFORMATION_SCHEMA, dry runs, jobs, nested values, errors).
func TestBigQueryOnTheEmulator(t *testing.T) {
	t.Parallel()
	s, err := openLake(t, "bq://sec-lake.secops")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("list", func(t *testing.T) {
		out := call(t, s, "list_evidence", map[string]any{})
		b, _ := json.Marshal(out)
		var got struct {
			Files []struct {
				Path, Kind, Table string
				Columns, Types    []string
				Rows              *int64
			}
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Files) != 2 {
			t.Fatalf("listed %s", b)
		}
		ct := got.Files[0]
		if ct.Path != "bq://sec-lake.secops/cloudtrail" || ct.Kind != "bigquery" || ct.Table != "`sec-lake.secops.cloudtrail`" {
			t.Errorf("cloudtrail listed as %+v", ct)
		}
		if strings.Join(ct.Columns, ",") != "event_time,event_name,source_ip,principal,error_code,resources" || ct.Types[0] != "TIMESTAMP" {
			t.Errorf("cloudtrail's columns %v %v", ct.Columns, ct.Types)
		}
		if ct.Rows == nil || *ct.Rows != 4 || got.Files[1].Rows == nil || *got.Files[1].Rows != 2 {
			t.Errorf("row counts: %s", b)
		}
	})

	t.Run("aggregate", func(t *testing.T) {
		res, err := s.QueryBigQuery(ctx, "", "SELECT source_ip, COUNT(*) AS n FROM cloudtrail GROUP BY source_ip ORDER BY n DESC", 10)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(res.Columns, ",") != "source_ip,n" || len(res.Rows) != 2 || res.Rows[0][0] != "198.51.100.23" || res.Rows[0][1] != int64(3) {
			t.Errorf("result %+v", res)
		}
		if res.Dataset != "sec-lake.secops" || s.BigQueryBytes() < res.BytesScanned {
			t.Errorf("dataset %q, bytes %d of %d", res.Dataset, res.BytesScanned, s.BigQueryBytes())
		}
	})

	t.Run("values", func(t *testing.T) {
		res, err := s.QueryBigQuery(ctx, "sec-lake.secops",
			"SELECT event_time, resources FROM `sec-lake.secops.cloudtrail` WHERE event_name = 'GetObject'", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 || res.Rows[0][0] != "2026-11-20T03:15:02Z" {
			t.Fatalf("rows %v", res.Rows)
		}
		// The emulator's result schema drops REPEATED from a repeated record, so the client
		// reads its one element as a record (TestBQCell checks the array as BigQuery sends it).
		var r map[string]string
		if err := json.Unmarshal([]byte(res.Rows[0][1].(string)), &r); err != nil ||
			r["arn"] != "arn:aws:s3:::finance-reports/q3.xlsx" || r["type"] != "AWS::S3::Object" {
			t.Errorf("a record as JSON text by field name: %v (%v)", res.Rows[0][1], err)
		}
		res, err = s.QueryBigQuery(ctx, "", "SELECT answers FROM dns WHERE query = 'cdn.example.org'", 10)
		if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != `["192.0.2.10","192.0.2.11"]` {
			t.Errorf("a repeated string: %v, %v", res, err)
		}
	})

	t.Run("row cap", func(t *testing.T) {
		res, err := s.QueryBigQuery(ctx, "", "SELECT event_name FROM cloudtrail ORDER BY event_time", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 2 || !res.Truncated {
			t.Errorf("rows %v, truncated %v", res.Rows, res.Truncated)
		}
	})

	t.Run("BigQuery's message", func(t *testing.T) {
		out := call(t, s, "query_evidence", map[string]any{"sql": "SELECT no_such_column FROM cloudtrail"})
		msg, _ := out["error"].(string)
		if !strings.HasPrefix(msg, "BigQuery: ") || !strings.Contains(msg, "no_such_column") {
			t.Errorf("error %q", msg)
		}
	})

	t.Run("writes refused", func(t *testing.T) {
		for _, q := range []string{"DELETE FROM cloudtrail WHERE true", "CREATE TABLE x AS SELECT 1"} {
			if _, err := s.QueryBigQuery(ctx, "", q, 10); err == nil {
				t.Errorf("%q ran", q)
			}
		}
		res, err := s.QueryBigQuery(ctx, "", "SELECT COUNT(*) FROM cloudtrail", 1)
		if err != nil || res.Rows[0][0] != int64(4) {
			t.Errorf("after the refused writes: %v, %v", res, err)
		}
	})
}

func TestBigQueryDatasetMissingOnTheEmulator(t *testing.T) {
	t.Parallel()
	_, err := openLake(t, "bq://sec-lake.gone")
	var de *DirError
	if !errors.As(err, &de) || err.Error() != "evidence dataset bq://sec-lake.gone does not exist" {
		t.Fatalf("Open = %v", err)
	}
}

// TestBigQueryListingIsOneQuery lists a dataset of 200 tables through a counting proxy: the
// columns of all of them are one query of INFORMATION_SCHEMA.COLUMNS, not a call per table.
// (The row counts are a second query of __TABLES__; the emulator cannot answer it, so here
// each table's metadata is asked instead, as on any engine without it.)
func TestBigQueryListingIsOneQuery(t *testing.T) {
	t.Parallel()
	var y strings.Builder
	y.WriteString("projects:\n- id: sec-lake\n  datasets:\n    - id: wide\n      tables:\n")
	for i := range 200 {
		fmt.Fprintf(&y, "        - id: t%03d\n          columns:\n            - name: ts\n              type: TIMESTAMP\n"+
			"            - name: host\n              type: STRING\n          data:\n            - ts: '2026-11-20T03:10:00Z'\n              host: h%d\n", i, i)
	}
	yaml := filepath.Join(t.TempDir(), "wide.yaml")
	if err := os.WriteFile(yaml, []byte(y.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := testenv.StartBigQuery(t, "sec-lake", yaml)
	target, _ := url.Parse(e.URL)
	var mu sync.Mutex
	var columnQueries, otherQueries, tableGets int
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/queries") && bytes.Contains(body, []byte("INFORMATION_SCHEMA.COLUMNS")):
			columnQueries++
		case r.Method == http.MethodPost:
			otherQueries++
		case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/tables/"):
			tableGets++
		}
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	s, err := Open([]string{"bq://sec-lake.wide"}, Options{CacheDir: t.TempDir(), BigQuery: func(ctx context.Context, project string) (*bigquery.Client, error) {
		return NewBigQueryClient(ctx, project, strings.TrimPrefix(proxy.URL, "http://"))
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	files, truncated, err := s.List(context.Background(), "", MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 200 || truncated || files[199].Path != "bq://sec-lake.wide/t199" || len(files[0].Columns) != 2 || files[7].Rows != 1 {
		t.Fatalf("listed %d (truncated %v): first %+v", len(files), truncated, files[0])
	}
	if _, _, err := s.List(context.Background(), "", 10); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if columnQueries != 1 || otherQueries > 1 {
		t.Errorf("columns queries %d, other queries %d: want 1 and at most 1 (__TABLES__)", columnQueries, otherQueries)
	}
	if tableGets != 200 {
		t.Errorf("table metadata asked %d times, want 200 (the emulator has no __TABLES__) and once per chat", tableGets)
	}
}
