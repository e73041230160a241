package redact

import (
	"strings"
	"testing"
)

// pathologicalPatterns are inputs built to defeat a linear scan (one detector re-reading the
// rest of the text at every occurrence). BenchmarkPathological repeats each to 256 KB and 1 MB:
// the per-byte cost (ns/op over SetBytes) must stay about the same, which a quadratic path
// would break. It is a benchmark, not a test, so that machine load cannot fail a build.
var pathologicalPatterns = func() map[string]string {
	return map[string]string{
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
		"status and size":  "200 5123 ",
		"oracle logins":    "sqlplus a/b@",
		"csv headers":      "user,password\n",
		"csv fields":       "password,",
	}
}()

func BenchmarkPathological(b *testing.B) {
	for name, p := range pathologicalPatterns {
		for _, size := range []struct {
			label string
			n     int
		}{{"256KB", 256 << 10}, {"1MB", 1 << 20}} {
			in := strings.Repeat(p, size.n/len(p)+1)
			b.Run(strings.ReplaceAll(name, " ", "_")+"/"+size.label, func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					all.String(in)
				}
			})
		}
	}
}
