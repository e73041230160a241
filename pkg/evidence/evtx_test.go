package evidence

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// evtxSample is a real event log of testdata/evidence (its README names the source).
func evtxSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "evidence", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEVTX: a Windows event log is a table with the design's columns, EventData a JSON object
// of the event's named data; a damaged record is skipped and counted, the rest read; a .evtx
// that is not one is binary with its error.
func TestEVTX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sec := evtxSample(t, "new-user-security.evtx")
	// The second record gets a byte no BinXML token has where its template instance begins.
	damaged := bytes.Clone(sec)
	first := evtxHeaderSize + evtxChunkHeader
	second := first + int(binary.LittleEndian.Uint32(damaged[first+4:]))
	damaged[second+24+4] = 0x3f // the template instance token
	for name, b := range map[string][]byte{
		"host1/Security.evtx": sec, "host1/Sysmon.evtx": evtxSample(t, "sysmon-first-chunk.evtx"),
		"damaged.evtx": damaged, "fake.evtx": []byte("EventID,Computer\n4624,dc01\n"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openSet(t, dir)
	ctx := context.Background()

	res, err := s.Query(ctx, `SELECT EventID, TimeCreated, Computer, Channel, Provider, EventRecordID, Level, UserID,
		json_extract(EventData, '$.TargetUserName'), json_extract(EventData, '$.MemberSid')
		FROM host1_Security ORDER BY EventRecordID LIMIT 1`, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(4728), "2013-10-23T16:22:39.9735Z", "IE8Win7", "Security", "Microsoft-Windows-Security-Auditing",
		int64(111), int64(0), nil, "None", "S-1-5-21-3463664321-2923530833-3546627382-1000"}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("security rows\n got %v\nwant %v", res.Rows, want)
	}

	res, err = s.Query(ctx, `SELECT count(*), count(DISTINCT Channel), min(UserID),
		sum(json_extract(EventData, '$.Image') LIKE '%\PING.EXE' ESCAPE '!') FROM host1_Sysmon WHERE EventID = 1`, 10)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Rows[0]; r[0].(int64) == 0 || r[1] != int64(1) || r[2] != "S-1-5-18" || r[3].(int64) == 0 {
		t.Errorf("sysmon process creations: %v", r)
	}

	files, _, err := s.List(ctx, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileInfo{}
	for _, f := range files {
		got[f.Path] = f
	}
	if f := got["host1/Security.evtx"]; f.Kind != kindEVTX || f.Table != "host1_Security" || !reflect.DeepEqual(f.Columns, evtxColumns) {
		t.Errorf("Security.evtx listed %+v", f)
	}
	if f := got["fake.evtx"]; f.Kind != kindBinary || !strings.Contains(f.Error, "not a Windows event log") || f.Table != "" {
		t.Errorf("fake.evtx listed %+v", f)
	}
	if _, err := s.Query(ctx, `SELECT count(*) FROM damaged`, 10); err != nil {
		t.Fatal(err)
	}
	files, _, err = s.List(ctx, "damaged.evtx", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Rows != 3 || files[0].Skipped != 1 {
		t.Errorf("damaged.evtx listed %+v, want 3 rows and 1 skipped", files)
	}
	g, err := s.Grep(ctx, GrepOptions{Pattern: "Security", Limit: 10})
	if err != nil || len(g.Matches) != 0 {
		t.Errorf("grep read an event log as text: %+v %v", g, err)
	}
}

// TestEVTXCut: a log cut in the middle of a chunk keeps the chunks before it and counts the
// cut one; a chunk without its magic is unused space, neither a row nor damage.
func TestEVTXCut(t *testing.T) {
	t.Parallel()
	sec := evtxSample(t, "new-user-security.evtx")
	for _, tc := range []struct {
		name          string
		data          []byte
		rows, skipped int64
	}{
		{"whole", sec, 4, 0},
		{"cut", sec[:evtxHeaderSize+evtxChunkSize/2], 0, 1},
		{"unused chunk", append(bytes.Clone(sec), bytes.Repeat([]byte{0x54}, evtxChunkSize)...), 4, 0},
		{"header only", sec[:evtxHeaderSize], 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st, err := readEVTX(bytes.NewReader(tc.data), int64(len(tc.data)), func(record) error { return nil })
			if err != nil || st.rows != tc.rows || st.skipped != tc.skipped {
				t.Errorf("got %d rows, %d skipped, %v; want %d, %d", st.rows, st.skipped, err, tc.rows, tc.skipped)
			}
		})
	}
}

// FuzzReadEVTX: a damaged event log is rows and skipped records, never a crash, and every row
// has the design's columns.
func FuzzReadEVTX(f *testing.F) {
	sec := evtxSample(f, "new-user-security.evtx")
	f.Add(sec)
	f.Add(evtxSample(f, "sysmon-first-chunk.evtx"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = readEVTX(bytes.NewReader(b), int64(len(b)), func(rec record) error {
			if !rec.schema && len(rec.typed) != len(evtxColumns) {
				t.Fatalf("%d values for %d columns", len(rec.typed), len(evtxColumns))
			}
			return nil
		})
	})
}
