package record_test

import (
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
)

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in           string
		exact, typed record.Verdict
	}{
		{"false_positive", record.VerdictFalsePositive, record.VerdictFalsePositive},
		{"inconclusive", record.VerdictInconclusive, record.VerdictInconclusive},
		// Flags take the contract's names only; a person at a prompt may type them loosely.
		{"FALSE_POSITIVE", "", record.VerdictFalsePositive},
		{"false-positive", "", record.VerdictFalsePositive},
		{" True Positive ", "", record.VerdictTruePositive},
		{"", "", ""},
		{"malicious", "", ""},
	} {
		if got, ok := record.ParseVerdict(tc.in); got != tc.exact || ok != (tc.exact != "") {
			t.Errorf("ParseVerdict(%q) = %q, %v; want %q", tc.in, got, ok, tc.exact)
		}
		if got, ok := record.ParseTypedVerdict(tc.in); got != tc.typed || ok != (tc.typed != "") {
			t.Errorf("ParseTypedVerdict(%q) = %q, %v; want %q", tc.in, got, ok, tc.typed)
		}
	}
}
