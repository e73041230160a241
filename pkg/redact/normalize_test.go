package redact

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// foldLinesOf is what foldLines finds, read the plain way: every line, and needsNormalize.
func foldLinesOf(s string) [][2]int {
	var out [][2]int
	for a := 0; a < len(s); {
		e := strings.IndexByte(s[a:], '\n')
		if e < 0 {
			e = len(s)
		} else {
			e += a
		}
		if needsNormalize(s[a:e]) {
			out = append(out, [2]int{a, e})
		}
		a = e + 1
	}
	return out
}

func foldLinesFound(s string) [][2]int {
	var out [][2]int
	var fl foldLines
	for a, e := fl.next(s, 0); a >= 0; a, e = fl.next(s, e+1) {
		out = append(out, [2]int{a, e})
	}
	return out
}

func TestFoldLines(t *testing.T) {
	t.Parallel()
	tests := []string{
		"",
		"plain\ntext\n",
		"ｐａｓｓｗｏｒｄ＝x\nplain\n",
		"plain\nIP　10.0.0.1\n",
		"a–b\nc−d\n電話\n",
		"\xef\xbc\n\xef\xbc",         // a fullwidth lead cut by a line break or the end
		"\xef\xbc\x81",               // a fullwidth "!" that ends the text
		"\xe3\x80\n\x80\xe3\x80\x80", // an ideographic space cut, then whole
		"x\n\n\xe2\x80\x93\n\n",
	}
	for _, s := range tests {
		if got, want := fmt.Sprint(foldLinesFound(s)), fmt.Sprint(foldLinesOf(s)); got != want {
			t.Errorf("%q: found %s, want %s", s, got, want)
		}
	}
	// texts of the bytes that matter, at random
	r := rand.New(rand.NewSource(1))
	bytesOf := []byte{0xEF, 0xBC, 0xBD, 0xE3, 0x80, 0xE2, 0x90, 0x95, 0x96, 0x88, 0x92, '\n', 'a'}
	for range 20000 {
		b := make([]byte, r.Intn(40))
		for i := range b {
			b[i] = bytesOf[r.Intn(len(bytesOf))]
		}
		s := string(b)
		if got, want := fmt.Sprint(foldLinesFound(s)), fmt.Sprint(foldLinesOf(s)); got != want {
			t.Fatalf("%q: found %s, want %s", s, got, want)
		}
	}
}
