package redact

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkQuick fails when find (with the quick shapes) and the full scan disagree on s.
func checkQuick(t *testing.T, s string) {
	t.Helper()
	var a, b scanner
	if got, want := a.find(s), b.scanAll(s); !slices.Equal(got, want) {
		t.Fatalf("%q: find %v, the full scan %v", s, got, want)
	}
}

// The quick shapes rest on facts about the detectors; these are the ones a rule table holds:
// no vendor token fits in a quick shape. A body that may hold '.' may run over the labels of
// an address, up to maxQuick bytes; any other lies in one word or label with the end of its
// prefix, up to quickWord bytes.
func TestQuickShapesVendorRules(t *testing.T) {
	t.Parallel()
	for _, r := range vendorRules {
		word := r.prefix[strings.LastIndexByte(r.prefix, '.')+1:]
		if r.set['.'] && len(r.prefix)+r.min <= maxQuick || !r.set['.'] && len(word)+r.min <= quickWord {
			t.Errorf("vendor rule %q (body %d-%d) fits in a quick shape", r.prefix, r.min, r.max)
		}
	}
}

func TestQuickShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"NL", true}, {"ConsoleLogin", true}, {"_id", true}, {"first_seen", true}, {"AS64500", true},
		{"ConsoleLogins", false}, {"us-east-1", false}, {"9lives", false}, {"", false}, {"naïve", false},
		{"2025-11-26T10:04:05Z", true}, {"2025-11-26T10:04:05.123456789+09:00", true}, {"2025-11-26T10:04:05", true},
		{"2025-11-26T10:04:05.1234567891Z", false}, {"2025-11-26T10:04:05.Z", false}, {"2025-11-26 10:04:05", false},
		{"2025-11-26T10:04:05+0900", false}, {"2025-11-26", false}, {"2025-11-26T10:04Z", false},
		{"203.0.113.7", true}, {"010.001.000.001", false}, {"256.1.1.1", false}, {"1.2.3.4.5", false}, {"1.2.3.4:80", false},
		{"user1@example.com", true}, {"_svc@mail2.example.org", true}, {"first.last@example.com", false},
		{"a+b@example.com", false}, {"bob@my-corp.example", false}, {"ops@example.c", false}, {"ops@example.c0m", false},
		{"x@eyJhbGciOiJIUzI1.eyJzdWIiOiIx.io", false}, {"user@1.example.com", false}, {"user@example..com", false},
		{"user@example.com.", false}, {"user@.com", false}, {"user@com", false}, {"averyveryverylonglocal@example.com", false},
	} {
		if _, ok := quick(nil, tc.s); ok != tc.want {
			t.Errorf("quick(%q) = %v, want %v", tc.s, ok, tc.want)
		}
		checkQuick(t, tc.s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for range 20000 {
		for _, s := range []string{quickTimestamp(rng), quickIPv4(rng), quickWordOf(rng), quickEmail(rng)} {
			if _, ok := quick(nil, s); ok {
				n++
			}
			checkQuick(t, s)
		}
	}
	if n < 30000 {
		t.Fatalf("only %d of the generated strings had a quick shape", n)
	}
}

// FuzzQuickShapes holds find to the full scan on the input and on quick shapes made of it.
func FuzzQuickShapes(f *testing.F) {
	for _, s := range []string{"2025-11-26T10:04:05.123Z", "203.0.113.7", "ConsoleLogin", "user1@example.com", "AKIA", "eyJhbGciOi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rng := rand.New(rand.NewPCG(uint64(len(s)), uint64(strings.Count(s, "a"))))
		checkQuick(t, s)
		checkQuick(t, fill("dddd-dd-ddTdd:dd:dd.ddddddddd+dd:dd"[:min(len(s)+19, 35)], s))
		checkQuick(t, fill("dddd-dd-ddTdd:dd:ddZ", s))
		checkQuick(t, fill("ddd.ddd.ddd.ddd", s))
		if len(s) > 0 && len(s) <= quickWord && isAlpha(s[0]) {
			checkQuick(t, s+"@"+quickLabel(rng)+"."+s+".com")
			checkQuick(t, quickLabel(rng)+"@"+s+"."+s)
		}
	})
}

// fill writes the bytes of s, as digits, into the 'd's of layout.
func fill(layout, s string) string {
	b := []byte(layout)
	k := 0
	for i, c := range b {
		if c == 'd' {
			if k < len(s) {
				b[i] = '0' + s[k]%10
				k++
			} else {
				b[i] = '0'
			}
		}
	}
	return string(b)
}

// quickWords are words the detectors care about: vendor prefixes, keys of assignments,
// authorization schemes, a JWT's start, the keyword before a PowerShell secure string.
var quickWords = func() []string {
	w := []string{"password", "passwd", "token", "secret", "api", "apikey", "key", "Bearer", "Basic", "Token", "eyJ",
		"eyJhbGciOi", "convertto", "sonar", "name", "pwd", "xn", "com", "M", "N", "O"}
	for _, r := range vendorRules {
		w = append(w, r.prefix)
	}
	return w
}()

const (
	quickLead = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	quickRest = quickLead + "0123456789"
)

// quickWordOf makes a word of up to quickWord bytes, often led by a word the detectors know.
func quickWordOf(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteString(quickWords[rng.IntN(len(quickWords))])
	} else {
		b.WriteByte(quickLead[rng.IntN(len(quickLead))])
	}
	for l := 1 + rng.IntN(quickWord+2); b.Len() < l; {
		b.WriteByte((quickRest + "_")[rng.IntN(len(quickRest)+1)])
	}
	return b.String()
}

// quickLabel makes a domain label: a word of letters and digits, at times 10 bytes and more
// led by "eyJ" (a JWT's segment).
func quickLabel(rng *rand.Rand) string {
	if rng.IntN(4) == 0 {
		return "eyJ" + fmt.Sprintf("%07d", rng.IntN(1e7))
	}
	return strings.ReplaceAll(quickWordOf(rng), "_", "")
}

func quickEmail(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(quickWordOf(rng))
	b.WriteByte('@')
	for i := range 1 + rng.IntN(3) {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quickLabel(rng))
	}
	b.WriteByte('.')
	for l := 1 + rng.IntN(5); l > 0; l-- {
		b.WriteByte(quickLead[rng.IntN(len(quickLead))])
	}
	return b.String()
}

func quickIPv4(rng *rand.Rand) string {
	octets := []string{"0", "1", "9", "10", "99", "100", "127", "199", "200", "249", "250", "255", "256", "00", "01", "000", "010", "099"}
	parts := make([]string, 3+rng.IntN(3))
	for i := range parts {
		if rng.IntN(2) == 0 {
			parts[i] = octets[rng.IntN(len(octets))]
		} else {
			parts[i] = fmt.Sprint(rng.IntN(256))
		}
	}
	return strings.Join(parts, ".")
}

func quickTimestamp(rng *rand.Rand) string {
	s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", rng.IntN(10000), rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100), rng.IntN(100))
	if k := rng.IntN(12); k > 0 {
		s += "." + fmt.Sprintf("%010d", rng.Int64N(1e10))[:min(k, 10)]
	}
	switch rng.IntN(4) {
	case 1:
		s += "Z"
	case 2:
		s += fmt.Sprintf("+%02d:%02d", rng.IntN(100), rng.IntN(100))
	case 3:
		s += fmt.Sprintf("-%02d:%02d", rng.IntN(100), rng.IntN(100))
	}
	return s
}
