package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// piecesOf returns pointers to copies of parts.
func piecesOf(parts []string) ([]string, []*string) {
	cp := append([]string(nil), parts...)
	ps := make([]*string, len(cp))
	for i := range cp {
		ps[i] = &cp[i]
	}
	return cp, ps
}

// cutAt cuts s into pieces at the given byte offsets (sorted, within s).
func cutAt(s string, at ...int) []string {
	var out []string
	prev := 0
	for _, a := range at {
		out = append(out, s[prev:a])
		prev = a
	}
	return append(out, s[prev:])
}

func TestPiecesValueAcrossBoundaries(t *testing.T) {
	t.Parallel()
	keyed := all.WithTokens(testTokenizer(t, []byte("0123456789abcdef0123456789abcdef")))
	emailTok, _ := keyed.String("alice@example.com")
	tests := []struct {
		name  string
		parts []string
		want  []string
	}{
		{
			name:  "a URL password cut before the host",
			parts: []string{"Connect with postgres://admin:S3cr3tPassw0rd", "@db.internal now."},
			want:  []string{"Connect with postgres://admin:[REDACTED_SECRET]", "@db.internal now."},
		},
		{
			name:  "an address cut in its last group",
			parts: []string{"The source was 203.0.11", "3.77"},
			want:  []string{"The source was [REDACTED_IP]", ""},
		},
		{
			name:  "an address in three pieces keeps the pieces around it",
			parts: []string{"from 203.", "0.113", ".77 to"},
			want:  []string{"from [REDACTED_IP]", "", " to"},
		},
		{
			name:  "an e-mail address cut after two letters",
			parts: []string{"owner al", "ice@example.com."},
			want:  []string{"owner [REDACTED_EMAIL]", "."},
		},
		{
			name:  "empty and nil-free pieces between",
			parts: []string{"mail ", "", "bob@", "", "example.org", ""},
			want:  []string{"mail ", "", "[REDACTED_EMAIL]", "", "", ""},
		},
		{
			name:  "nothing to replace leaves every piece",
			parts: []string{"all ", "quiet ", "here"},
			want:  []string{"all ", "quiet ", "here"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ps := piecesOf(tt.parts)
			counts := Counts{}
			all.Pieces(ps, false, counts)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Pieces(%q) = %q, want %q", tt.parts, got, tt.want)
			}
			whole, wantCounts := all.String(strings.Join(tt.parts, ""))
			if strings.Join(got, "") != whole {
				t.Errorf("joined %q, whole text redacts to %q", strings.Join(got, ""), whole)
			}
			if len(counts) != len(wantCounts) {
				t.Errorf("counts %v, whole text counts %v", counts, wantCounts)
			}
		})
	}
	t.Run("the token of a cut value is the token of the value", func(t *testing.T) {
		t.Parallel()
		got, ps := piecesOf([]string{"owner al", "ice@example.com"})
		keyed.Pieces(ps, false, nil)
		if got[0] != "owner "+emailTok || got[1] != "" {
			t.Errorf("got %q, want the token %s in the first piece", got, emailTok)
		}
	})
}

func TestPiecesCutShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
	}{
		{"a URL password before its host", "Use postgres://admin:S3cr", "Use postgres://admin:[REDACTED_SECRET]"},
		{"an address in its third group", "The source was 203.0.11", "The source was [REDACTED_IP]"},
		{"an e-mail address in its domain", "Write to alice@exa", "Write to [REDACTED_EMAIL]"},
		{"a password after the word", "the password is Tr0m", "the password is [REDACTED_SECRET]"},
		{"an assignment's value", "set password: S3cr", "set password: [REDACTED_SECRET]"},
		{"a vendor token's prefix", "export GITHUB_TOKEN=ghp_ab", "export GITHUB_TOKEN=[REDACTED_API_KEY]"},
		{"a phone number in its last group", "call +1 202 555 01", "call [REDACTED_PHONE]"},
		{"a whole value at the end keeps its token", "mail alice@example.com", "mail [REDACTED_EMAIL]"},
		{"an ordinary last word", "The host looks benign", "The host looks benign"},
		{"a URL without credentials", "see https://example.com/a", "see https://example.com/a"},
		{"a version", "version 1.2", "version 1.2"},
		{"a space at the end", "The password is ", "The password is "},
		{"a value before the tail", "from 198.51.100.7 and 10.0", "from [REDACTED_IP] and [REDACTED_IP]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, at := range []int{len(tt.text), len(tt.text) / 2, len(tt.text) - 2} {
				got, ps := piecesOf(cutAt(tt.text, at))
				all.Pieces(ps, true, nil)
				if strings.Join(got, "") != tt.want {
					t.Errorf("cut at %d: Pieces(%q, cut) = %q, want %q", at, tt.text, strings.Join(got, ""), tt.want)
				}
			}
		})
	}
	t.Run("what the tail leaves is redacted with it", func(t *testing.T) {
		t.Parallel()
		// with its last group replaced, the groups before it are a phone number, which
		// the whole number was too long to be: the first redaction takes them in, so a
		// second one changes nothing
		for _, text := range []string{
			"ref 000000000000000000000000000000000!00000000 0000 0000",
			"ref 00000000000000A 000000000 (0)00 000 00",
		} {
			got, ps := piecesOf([]string{text})
			all.Pieces(ps, true, nil)
			again, ps2 := piecesOf(got)
			if changed, _ := all.Pieces(ps2, true, nil); changed {
				t.Errorf("Pieces(%q, cut) = %q, and again %q", text, got[0], again[0])
			}
			if !strings.HasSuffix(got[0], "[REDACTED_PHONE]") {
				t.Errorf("Pieces(%q, cut) = %q, want the groups and the tail one phone number", text, got[0])
			}
		}
	})
	t.Run("an uncut text is left to the detectors", func(t *testing.T) {
		got, ps := piecesOf([]string{"The source was 203.0.11"})
		all.Pieces(ps, false, nil)
		if got[0] != "The source was 203.0.11" {
			t.Errorf("got %q", got[0])
		}
	})
}

// randomCut cuts s into pieces at random byte offsets (some inside characters, as a stream
// of bytes could, some empty pieces, sometimes every byte a piece).
func randomCut(rng *rand.Rand, s string) []string {
	if len(s) == 0 {
		return []string{"", ""}
	}
	if rng.IntN(8) == 0 {
		out := make([]string, len(s))
		for i := 0; i < len(s); i++ {
			out[i] = s[i : i+1]
		}
		return out
	}
	n := rng.IntN(min(len(s), 12)) + 1
	at := make([]int, n)
	for i := range at {
		at[i] = rng.IntN(len(s) + 1)
	}
	for i := 1; i < len(at); i++ {
		for j := i; j > 0 && at[j-1] > at[j]; j-- {
			at[j-1], at[j] = at[j], at[j-1]
		}
	}
	return cutAt(s, at...)
}

// checkPieces holds the property: the redacted pieces joined are the redaction of the whole
// text, tokens and counts included, and no piece but one holding a replacement changes.
func checkPieces(t *testing.T, r *Redactor, s string, parts []string, cut bool) {
	t.Helper()
	got, ps := piecesOf(parts)
	counts := Counts{}
	r.Pieces(ps, cut, counts)
	var whole string
	var wantCounts Counts
	if cut {
		_, one := piecesOf([]string{s})
		wantCounts = Counts{}
		r.Pieces(one, true, wantCounts)
		whole = *one[0]
	} else {
		whole, wantCounts = r.String(s)
	}
	if j := strings.Join(got, ""); j != whole {
		t.Fatalf("pieces %q redacted and joined:\n%q\nthe whole text redacted:\n%q", parts, j, whole)
	}
	// redaction is idempotent, also of a text cut short
	again, ps2 := piecesOf(got)
	if changed, _ := r.Pieces(ps2, cut, nil); changed {
		t.Fatalf("redacting again (cut %v) changed %q into %q", cut, got, again)
	}
	for k, v := range wantCounts {
		if counts[k] != v {
			t.Fatalf("pieces %q: counts %v, the whole text's %v", parts, counts, wantCounts)
		}
	}
	for i := range parts {
		if got[i] != parts[i] && !strings.Contains(got[i], phPrefix) && got[i] != "" && !strings.HasSuffix(parts[i], got[i]) {
			t.Fatalf("piece %d %q became %q without a replacement", i, parts[i], got[i])
		}
	}
	if utf8.ValidString(s) && !utf8.ValidString(strings.Join(got, "")) {
		t.Fatalf("valid input %q became invalid UTF-8", s)
	}
}

func TestPiecesProperty(t *testing.T) {
	t.Parallel()
	keyed := all.WithTokens(testTokenizer(t, []byte("0123456789abcdef0123456789abcdef")))
	rng := rand.New(rand.NewPCG(1, 2))
	texts := append([]string(nil), fuzzSeeds...)
	for _, rec := range loadCorpus(t) {
		texts = append(texts, rec.Text)
	}
	for _, s := range texts {
		for range 8 {
			parts := randomCut(rng, s)
			checkPieces(t, all, s, parts, false)
			checkPieces(t, keyed, s, parts, false)
			checkPieces(t, keyed, s, parts, true)
		}
	}
}

// FuzzPieces: for any text and any cut of it into pieces, the redacted pieces joined equal
// the redaction of the whole text, keyed tokens included, also for a text cut short.
func FuzzPieces(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, uint64(i))
	}
	addCorpusSeeds2(f)
	keyed := all.WithTokens(testTokenizer(f, []byte("0123456789abcdef0123456789abcdef")))
	f.Fuzz(func(t *testing.T, s string, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		parts := randomCut(rng, s)
		checkPieces(t, all, s, parts, false)
		checkPieces(t, keyed, s, parts, seed%3 == 0)
	})
}

// addCorpusSeeds2 adds the development corpus's lines with a cut seed each.
func addCorpusSeeds2(f *testing.F) {
	recs := loadRecords(f, corpusPath)
	for i, r := range recs {
		if i%3 == 0 {
			f.Add(r.Text, uint64(i))
		}
	}
}

// TestPiecesBigText: a text of one piece larger than bigText is redacted in windows, into what
// String makes of it, counts included.
func TestPiecesBigText(t *testing.T) {
	t.Parallel()
	keyed := all.WithTokens(testTokenizer(t, []byte("0123456789abcdef0123456789abcdef")))
	unit := "host 203.0.113.7 user alice@example.com password: Tr0mbone!77 ok\n"
	text := strings.Repeat(unit, bigText/len(unit)+1000)
	want, wantCounts := keyed.String(text)
	got, ps := piecesOf([]string{text})
	counts := Counts{}
	if changed, _ := keyed.Pieces(ps, false, counts); !changed || got[0] != want {
		t.Fatal("a big piece is not redacted as String redacts it")
	}
	for k, v := range wantCounts {
		if counts[k] != v {
			t.Fatalf("counts %v, String's %v", counts, wantCounts)
		}
	}
}
