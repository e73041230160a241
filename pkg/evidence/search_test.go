package evidence

import (
	"bytes"
	"regexp"
	"testing"
)

// searchedLines are the numbers of the lines of text where sr finds a match, walked as
// grepFile walks a chunk (a match running across lines counts only if its line matches alone).
func searchedLines(sr *searcher, re *regexp.Regexp, text []byte) []int {
	sr.chunk(text)
	var out []int
	for pos := 0; pos < len(text); {
		loc := sr.find(text[pos:])
		if loc == nil {
			break
		}
		ms := pos + loc[0]
		ls := pos + bytes.LastIndexByte(text[pos:ms], '\n') + 1
		le := len(text)
		if i := bytes.IndexByte(text[ms:], '\n'); i >= 0 {
			le = ms + i
		}
		if pos+loc[1] <= le || re.Match(text[ls:le]) {
			out = append(out, bytes.Count(text[:ls], []byte{'\n'}))
		}
		pos = le + 1
	}
	return out
}

// naiveLines are the numbers of the lines of text that re matches, one line at a time.
func naiveLines(re *regexp.Regexp, text []byte) []int {
	var out []int
	for i, l := range bytes.Split(text, []byte{'\n'}) {
		if i == bytes.Count(text, []byte{'\n'}) && len(l) == 0 {
			break
		}
		if re.Match(l) {
			out = append(out, i)
		}
	}
	return out
}

func checkSearch(t *testing.T, pattern string, ignoreCase bool, text string) {
	t.Helper()
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		t.Skip()
	}
	got := searchedLines(newSearcher(pattern, re, ignoreCase), re, []byte(text))
	want := naiveLines(re, []byte(text))
	if len(got) != len(want) {
		t.Fatalf("pattern %q ignore_case %v in %q: lines %v, want %v", pattern, ignoreCase, text, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("pattern %q ignore_case %v in %q: lines %v, want %v", pattern, ignoreCase, text, got, want)
		}
	}
}

// TestSearcher: the byte searches find exactly the lines the regexp finds, with ignore_case
// folding the Unicode way (the Kelvin sign is a k, the long s an s).
func TestSearcher(t *testing.T) {
	t.Parallel()
	text := "Accepted publickey for alice from 203.0.113.7 port 1\n" +
		"accepted PUBLICKEY for bob from 10.0.0.1\n" +
		"FROM 203.0.113.7 PORT 22\n" +
		"nothing here\r\n" +
		"\u212aelvin ma\u017f\u017f from 203.0.113.7 port\n" +
		"ÉTÉ été\n" +
		"x\n"
	for _, c := range []struct {
		pattern    string
		ignoreCase bool
	}{
		{`from 203\.0\.113\.7 port`, true},
		{`FROM 203\.0\.113\.7 PORT`, false},
		{`accepted publickey for \w+ from 203\.0`, true},
		{`kelvin`, true},
		{`MASS`, true},
		{`été`, true},
		{`^x$`, true},
		{`port$`, true},
		{`(publickey)`, true},
		{`(?-i)Accepted`, true},
		{`publickey|nothing`, true},
		{`here\r`, true},
		{`7\nf`, true},
		{`\d+ port`, true},
		{`zzz`, true},
	} {
		checkSearch(t, c.pattern, c.ignoreCase, text)
	}
}

// FuzzSearcher: for any pattern and text, the searches find the lines the regexp finds.
func FuzzSearcher(f *testing.F) {
	f.Add(`from 203\.0`, "a FROM 203.0.1\nb\n", true)
	f.Add(`kelvin`, "\u212aELVIN\nkelvin\n", true)
	f.Add(`ss\w`, "\u017fSa\nx\n", true)
	f.Add(`a.c`, "ABC\nAxC\n", false)
	f.Fuzz(func(t *testing.T, pattern, text string, ignoreCase bool) {
		checkSearch(t, pattern, ignoreCase, text)
	})
}
