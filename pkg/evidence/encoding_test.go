package evidence

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Text is s in UTF-16 with a byte order mark, as Windows PowerShell 5.1's Out-File
// writes it (little endian) or as big-endian tools do.
func utf16Text(s string, big bool) string {
	var order binary.AppendByteOrder = binary.LittleEndian
	if big {
		order = binary.BigEndian
	}
	out := order.AppendUint16(nil, 0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		out = order.AppendUint16(out, u)
	}
	return string(out)
}

// TestEncodings: a UTF-8 byte order mark is dropped and UTF-16 with one is decoded, for every
// kind of table and for grep alike.
func TestEncodings(t *testing.T) {
	t.Parallel()
	ndjson := "{\"user\":\"アリス\",\"src\":\"203.0.113.7\"}\r\n{\"user\":\"bob\",\"src\":\"10.0.0.1\"}\r\n"
	csv := "user,src\r\nアリス,203.0.113.7\r\nbob,10.0.0.1\r\n"
	array := `[{"user":"アリス","src":"203.0.113.7"},{"user":"bob","src":"10.0.0.1"}]`
	for _, c := range []struct {
		name, file, data, kind string
	}{
		{"json array behind a UTF-8 BOM", "a.json", "\ufeff" + array, kindJSON},
		{"ndjson behind a UTF-8 BOM", "n.ndjson", "\ufeff" + ndjson, kindNDJSON},
		{"ndjson .log behind a UTF-8 BOM", "n.log", "\ufeff" + ndjson, kindNDJSON},
		{"csv behind a UTF-8 BOM", "c.csv", "\ufeff" + csv, kindCSV},
		{"json array in UTF-16 LE", "a.json", utf16Text(array, false), kindJSON},
		{"ndjson .log in UTF-16 LE", "n.log", utf16Text(ndjson, false), kindNDJSON},
		{"csv in UTF-16 LE", "c.csv", utf16Text(csv, false), kindCSV},
		{"csv in UTF-16 BE", "c.csv", utf16Text(csv, true), kindCSV},
		{"gzip'd ndjson in UTF-16 LE", "n.ndjson.gz", string(gz(t, []byte(utf16Text(ndjson, false)))), kindNDJSON},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openSet(t, dir)
			cat, err := s.catalog()
			if err != nil || len(cat) != 1 {
				t.Fatal(cat, err)
			}
			if cat[0].kind != c.kind {
				t.Fatalf("kind %s, want %s", cat[0].kind, c.kind)
			}
			res, err := s.Query(context.Background(), "SELECT user, src FROM "+cat[0].table+" ORDER BY src DESC", 10)
			if err != nil {
				t.Fatal(err)
			}
			want := [][]any{{"アリス", "203.0.113.7"}, {"bob", "10.0.0.1"}}
			if !reflect.DeepEqual(res.Columns, []string{"user", "src"}) || !reflect.DeepEqual(res.Rows, want) {
				t.Errorf("got %v %v, want %v", res.Columns, res.Rows, want)
			}
			g, err := s.Grep(context.Background(), GrepOptions{Pattern: `アリス`, Limit: 10})
			if err != nil || len(g.Matches) != 1 || !strings.Contains(g.Matches[0].Text, "203.0.113.7") || strings.ContainsRune(g.Matches[0].Text, '\ufeff') {
				t.Errorf("grep: %+v %v", g, err)
			}
		})
	}
}

// TestGrepEncodings: text files behind a UTF-8 BOM or in UTF-16 are searched as text, the
// first line without its mark, with line numbers and ignore_case as for UTF-8.
func TestGrepEncodings(t *testing.T) {
	t.Parallel()
	text := "Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7\r\nNov 20 10:04:00 web1 app[99]: ユーザー アリス (ÉTÉ)\r\n"
	dir := t.TempDir()
	for name, data := range map[string]string{"bom.txt": "\ufeff" + text, "le.txt": utf16Text(text, false), "be.txt": utf16Text(text, true)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openSet(t, dir)
	for _, c := range []struct {
		o    GrepOptions
		line int64
		text string
	}{
		{GrepOptions{Pattern: `^Nov 20 10:00:01`}, 1, "Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7"},
		{GrepOptions{Pattern: `été`, IgnoreCase: true}, 2, "Nov 20 10:04:00 web1 app[99]: ユーザー アリス (ÉTÉ)"},
		{GrepOptions{Pattern: `ACCEPTED PUBLICKEY`, IgnoreCase: true}, 1, "Nov 20 10:00:01 web1 sshd[411]: Accepted publickey for alice from 203.0.113.7"},
	} {
		c.o.Limit = 10
		res, err := s.Grep(context.Background(), c.o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != 3 || res.FilesSearched != 3 {
			t.Fatalf("%q: %+v", c.o.Pattern, res)
		}
		for _, m := range res.Matches {
			if m.Line != c.line || m.Text != c.text {
				t.Errorf("%q in %s: line %d %q, want %d %q", c.o.Pattern, m.Path, m.Line, m.Text, c.line, c.text)
			}
		}
	}
}
