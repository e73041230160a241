package embedding

import (
	"testing"

	"github.com/alertchat/alertchat/internal/storetest"
)

// The layer changes SaveHistory and PutKnowledge alone: every other method goes to the store
// below unseen.
func TestOverridesSaveHistoryAndPutKnowledgeOnly(t *testing.T) {
	t.Parallel()
	if own := storetest.Overrides[layer](t); len(own) != 2 || !own["SaveHistory"] || !own["PutKnowledge"] {
		t.Fatalf("the embedding layer declares %v, want SaveHistory and PutKnowledge alone", own)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want []string
	}{
		{"", 5, nil},
		{"short", 10, []string{"short"}},
		{"one two three", 9, []string{"one two ", "three"}},
		{"line one\nline two", 12, []string{"line one\n", "line two"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"日本語のテキスト", 3, []string{"日本語", "のテキ", "スト"}},
	} {
		if got := split(tc.in, tc.n); !equal(got, tc.want) {
			t.Errorf("split(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
