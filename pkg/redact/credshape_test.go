package redact

import "testing"

// Rules written from the sixth set's misses, each by its category: an
// Authorization scheme the walk does not name, base64 of plain text or of a
// user:password pair, a vendor prefix with a template or fixture body, a
// number glued to an identifier's next part, an apostrophe in an address, a
// vendor token given as a command's password, a country code in parentheses.
func TestCredentialShapes(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"SSWS scheme", `curl -H "Authorization: SSWS 00Qm3vX9pL2kR7tY5wB8nC1dF4gH6jK0sA-Ez_uIo" https://acme.okta.com`,
			`curl -H "Authorization: SSWS [REDACTED_API_KEY]" https://acme.okta.com`},
		{"scheme in JSON", `{"authorization":"GenieKey 6f2c1e9a-0b7d-4e3a-9c1f-2d8e7b6a5c4f"}`,
			`{"authorization":"GenieKey [REDACTED_API_KEY]"}`},
		{"scheme with a template", `Authorization: Api-Token {{dt_token}}`, `Authorization: Api-Token {{dt_token}}`},
		{"scheme with a short word", `Authorization: Key none`, `Authorization: Key none`},
		{"not an authorization header", `X-Note: SSWS 00Qm3vX9pL2kR7tY5wB8nC1dF4gH6jK0sA-Ez_uIo`,
			`X-Note: SSWS 00Qm3vX9pL2kR7tY5wB8nC1dF4gH6jK0sA-Ez_uIo`},
		{"base64 of text", `{"banner.b64":"V2VsY29tZSB0byB0aGUgc3RhZ2luZyBjbHVzdGVy"}`,
			`{"banner.b64":"V2VsY29tZSB0byB0aGUgc3RhZ2luZyBjbHVzdGVy"}`},
		{"random 40 still a key", `x nQvWys81vp7hB1dx8P/pD5KHXe3PYiGkPAuNaRL6 y`, `x [REDACTED_SECRET] y`},
		{"docker auth pair", `{"auths":{"https://index.docker.io/v1/":{"auth":"YWNtZWNpOkt2ODMtaGFyYm9yLVdxMg=="}}}`,
			`{"auths":{"https://index.docker.io/v1/":{"auth":"[REDACTED_SECRET]"}}}`},
		{"npm _auth pair", `_auth=YWNtZWNpOkt2ODMtaGFyYm9yLVdxMg==`, `_auth=[REDACTED_SECRET]`},
		{"vendor prefix and template", `X-Shopify-Access-Token: shpat_${SHOPIFY_TOKEN}`, `X-Shopify-Access-Token: shpat_${SHOPIFY_TOKEN}`},
		{"vendor prefix and angle placeholder", `SLACK_TOKEN=xoxb-<bot-token>`, `SLACK_TOKEN=xoxb-<bot-token>`},
		{"bot id and one-letter body", `TELEGRAM_BOT_TOKEN=123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
			`TELEGRAM_BOT_TOKEN=123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`},
		{"bot token", `TELEGRAM_BOT_TOKEN=7512384066:AAh3Kx9_Lm2pQ7rT4vW8yZ1bC5dF0gH6jNs`,
			`TELEGRAM_BOT_TOKEN=[REDACTED_API_KEY]`},
		{"bot API URL", `POST https://api.telegram.org/bot7512384066:AAh3Kx9_Lm2pQ7rT4vW8yZ1bC5dF0gH6jNs/sendMessage ok`,
			`POST https://api.telegram.org/bot[REDACTED_API_KEY]/sendMessage ok`},
		{"bot API URL with a fixture", `https://api.telegram.org/bot123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe`,
			`https://api.telegram.org/bot123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe`},
		{"country code in parentheses", `contact: (+44) 20 7946 0958`, `contact: [REDACTED_PHONE]`},
		{"country code in parentheses, no context", `(+81) 90-1234-5678 called`, `[REDACTED_PHONE] called`},
		{"parenthesised sum", `sum (+12) 34`, `sum (+12) 34`},
		{"cluster id", `cluster 1120-081530-gx7k2m4p started`, `cluster 1120-081530-gx7k2m4p started`},
		{"phone with a label", `06-10446904-Office`, `[REDACTED_PHONE]-Office`},
		{"apostrophe in address", `account (o'neill.k@example.ie) locked`, `account ([REDACTED_EMAIL]) locked`},
		{"quoted address", `Reply-To was 'billing@example.net' here`, `Reply-To was '[REDACTED_EMAIL]' here`},
		{"vendor token as -p", `docker login -u acmeci -p dckr_pat_8hs9Wii8x8BATlVCCGTzFHBNFDe docker.io`,
			`docker login -u acmeci -p [REDACTED_API_KEY] docker.io`},
		{"password as -p", `docker login -u acmeci -p Kv83-harbor-Wq2 docker.io`,
			`docker login -u acmeci -p [REDACTED_SECRET] docker.io`},
		{"Brevo SMTP key", `smtp key xsmtpsib-9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c-Qm3vX9pL2kR7tY5w leaked`,
			`smtp key [REDACTED_API_KEY] leaked`},
	})
}

func TestB64Text(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"V2VsY29tZSB0byB0aGUgc3RhZ2luZyBjbHVzdGVy":  true,  // "Welcome to the staging cluster"
		"YWNtZWNpOkt2ODMtaGFyYm9yLVdxMg==":          true,  // "acmeci:Kv83-harbor-Wq2"
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY": false, // random bytes
		"V2VsY29tZSB0byB0aGU":                       false, // not a multiple of four
		"":                                          false,
	} {
		if got := b64Text(in); got != want {
			t.Errorf("b64Text(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPrefixedTemplate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"shpat_${SHOPIFY_TOKEN}":                         true,
		"xoxb-{{ slack_token }}":                         true,
		"xoxb-<bot-token>":                               true,
		"npm_$(cat token)":                               true,
		"123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA":  true,
		"7512384066:AAh3Kx9_Lm2pQ7rT4vW8yZ1bC5dF0gH6jNs": false,
		"Pa-{ss1":                                false,
		"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": false,
		"nothing-to-see":                         false,
	} {
		if got := prefixedTemplate(in); got != want {
			t.Errorf("prefixedTemplate(%q) = %v, want %v", in, got, want)
		}
	}
}
