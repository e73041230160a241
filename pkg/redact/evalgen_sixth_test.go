package redact

import (
	"os"
	"strings"
	"testing"
)

// The sixth set is written by hand from the labelling policy's category
// definitions and the vendors' documentation, before the rules it scores
// were revised: vendor token shapes of the public detector lists in the
// layouts alerts carry them (headers, CLI flags, env lines, YAML, JSON,
// URLs), a service account's private key in JSON, JWTs in headers and
// cookies, phone numbers of more countries, e-mail in odd quoting, IPv6,
// and hard negatives (digests, UUIDs, ARNs, vendor IDs, base64 of plain
// data, placeholders, versions, vendor-named hosts). The source is
// testdata/evalset-sixth.src, in the fifth set's format plus two escapes:
// \e for a literal backslash (\en is JSON's escaped newline) and \[ for a
// literal '[' before a marker.
const (
	sixthSrcPath = "testdata/evalset-sixth.src"
	sixthSetPath = "testdata/evalset-sixth.jsonl"
)

// sixthBracket stands for an escaped '[' while the markers are split.
const sixthBracket = "\x00"

func renderSixthSet(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(sixthSrcPath)
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
			t.Fatalf("%s:%d: want id|lang|shape|text", sixthSrcPath, n+1)
		}
		text := strings.ReplaceAll(f[3], `\n`, "\n")
		text = strings.ReplaceAll(text, `\[`, sixthBracket)
		text = strings.ReplaceAll(text, `\e`, `\`)
		segs, msg := fifthSegs(text)
		if msg != "" {
			t.Fatalf("%s:%d: %s", sixthSrcPath, n+1, msg)
		}
		kind := "negative"
		for i, s := range segs {
			segs[i].text = strings.ReplaceAll(s.text, sixthBracket, "[")
			if s.typ == string(CreditCard) && !luhnOK(s.text) {
				t.Fatalf("%s:%d: card %q fails the Luhn check", sixthSrcPath, n+1, s.text)
			}
			if s.typ != "" {
				kind = "positive"
			}
		}
		g.items = append(g.items, evalItem{id: "sixth-" + f[0], source: "sixth:" + strings.SplitN(f[0], "-", 2)[0],
			kind: kind, lang: f[1], shape: f[2], segs: segs})
	}
	return renderItems(t, g)
}

func TestGenerateSixthSet(t *testing.T) {
	t.Parallel()
	checkGenerated(t, sixthSetPath, sixthSrcPath, renderSixthSet(t))
}
