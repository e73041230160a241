package session

import (
	"strings"
	"testing"
)

// TestCapResultCutsOutsideTokens: a result cut by --max-tool-result never ends in the first
// part of a token the cut fell in; a table is cut by whole rows and stays a table.
func TestCapResultCutsOutsideTokens(t *testing.T) {
	t.Parallel()
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImFkbWluIjp0cnVlfQ.c2lnbmF0dXJlLXNpZ25hdHVyZS1zaWduYXR1cmU"
	ghp := "ghp_" + strings.Repeat("A1b2C3d4E5", 4)[:36]
	for _, c := range []struct {
		name, token string
		pad         int
	}{
		{"jwt", jwt, 230},
		{"ghp", ghp, 240},
		{"ghp early", ghp, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &Session{opts: Options{MaxToolResult: 256}}
			res := s.capResult(map[string]any{"output": strings.Repeat("x", c.pad) + " " + c.token + " and more text after it to cut"})
			got, ok := res["truncated"].(string)
			if !ok {
				t.Fatalf("not cut: %v", res)
			}
			for n := 4; n <= len(c.token); n++ {
				if strings.HasSuffix(got, c.token[:n]) {
					t.Fatalf("the cut ends in the token's first %d bytes: %q", n, got[max(0, len(got)-60):])
				}
			}
		})
	}
	t.Run("table", func(t *testing.T) {
		t.Parallel()
		s := &Session{opts: Options{MaxToolResult: 300}}
		var rows []any
		for range 20 {
			rows = append(rows, []any{"alice", "hunter2"})
		}
		res := s.capResult(map[string]any{"columns": []any{"user", "password"}, "rows": rows, "truncated": false})
		kept, ok := res["rows"].([]any)
		if !ok || len(kept) == 0 || len(kept) == 20 || res["truncated"] != true {
			t.Fatalf("table cut: %v", res)
		}
	})
}
