package redact

import (
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

func renderSixthSet(t *testing.T) []byte { return renderSrcSet(t, sixthSrcPath, "sixth") }

func TestGenerateSixthSet(t *testing.T) {
	t.Parallel()
	checkGenerated(t, sixthSetPath, sixthSrcPath, renderSixthSet(t))
}
