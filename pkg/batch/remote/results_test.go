package remote

import (
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want key
		ok   bool
	}{
		{"q1", key{line: 1}, true},
		{"t12", key{title: true, line: 12}, true},
		{"q3@7", key{line: 3, at: 7}, true},
		{"t3@7", key{}, false},
		{"q0", key{}, false},
		{"q", key{}, false},
		{"x1", key{}, false},
		{"q1@", key{}, false},
		{"q1@0", key{}, false},
		{"q-1", key{}, false},
		{"", key{}, false},
	}
	for _, tc := range tests {
		got, err := parseKey(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseKey(%q) = %+v, %v", tc.in, got, err)
		}
		if tc.ok && got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

func TestResultLines(t *testing.T) {
	t.Parallel()
	r := newResults()
	for _, l := range []string{
		`{"key": "q1", "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "one"}]}}]}}`,
		`{"key": "t1", "response": {"candidates": [{"content": {"role": "model", "parts": [{"text": "Title"}]}}]}}`,
		`{"key": "q2", "error": {"code": 429, "message": "quota"}}`,
		`{"key": "q3@4", "response": {"candidates": [`,
		`{"key": "q4", "response": null}`,
		`{"key": "zz", "response": {}}`,
		`garbage`,
	} {
		r.addLine([]byte(l))
	}
	if a := r.answers[1]; a.err != nil || a.resp == nil || r.titles[1] == nil {
		t.Fatalf("line 1: %+v, title %v", a, r.titles[1])
	}
	if a := r.answers[2]; a.err == nil || !strings.Contains(a.err.Error(), "quota") {
		t.Fatalf("line 2: %+v", a)
	}
	if a := r.answers[3]; a.err == nil || a.at != 4 {
		t.Fatalf("line 3 (unreadable): %+v", a)
	}
	if a := r.answers[4]; a.err == nil {
		t.Fatalf("line 4 (no response): %+v", a)
	}
	if r.unmatched != 2 {
		t.Fatalf("unmatched %d, want 2", r.unmatched)
	}
}

// FuzzResultLine: no line of a results file panics, and each is counted once: as an answer, a
// title or unmatched.
func FuzzResultLine(f *testing.F) {
	for _, s := range []string{`{"key": "q1", "response": {}}`, `{"key": "t2", "error": {"code": 1}}`, `{"key": "q3@2"`, `{}`, `"key":"q9"`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r := newResults()
		r.addLine([]byte(line))
		if n := len(r.answers) + len(r.titles) + r.unmatched; n > 1 {
			t.Fatalf("%q counted %d times", line, n)
		}
	})
}
