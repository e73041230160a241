package redact

import (
	"strings"
	"testing"
)

func TestPgpassAt(t *testing.T) {
	t.Parallel()
	// the walk calls pgpassAt at the colon before the port
	run := func(sc *scanner, s string) {
		c := strings.Index(s, ":5432:")
		if c < 0 {
			c = strings.IndexByte(s, ':')
		}
		sc.pgpassAt(s, c)
	}
	checkRecognizer(t, "pgpassAt", run, []recognizerCase{
		{"db.internal:5432:app:alice:P@fi0M6966!", "SECRET:P@fi0M6966!"},
		{"*:*:*:*:Sup3rS3cret", "SECRET:Sup3rS3cret"},
		{`{"c":"x\ndb:5432:*:app:pa\:ss1\n"}`, `SECRET:pa\:ss1`},
		{"the line 10.2.3.4:6432:*:billing:Bill1ngPw", "SECRET:Bill1ngPw"},
		{"the line 10.2.3.4:6432:billing:app:Bill1ngPw", ""},
		{"session:1:user:profile:avatar", ""},
		{"db:5432:app:alice:ab", ""},
		{"db:123456:app:alice:P@fi0M6966!", ""},
		{"db:5432:app:P@fi0M6966!", ""},
		{"db:5432:app:alice:${PGPASSWORD}", ""},
		{"db:5432:app:alice:P@fi0M6966!x:y", ""},
	})
}

func TestPgpassFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"port digits", pgpassPortEnd("h:5432:d", 1), 6},
		{"port wildcard", pgpassPortEnd("h:*:d", 1), 3},
		{"port too long", pgpassPortEnd("h:123456:d", 1), -1},
		{"port without colon", pgpassPortEnd("h:5432", 1), -1},
		{"host after escaped newline", pgpassHostStart(`x\ndb:`, 5), 3},
		{"host from line start", pgpassHostStart("db.example:", 10), 0},
		{"two fields", pgpassPasswordStart("db:user:pw", 0), 8},
		{"one field", pgpassPasswordStart("db:pw", 0), -1},
		{"password ends at a space", pgpassPasswordEnd("pw12 x", 0), 4},
		{"escaped colon inside", pgpassPasswordEnd(`p\:w\\n`, 0), 4},
		{"escaped quote ends", pgpassPasswordEnd(`pw\"`, 0), 2},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}
