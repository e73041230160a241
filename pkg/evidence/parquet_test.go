package evidence

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

type pqIdentity struct {
	Type     string `parquet:"type"`
	UserName string `parquet:"userName"`
}

type pqEvent struct {
	EventTime time.Time  `parquet:"eventTime,timestamp(millisecond)"`
	EventName string     `parquet:"eventName"`
	SourceIP  *string    `parquet:"sourceIPAddress,optional"`
	Bytes     int64      `parquet:"bytes"`
	Port      int32      `parquet:"port"`
	Ratio     float64    `parquet:"ratio"`
	ReadOnly  bool       `parquet:"readOnly"`
	Tags      []string   `parquet:"tags,list"`
	Identity  pqIdentity `parquet:"userIdentity"`
}

// parquetFile is a small Parquet file of CloudTrail-like events, as an export would write it.
func parquetFile(t testing.TB) []byte {
	t.Helper()
	ip := "203.0.113.7"
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[pqEvent](&buf)
	if _, err := w.Write([]pqEvent{
		{time.Date(2026, 11, 20, 10, 1, 0, 0, time.UTC), "ConsoleLogin", &ip, 1200, 443, 0.5, false, []string{"mfa", "<console>"}, pqIdentity{"IAMUser", "alice"}},
		{time.Date(2026, 11, 20, 10, 5, 0, 0, time.UTC), "ListBuckets", nil, 0, 0, 0, true, nil, pqIdentity{"AssumedRole", "build"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParquet: a Parquet file is a table (timestamps RFC 3339 UTC, nested values JSON text); a
// .parquet that is not one is binary with its error; a cut one says it is damaged.
func TestParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := parquetFile(t)
	for name, b := range map[string][]byte{"ct.parquet": data, "fake.parquet": []byte("eventName,x\n"), "cut.parquet": data[:len(data)/2]} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openSet(t, dir)
	res, err := s.Query(context.Background(), `SELECT eventTime, eventName, sourceIPAddress, bytes, port, ratio, readOnly, tags, json_extract(userIdentity, '$.userName') FROM ct ORDER BY eventTime`, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"2026-11-20T10:01:00Z", "ConsoleLogin", "203.0.113.7", int64(1200), int64(443), 0.5, int64(0), `["mfa","<console>"]`, "alice"},
		{"2026-11-20T10:05:00Z", "ListBuckets", nil, int64(0), int64(0), 0.0, int64(1), `[]`, "build"},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows\n got %v\nwant %v", res.Rows, want)
	}
	files, _, err := s.List(context.Background(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]FileInfo{}
	for _, f := range files {
		kinds[f.Path] = f
	}
	if f := kinds["ct.parquet"]; f.Kind != kindParquet || f.Table != "ct" || f.Rows != 2 || len(f.Columns) != 9 {
		t.Errorf("ct.parquet listed %+v", f)
	}
	if f := kinds["fake.parquet"]; f.Kind != kindBinary || !strings.Contains(f.Error, "not a Parquet file") || f.Table != "" {
		t.Errorf("fake.parquet listed %+v", f)
	}
	if _, err := s.Query(context.Background(), `SELECT * FROM cut`, 10); err == nil || !strings.Contains(err.Error(), "Parquet") {
		t.Errorf("a cut file: %v", err)
	}
	g, err := s.Grep(context.Background(), GrepOptions{Pattern: "ConsoleLogin", Limit: 10})
	if err != nil || len(g.Matches) != 0 {
		t.Errorf("grep read a Parquet file as text: %+v %v", g, err)
	}
}

// TestParquetFooterBound: a footer length that does not fit in the file is refused before
// parquet-go reads it (it allocates the stated length first: 1.8 GB for the 2.5 KB file the
// fuzzer hung on).
func TestParquetFooterBound(t *testing.T) {
	data := parquetFile(t)
	for _, n := range []uint32{0x6d00049f, uint32(len(data)), maxParquetFooter + 1} {
		b := bytes.Clone(data)
		binary.LittleEndian.PutUint32(b[len(b)-8:], n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := readParquet(bytes.NewReader(b), int64(len(b)), func(record) error { return nil })
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "footer") {
			t.Errorf("footer length %d: %v", n, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("footer length %d: %d bytes allocated", n, grew)
		}
	}
}

// FuzzReadParquet: a damaged Parquet file is an error, never a crash.
func FuzzReadParquet(f *testing.F) {
	data := parquetFile(f)
	f.Add(data)
	f.Add(data[:len(data)-10])
	f.Add([]byte("PAR1PAR1"))
	f.Add([]byte("PAR1\x15\x06\x15 \x15 \x15\x9d\x9f\x04\x00mPAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readParquet(bytes.NewReader(b), int64(len(b)), func(rec record) error {
			if !rec.schema && len(rec.typed) != len(rec.keys) {
				t.Fatalf("%d values for %d columns", len(rec.typed), len(rec.keys))
			}
			return nil
		})
	})
}
