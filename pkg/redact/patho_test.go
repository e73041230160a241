package redact

import (
	"strings"
	"testing"
	"time"
)

// TestNoQuadraticInputs feeds inputs built to defeat the linear scan (one
// detector re-reading the rest of the text at every occurrence) and checks
// that a 4x larger input takes well under 16x the time.
func TestNoQuadraticInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	patterns := map[string]string{
		"pem without end":  "-----BEGIN RSA PRIVATE KEY-----\nMIIEabcdefghij\n",
		"pem with quotes":  "-----BEGIN PRIVATE KEY----- \"x\" ",
		"at signs":         "a@",
		"emails":           "a@b.example ",
		"digits":           "1 ",
		"dotted":           "1.",
		"colons":           "::",
		"hex colons":       "a:",
		"open quotes":      "password=\"",
		"equals":           "\"x\" == ",
		"placeholders":     "[REDACTED_IP]",
		"broken ph":        "[REDACTED_",
		"urls":             "http://",
		"curl":             " -u ",
		"dashes":           "-",
		"japanese":         "パスワード",
		"fullwidth":        "０",
		"key":              "token=",
		"long word":        "abcdefghij",
		"azure":            "abc1Q~",
		"bearer":           "Bearer ",
		"config lines":     "password: a b c d e f g h i j k l m n o p\n",
		"nested overlaps":  "0 (000)000 0::0.0.0.0 ",
		"probes":           "1:1:1:1:1:1:1:1:1:1 ",
		"unterminated url": "https://user:pass@",
	}
	for name, p := range patterns {
		small := strings.Repeat(p, (256<<10)/len(p)+1)
		large := strings.Repeat(p, (1<<20)/len(p)+1)
		ds, dl := minTime(small), minTime(large)
		t.Logf("%-18s 256KB %v, 1MB %v", name, ds, dl)
		if dl > 16*ds && dl > 200*time.Millisecond {
			t.Errorf("%s: %v for 1MB vs %v for 256KB (superlinear)", name, dl, ds)
		}
	}
}

// minTime is the fastest of three runs (the first one warms the pools).
func minTime(s string) time.Duration {
	best := time.Duration(1 << 62)
	for k := 0; k < 3; k++ {
		t0 := time.Now()
		all.String(s)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return best
}
