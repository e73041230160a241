package redact

import "testing"

func TestNonASCIIAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		fold     bool
		proposes bool
	}{
		{"パスワード: Hunter2Pass9", false, true},
		{"\u3000x", true, false},
		{"０９０", true, false},
		{"\u2013x", true, false},
		{"\u2212x", true, false},
		{"日本語", false, false},
		{"é", false, false},
	}
	for _, tt := range tests {
		sc := &scanner{}
		next := sc.nonASCIIAt(tt.in, 0)
		if sc.fold != tt.fold || (len(sc.cands) > 0) != tt.proposes || next <= 0 {
			t.Errorf("nonASCIIAt(%q): fold %v, candidates %d, next %d; want fold %v, candidates %v", tt.in, sc.fold, len(sc.cands), next, tt.fold, tt.proposes)
		}
	}
}

func TestPunctAt(t *testing.T) {
	t.Parallel()
	at := func(k int) func(sc *scanner, s string) {
		return func(sc *scanner, s string) { sc.punctAt(s, k) }
	}
	tests := []struct {
		in   string
		at   int
		want string
	}{
		{"+1 (555) 123-4567", 0, "PHONE:+1 (555) 123-4567"},
		{"a+1", 1, ""},
		{"sshpass -p S3cretPass9 ssh host", 8, "SECRET:S3cretPass9"},
		{"login as root / W1nter!Sky", 14, "SECRET:W1nter!Sky"},
		{"db.internal:*:app:user:P@fi0M6966!", 12, "SECRET:P@fi0M6966!"},
		{"a - b", 2, ""},
		{"(note)", 0, ""},
	}
	for _, tt := range tests {
		checkRecognizer(t, "punctAt", at(tt.at), []recognizerCase{{tt.in, tt.want}})
	}
}

func TestTokenShapes(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) { sc.tokenShapes(s, 0, spanClass(s, 0, cDigit|cUpper|cLower, 0)) }
	checkRecognizer(t, "tokenShapes", run, []recognizerCase{
		// Azure's annotated key: "JQQJ" at 52, the service's signature at 76
		{"FBdFol081crwkIHWJH2yiqDDyrFjVSi7HWl22hN2hTYfsB8NlGDpJQQJ77BAACAAAAAAAAAAAAASAZDOBucT", "API_KEY:FBdFol081crwkIHWJH2yiqDDyrFjVSi7HWl22hN2hTYfsB8NlGDpJQQJ77BAACAAAAAAAAAAAAASAZDOBucT"},
		{"FBdFol081crwkIHWJH2yiqDDyrFjVSi7HWl22hN2hTYfsB8NlGDpXQQJ77BAACAAAAAAAAAAAAASAZDOBucT", ""},
		{"FBdFol081crwkIHWJH2yiqDDyrFjVSi7HWl22hN2hTYfsB8NlGDpJQQJ77BAACAAAAAAAAAAAAASAZDOBucTx", ""},
	})
}
