package redact

import (
	"testing"
)

// The seventh set is written by hand from the labelling policy's category
// definitions and the vendors' documented formats, before the rules it
// scores were revised: AI, CI, source-hosting, CDN, feature-flag, search and
// mail vendors' tokens, Azure storage keys and SAS signatures, connection
// URLs, SMTP credentials, Kubernetes secrets, .netrc, .git-credentials and
// htpasswd lines; phone numbers of 22 more countries and with extensions,
// cards of 14, 15 and 19 digits, SSNs in CSV, XML and JSON, IPs with ports,
// CIDR suffixes, zones and brackets, e-mail in headers, arrays and mailto;
// and hard negatives (OIDs, versions, event and logon IDs, SIDs, epoch
// times, hashes, Luhn-invalid numbers, AWS and Kubernetes IDs, placeholders,
// vendor-named hosts). Its source is testdata/evalset-seventh.src, in the
// sixth set's format.
const (
	seventhSrcPath = "testdata/evalset-seventh.src"
	seventhSetPath = "testdata/evalset-seventh.jsonl"
)

func renderSeventhSet(t *testing.T) []byte { return renderSrcSet(t, seventhSrcPath, "seventh") }

func TestGenerateSeventhSet(t *testing.T) {
	t.Parallel()
	checkGenerated(t, seventhSetPath, seventhSrcPath, renderSeventhSet(t))
}
