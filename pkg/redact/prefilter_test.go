package redact

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkQuietWords offers every word of s that quietWord calls quiet to the
// detectors and reports those where one of them finds something or resumes
// elsewhere. It returns how many quiet words it checked.
func checkQuietWords(t *testing.T, sc *scanner, s string) int {
	t.Helper()
	n := 0
	for i := 0; i < len(s); i++ {
		if !isAlpha(s[i]) || !leftBoundary(s, i) {
			continue
		}
		j := spanClass(s, i, cDigit|cUpper|cLower|cUnder, 0)
		if rj, plain := letterRun(s, i); rj != j || plain != plainLetters(s[i:j]) {
			t.Errorf("letterRun at %q = %d %v, want %d %v", excerpt(s, i), rj-i, plain, j-i, plainLetters(s[i:j]))
		}
		plain := plainLetters(s[i:j])
		if pj, pplain, key := proseWord(s, i); pj != j || pplain != plain || key != (plain && keyish(s[i:j])) {
			t.Errorf("proseWord at %q = %d %v %v, want %d %v %v", excerpt(s, i), pj-i, pplain, key, j-i, plain, plain && keyish(s[i:j]))
		}
		if !quietWord(s, i, j) {
			continue
		}
		n++
		sc.cands = sc.cands[:0]
		next := sc.alphaDetectors(s, i, j)
		if next <= i {
			next = j
		}
		if next != j || len(sc.cands) > 0 {
			t.Errorf("quiet word %q in %q: the detectors resume at %d (not %d) with %v", s[i:j], excerpt(s, i), next-i, j-i, sc.cands)
		}
	}
	return n
}

func excerpt(s string, i int) string {
	return s[max(0, i-40):min(len(s), i+80)]
}

// quietTexts are the texts the package is tested with: the evaluation sets,
// the development corpus, the gitleaks samples and the manual, each also with words
// around its values cut apart and glued to their neighbours.
func quietTexts(t *testing.T) []string {
	var texts []string
	paths, _ := filepath.Glob("testdata/*.jsonl")
	paths = append(paths, corpusPath)
	for _, p := range paths {
		for _, r := range loadRecords(t, p) {
			texts = append(texts, r.Text)
		}
	}
	// and prose: the manual's pages
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, p := range append(docs, "testdata/evalset-fifth.src") {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	rnd := rand.New(rand.NewPCG(7, 51))
	n := len(texts)
	for k := 0; k < n; k++ {
		s := texts[k]
		// the same text with its spaces turned into the terminators quietWord
		// knows, and with a few words joined
		texts = append(texts, strings.Map(func(r rune) rune {
			if r == ' ' && rnd.IntN(4) == 0 {
				return []rune{',', ';', ')', '\n', '\r'}[rnd.IntN(5)]
			}
			return r
		}, s))
		texts = append(texts, strings.Replace(s, " ", "", 1+rnd.IntN(3)))
	}
	return texts
}

func TestQuietWordIsQuiet(t *testing.T) {
	t.Parallel()
	sc := &scanner{}
	n := 0
	for _, s := range quietTexts(t) {
		n += checkQuietWords(t, sc, s)
	}
	// the words that look like the start of something and are not quiet
	for _, s := range []string{
		"user: bob pass Wint3r!Harbor", "net user backup B4ckup!Pw /add", "Authorization: Bearer abcdefghijklmnop1234",
		"Basic dXNlcjpwYXNzd29yZA==", "sonar login abc", "name DB_PASSWORD value x", "FlyV1 fm2_abcdefghijklmnopqrstuvwxyz",
		"the token wf8Y2kq9Lm3Zp7Rt was revoked", "password is Dragon4036!", "secret hunter2abc",
	} {
		n += checkQuietWords(t, sc, s)
	}
	if n < 50000 {
		t.Errorf("only %d quiet words checked", n)
	}
	t.Logf("%d quiet words checked", n)
}

// FuzzQuietWord holds quietWord to the detectors on any text.
func FuzzQuietWord(f *testing.F) {
	for _, s := range []string{
		"the admin password was Dragon4036! for web02", "user jdoe pass Wint3r!Harbor", "token wf8Y2kq9Lm3Zp7Rt, then",
		"sk-proj-abc key-0123456789abcdef0123456789abcdef Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
		"glpat-abcdefghij0123456789 xoxb-1234-5678-abcdefghijkl net user bob P4ss!word /add",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkQuietWords(t, &scanner{}, s)
	})
}

// The memo of noKey answers as noKey does, for words that share a slot
// and for words seen again.
func TestKeyMemo(t *testing.T) {
	t.Parallel()
	words := []string{"password", "the", "token", "Token", "secret", "analyst", "passwd", "reviews", "key",
		"apikey", "api", "window", "bearer", "sonar", "name", "credentials", "ab", "a", "averyveryverylongwordindeed"}
	var m keyMemo
	for round := 0; round < 3; round++ {
		for _, w := range words {
			if got, want := m.noKey(w), noKey(w); got != want {
				t.Errorf("round %d: memo noKey(%q) = %v, want %v", round, w, got, want)
			}
		}
	}
	// two words of one slot: same length, same first, middle and last bytes
	for _, w := range []string{"pasxword", "password", "pasxword"} {
		if got, want := m.noKey(w), noKey(w); got != want {
			t.Errorf("memo noKey(%q) = %v, want %v", w, got, want)
		}
	}
	if noKey("password") || !noKey("analyst") {
		t.Error(`noKey: "password" names a key and "analyst" none`)
	}
	var nilMemo *keyMemo
	if nilMemo.noKey("password") {
		t.Error("a nil memo does not classify")
	}
}

// quietRun stops at the first word that is not quiet, or after the last quiet word of a
// run, and goes no further than one byte between words.
func TestQuietRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, last string
		quiet      bool
	}{
		{"the analyst reviews logs", "logs", false}, // no byte after the last word
		{"the analyst reviews logs\n", "logs", true},
		{"the analyst,then;the logs)more\rnow\n", "now", true},
		{"the analyst, then", "analyst", true},    // two bytes between: the word pass takes over
		{"the analyst  reviews", "analyst", true}, // likewise
		{"the admin password was Dragon4036!", "password", false},
		{"the api key sk-proj-abc", "key", false},
		{"we use apis here.", "here", false},
		{"the host9 is down ", "host9", false},
		{"then Bearer abc", "Bearer", false},
		{"the averyveryverylongwordindeed is", "averyveryverylongwordindeed", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			sc := &scanner{}
			i, j, quiet := sc.quietRun(tc.text, 0)
			if tc.text[i:j] != tc.last || quiet != tc.quiet {
				t.Errorf("quietRun = %q %v, want %q %v", tc.text[i:j], quiet, tc.last, tc.quiet)
			}
		})
	}
}
