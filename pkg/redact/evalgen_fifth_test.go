package redact

import (
	"os"
	"strings"
	"testing"
)

// The fifth set is written by hand from the labelling policy's category
// definitions and the vendors' documentation, before the rules it scores:
// phone numbers in other countries' layouts, well-known test card numbers,
// vendor tokens with their own shapes, user/pass prose and .pgpass
// wildcards, and negatives (dotted numbers that are not addresses,
// placeholder shapes, vendor-named domains, ordinary numbers). The source is
// testdata/evalset-fifth.src ("id|lang|shape|text", [[TYPE:value]] for a
// gold span, \n for a newline); the JSONL is derived from it.
const (
	fifthSrcPath = "testdata/evalset-fifth.src"
	fifthSetPath = "testdata/evalset-fifth.jsonl"
)

func renderFifthSet(t *testing.T) []byte { return renderSrcSet(t, fifthSrcPath, "fifth") }

// srcBracket stands for an escaped '[' while the markers are split.
const srcBracket = "\x00"

// renderSrcSet renders a hand-written set (the fifth and later): one "id|lang|shape|text" line
// per item, [[TYPE:value]] for a gold span, \n a newline, \[ a '[' before a marker, \e a
// backslash; the items are named name-ID.
func renderSrcSet(t *testing.T, srcPath, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(srcPath)
	if err != nil {
		t.Fatal(err)
	}
	g := &evalGen{}
	for n, line := range strings.Split(string(src), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "|", 4)
		if len(f) != 4 {
			t.Fatalf("%s:%d: want id|lang|shape|text", srcPath, n+1)
		}
		text := strings.NewReplacer(`\n`, "\n", `\[`, srcBracket, `\e`, `\`).Replace(f[3])
		segs, msg := fifthSegs(text)
		if msg != "" {
			t.Fatalf("%s:%d: %s", srcPath, n+1, msg)
		}
		kind := "negative"
		for i, s := range segs {
			segs[i].text = strings.ReplaceAll(s.text, srcBracket, "[")
			if s.typ == string(CreditCard) && !luhnOK(s.text) {
				t.Fatalf("%s:%d: card %q fails the Luhn check", srcPath, n+1, s.text)
			}
			if s.typ != "" {
				kind = "positive"
			}
		}
		g.items = append(g.items, evalItem{id: name + "-" + f[0], source: name + ":" + strings.SplitN(f[0], "-", 2)[0],
			kind: kind, lang: f[1], shape: f[2], segs: segs})
	}
	return renderItems(t, g)
}

// fifthSegs splits a text at its [[TYPE:value]] markers.
func fifthSegs(s string) ([]seg, string) {
	var out []seg
	for {
		a := strings.Index(s, "[[")
		if a < 0 {
			break
		}
		b := strings.Index(s[a:], "]]")
		c := strings.IndexByte(s[a:], ':')
		if b < 0 || c < 0 || c > b {
			return nil, "unclosed or untyped marker"
		}
		if a > 0 {
			out = append(out, p(s[:a]))
		}
		out = append(out, v(s[a+2:a+c], s[a+c+1:a+b]))
		s = s[a+b+2:]
	}
	if s != "" {
		out = append(out, p(s))
	}
	return out, ""
}

func luhnOK(s string) bool {
	var digits []byte
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits = append(digits, s[i]-'0')
		}
	}
	sum := 0
	for i := range digits {
		d := int(digits[len(digits)-1-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return len(digits) > 0 && sum%10 == 0
}

func TestGenerateFifthSet(t *testing.T) {
	t.Parallel()
	checkGenerated(t, fifthSetPath, fifthSrcPath, renderFifthSet(t))
}
