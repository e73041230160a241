package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var all = New(AllTypes()...)

type redactCase struct {
	name string
	in   string
	want string
}

func runCases(t *testing.T, cases []redactCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, _ := all.String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q)\n got  %q\n want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestEmail(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"plain", "mail alice@example.com now", "mail [REDACTED_EMAIL] now"},
		{"plus and dots", "user.name+tag@sub.example.co.jp.", "[REDACTED_EMAIL]."},
		{"idn", "user@xn--80ak6aa92e.com", "[REDACTED_EMAIL]"},
		{"json", `{"email":"a.b@corp.example"}`, `{"email":"[REDACTED_EMAIL]"}`},
		{"japanese glue", "連絡先はtanaka@example.jpです", "連絡先は[REDACTED_EMAIL]です"},
		{"escaped newline", `E-mail:\nJulia@cuvox.de\n`, `E-mail:\n[REDACTED_EMAIL]\n`},
		{"no tld", "user@localhost and aws-cli@sha256:abc", "user@localhost and aws-cli@sha256:abc"},
		{"not an address", "@handle and a@b and @@x", "@handle and a@b and @@x"},
		{"a URL's password and host", "https://bob:xxxx@example.com/x", "https://bob:xxxx@example.com/x"},
		{"after a colon outside a URL", "mail bob:alice@example.com", "mail bob:[REDACTED_EMAIL]"},
	})
}

// An e-mail address written percent-encoded in a URL or a proxy log is one too: the encoded
// span is replaced, the rest of the URL kept.
func TestPercentEncodedEmail(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"query", "GET https://evil.example/track?email=alice%40corp.example.com&x=1",
			"GET https://evil.example/track?email=[REDACTED_EMAIL]&x=1"},
		{"encoded dots", "id=bob.smith%40corp%2Eexample%2Ecom;", "id=[REDACTED_EMAIL];"},
		{"lower-case escape", "u=carol%40mail%2eexample%2eorg", "u=[REDACTED_EMAIL]"},
		{"plus is a space", "q=mail+to+dave%40corp.example.com", "q=mail+to+[REDACTED_EMAIL]"},
		{"encoded separator before", "next=%2Fhome%3Femail%3Derin%40corp.example.com",
			"next=%2Fhome%3Femail%3D[REDACTED_EMAIL]"},
		{"phishing link", `<a href="https://login.evil.example/?u=frank.w%40bank.example.co.jp">`,
			`<a href="https://login.evil.example/?u=[REDACTED_EMAIL]">`},
		{"not an address", "100%40 of them; a%40b; %40handle; 50%40x", "100%40 of them; a%40b; %40handle; 50%40x"},
		{"plain one once", "alice@corp.example.com%40x", "[REDACTED_EMAIL]%40x"},
	})
}

func TestPhone(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"jp landline", "call 03-1234-5678", "call [REDACTED_PHONE]"},
		{"jp mobile", "090-1234-5678", "[REDACTED_PHONE]"},
		{"jp international", "+81 90 1234 5678", "[REDACTED_PHONE]"},
		{"jp international area", "+81-3-1234-5678", "[REDACTED_PHONE]"},
		{"us parens", "(555) 123-4567 and (415)555-0132", "[REDACTED_PHONE] and [REDACTED_PHONE]"},
		{"us international", "+1-202-555-0143", "[REDACTED_PHONE]"},
		{"us dots with extension", "916.972.1680x22008 mobile", "[REDACTED_PHONE] mobile"},
		{"extension", "463-612-6138x036", "[REDACTED_PHONE]"},
		{"uk", "+44 20 7946 0958", "[REDACTED_PHONE]"},
		{"trunk zero", "+41 (0)71 526 99 04", "[REDACTED_PHONE]"},
		{"e164", "+447700677662 mobile", "[REDACTED_PHONE] mobile"},
		{"short grouped", "Phone:\n467 3395", "Phone:\n[REDACTED_PHONE]"},
		{"bare with context", "Desk: 5403926876", "Desk: [REDACTED_PHONE]"},
		{"bare japanese context", "電話番号13812345678に", "電話番号[REDACTED_PHONE]に"},
		{"japanese glue", "電話は090-1234-5678です", "電話は[REDACTED_PHONE]です"},
		{"label after", "97 111421 office", "[REDACTED_PHONE] office"},
		{"dashes before words", "06-10446904-Office", "[REDACTED_PHONE]-Office"},
		{"a call from", "reported a call from 9498777106; the session", "reported a call from [REDACTED_PHONE]; the session"},
		{"six digits after a phone word", "Call me at 92 34 70.", "Call me at [REDACTED_PHONE]."},
		{"six digits before a phone word", "61 51 81 office", "[REDACTED_PHONE] office"},
		{"six digits after a Japanese phone word", "電話番号33 93 31に", "電話番号[REDACTED_PHONE]に"},
		{"six digits alone are anything", "ticket 61 51 81 closed, version 12 34 56", "ticket 61 51 81 closed, version 12 34 56"},
		{"a phone word after an escaped newline", `{"t":"Desk: 555\nFax: 9498777106"}`, `{"t":"Desk: 555\nFax: [REDACTED_PHONE]"}`},
	})
}

func TestCreditCard(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"visa plain", "card 4111111111111111.", "card [REDACTED_CC]."},
		{"dashes", "4012-8888-8888-1881", "[REDACTED_CC]"},
		{"spaces", "4012 8888 8888 1881", "[REDACTED_CC]"},
		{"amex grouped", "3782 822463 10005", "[REDACTED_CC]"},
		{"diners 14", "30569309025904", "[REDACTED_CC]"},
		{"uatp 15", "my credit card: 122000000000003", "my credit card: [REDACTED_CC]"},
		{"13 digits", "cc 4047737215142 on", "cc [REDACTED_CC] on"},
		{"12 digits with context", "limit for card 501864667909?", "limit for card [REDACTED_CC]?"},
		{"japanese glue", "カード番号6586108984332171が", "カード番号[REDACTED_CC]が"},
		{"not a phone", "Call 4111 1111 1111 1111", "Call [REDACTED_CC]"},
		{"two cards after one another", "4012888888881881 4012-8888-8888-1881", "[REDACTED_CC] [REDACTED_CC]"},
		{"a plain card after a grouped one", "4012-8888-8888-1881 4012888888881881", "[REDACTED_CC] [REDACTED_CC]"},
		{"a leading zero after a card word", "カード番号060426070011が", "カード番号[REDACTED_CC]が"},
		{"three cards in three layouts", "4012888888881881 4012-8888-8888-1881 4012 8888 8888 1881", "[REDACTED_CC] [REDACTED_CC] [REDACTED_CC]"},
	})
}

func TestSSN(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"dashes", "SSN: 078-05-1123", "SSN: [REDACTED_SSN]"},
		{"spaces", "078 05 1123", "[REDACTED_SSN]"},
		{"dots", "078.05.1123", "[REDACTED_SSN]"},
		{"bare with context", "my SSN is 078051123", "my SSN is [REDACTED_SSN]"},
		{"japanese glue", "社会保障番号196-20-7761が", "社会保障番号[REDACTED_SSN]が"},
	})
}

func TestIP(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"v4", "from 8.8.8.8.", "from [REDACTED_IP]."},
		{"v4 port and cidr", "10.1.2.3:443 and 192.168.0.0/16", "[REDACTED_IP]:443 and [REDACTED_IP]/16"},
		{"v4 private", "127.0.0.1 169.254.1.1 0.0.0.0", "[REDACTED_IP] [REDACTED_IP] [REDACTED_IP]"},
		{"v6 compressed", "2001:db8::1 and ::1", "[REDACTED_IP] and [REDACTED_IP]"},
		{"v6 full", "2001:0db8:0000:0000:0000:ff00:0042:8329", "[REDACTED_IP]"},
		{"v6 zone and prefix", "fe80::1%eth0/64", "[REDACTED_IP]%eth0/64"},
		{"v4 mapped", "::ffff:192.0.2.128", "[REDACTED_IP]"},
		{"v4 mapped after word", "text::ffff:192.0.2.1", "text::ffff:[REDACTED_IP]"},
		{"bracketed", "[2001:db8:85a3::8a2e:370:7334]:8080", "[[REDACTED_IP]]:8080"},
		{"japanese glue", "送信元は192.168.0.1でした", "送信元は[REDACTED_IP]でした"},
		{"unspecified prefix", "route ::/0", "route [REDACTED_IP]/0"},
	})
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"aws", "AKIAIOSFODNN7EXAMPLE", "[REDACTED_API_KEY]"},
		{"google", "key AIzaSyATDL7Wz3De6BUF12v3fVVth30vkyis21h", "key [REDACTED_API_KEY]"},
		{"github", "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "[REDACTED_API_KEY]"},
		{"github fine-grained", "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6Rr8Tt", "[REDACTED_API_KEY]"},
		{"github fine-grained fixture (an alphabet run)", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234"},
		{"slack", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "[REDACTED_API_KEY]"},
		{"slack webhook", "POST https://hooks.slack.com/services/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 now", "POST [REDACTED_API_KEY] now"},
		{"discord webhook", "https://discord.com/api/webhooks/123456789012345678/AbCdEf-gh_ij", "[REDACTED_API_KEY]"},
		{"stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc rk_live_51H8abcdEFGHijkl", "[REDACTED_API_KEY] [REDACTED_API_KEY]"},
		{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "[REDACTED_API_KEY]"},
		{"bearer", "Authorization: Bearer 7fa2c9e1b04d4e8fa3c6d5e2f1a0b9c8", "Authorization: Bearer [REDACTED_API_KEY]"},
		{"api_key assignment", "api_key=AbCdEf1234567890XyZ", "api_key=[REDACTED_API_KEY]"},
		{"apikey colon", "apikey: Zx9Yw8Vu7Ts6Rq5Po4", "apikey: [REDACTED_API_KEY]"},
		{"x-api-key header", `-H "x-api-key: 0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"`, `-H "x-api-key: [REDACTED_API_KEY]"`},
		{"json token", `{"token": "tok_1a2b3c4d5e6f7g8h9i0j"}`, `{"token": "[REDACTED_API_KEY]"}`},
		{"escaped json", `\"token3\": \"xapp-1-BM3V7LC51DA-1441525068281-86641a2582cd0903\"`, `\"token3\": \"[REDACTED_API_KEY]\"`},
		{"go declaration", `var slackToken string = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB"`, `var slackToken string = "[REDACTED_API_KEY]"`},
		{"a Slack webhook without its scheme", "hook: hooks.slack.com/services/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", "hook: [REDACTED_API_KEY]"},
	})
}

func TestSecret(t *testing.T) {
	t.Parallel()
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEpQIBAAKCAQEAn6/O8li+SX4m98LLYt\n-----END RSA PRIVATE KEY-----"
	runCases(t, []redactCase{
		{"password assignment", "set password=Tr0ub4dor&3 done", "set password=[REDACTED_SECRET] done"},
		{"config value ends at the first space", "password: Hunter2Secret! then more words here", "password: [REDACTED_SECRET] then more words here"},
		{"config value with a comment", "aws_secret_access_key: wJalr9XUtnFEMIK7 # note", "aws_secret_access_key: [REDACTED_SECRET] # note"},
		{"pwd colon", "pwd: s3cr3tP@ss", "pwd: [REDACTED_SECRET]"},
		{"json password", `"password": "correct horse battery staple"`, `"password": "[REDACTED_SECRET]"`},
		{"japanese", "パスワード: Hunter2Pass", "パスワード: [REDACTED_SECRET]"},
		{"japanese glue", "パスワードはP@ssw0rd123です", "パスワードは[REDACTED_SECRET]です"},
		{"pem", "key:\n" + pem + "\nend", "key:\n[REDACTED_SECRET]\nend"},
		{"client secret", `"clientSecret": "AbCdEfGh12345678"`, `"clientSecret": "[REDACTED_SECRET]"`},
		{"url credentials", "postgres://admin:S3cretPass!@db.internal:5432/app", "postgres://admin:[REDACTED_SECRET]@db.internal:5432/app"},
		{"curl -u", "curl -u elastic:P@ssw0rd$1 https://localhost:9200", "curl -u elastic:[REDACTED_SECRET] https://localhost:9200"},
		{"curl --user quoted", "curl --user kevin:'pRf7vG2h1L8nQkW9' -i", "curl --user kevin:'[REDACTED_SECRET]' -i"},
		{"basic auth", `-H "Authorization: Basic YnJvd3Nlcjo="`, `-H "Authorization: Basic [REDACTED_SECRET]"`},
		{"aws secret shape", "some_function(foo, wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, bar)", "some_function(foo, [REDACTED_SECRET], bar)"},
		{"comparison", `if ("m{{h}o)p${e]nob(ody" == password) {`, `if ("[REDACTED_SECRET]" == password) {`},
		{"xml element", "<password>XmlS3cret!</password>", "<password>[REDACTED_SECRET]</password>"},
		{"xml element over lines", "<password>\n  XmlS3cret!\n</password>", "<password>\n  [REDACTED_SECRET]\n</password>"},
		{"xml element escaped in JSON", `{"x":"<password>XmlS3cret!<\/password>"}`, `{"x":"<password>[REDACTED_SECRET]<\/password>"}`},
		{"a placeholder tag is no element", "https://u:<password>@h.example.com", "https://u:<password>@h.example.com"},
		{"a URL's password is one whatever it says", "https://username:password@yelp.com", "https://username:[REDACTED_SECRET]@yelp.com"},
		{"a URL's short password", "mongodb://user:pass@db.internal/app", "mongodb://user:[REDACTED_SECRET]@db.internal/app"},
		{"a URL's placeholder password", "https://u:${PASS}@h.example.com https://u:****@h.example.com", "https://u:${PASS}@h.example.com https://u:****@h.example.com"},
		{"escaped quotes after the key", `{"c":"password \"Xy7#kLm9pQ2w\";"}`, `{"c":"password \"[REDACTED_SECRET]\";"}`},
		{"escaped verbatim string", `{"c":"password = @\"Xy7#kLm9pQ2w\";"}`, `{"c":"password = @\"[REDACTED_SECRET]\";"}`},
		{"escaped call argument", `{"c":"std::string secret(\"Xy7#kLm9pQ2w\");"}`, `{"c":"std::string secret(\"[REDACTED_SECRET]\");"}`},
		{"commas and Latin symbols inside", "secrete = A,.:-¨@*¿?!", "secrete = [REDACTED_SECRET]"},
		{"a comma before the next pair", "password=Tr0ub4dor3,user=bob", "password=[REDACTED_SECRET],user=bob"},
		{"escaped curl user and password", `{"t":"curl -s --user \"j.smith:dB2yF6@qL9vZm1P#4J\" \"https://api.contoso.org/me\""}`, `{"t":"curl -s --user \"j.smith:[REDACTED_SECRET]\" \"https://api.contoso.org/me\""}`},
		{"escaped curl quoted halves", `{"t":"curl --user \"svc\":\"ZqL5kVrX1n8tA2\" -X POST"}`, `{"t":"curl --user \"svc\":\"[REDACTED_SECRET]\" -X POST"}`},
		{"escaped SecureString", `{"t":"$pw = ConvertTo-SecureString \"Winter3438#\" -AsPlainText"}`, `{"t":"$pw = ConvertTo-SecureString \"[REDACTED_SECRET]\" -AsPlainText"}`},
		{"escaped passphrase", `{"t":"the passphrase \"amber-Lantern-79\" unlocks it"}`, `{"t":"the passphrase \"[REDACTED_SECRET]\" unlocks it"}`},
		{"Azure client secret after an escaped newline", `{"t":"line:\nQtT8Q~9C-_Ij~RouHVpD2Tuf3oHWGh.DQ3kcjbAn\n"}`, `{"t":"line:\n[REDACTED_SECRET]\n"}`},
		{"a key after a newline escaped twice", `{"a":"{\"c\": \"x\\nsecrete = Tr0ub4dor3xx\\n\"}"}`, `{"a":"{\"c\": \"x\\nsecrete = [REDACTED_SECRET]\\n\"}"}`},
	})
}

// Text escaped twice (a tool result quoted inside another) writes a newline as \\n: what
// follows it is read as the start of a line when it is a digit, a capital, a key word or a
// vendor's token, and a Windows path's folder (C:\\nodejs) stays a word.
func TestEscapedTwice(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"a vendor token", `{"a":"{\"t\":\"out:\\n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\\n\"}"}`, `{"a":"{\"t\":\"out:\\n[REDACTED_API_KEY]\\n\"}"}`},
		{"a bot token", `{"a":"{\"t\":\"log:\\n110201543:AAHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw\\n\"}"}`, `{"a":"{\"t\":\"log:\\n[REDACTED_API_KEY]\\n\"}"}`},
		{"a phone number", `{"a":"{\"t\":\"Fax:\\n(978) 645-9740\\n\"}"}`, `{"a":"{\"t\":\"Fax:\\n[REDACTED_PHONE]\\n\"}"}`},
		{"private_key is a secret's key", `{"a":"{\"c\": \"x\\nprivate_key: Tr0ub4dor3xx\\n\"}"}`, `{"a":"{\"c\": \"x\\nprivate_key: [REDACTED_SECRET]\\n\"}"}`},
		{"a Windows path", `{"p":"C:\\nodejs\\node.exe","q":"C:\\temp\\token.txt"}`, `{"p":"C:\\nodejs\\node.exe","q":"C:\\temp\\token.txt"}`},
	})
}

// TestSurvives lists values that must come through unchanged.
func TestSurvives(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in string }{
		{"timestamps", "2023-04-16T06:11:53.438Z 2024/01/02 12:34:56 2024-01-02T12:34:56+09:00 1700000000 1700000000123"},
		{"dates", "16/04/2023 04/16/2023 2023.04.16 16.04.2023 21.5.21 2024-03-15"},
		{"urls and domains", "https://example.com/path?q=1 evil-domain.xyz http://malware.example.net/payload.exe"},
		{"uuids", "550e8400-e29b-41d4-a716-446655440000 12345678-1234-1234-1234-123456789012"},
		{"hashes", "d41d8cd98f00b204e9800998ecf8427e da39a3ee5e6b4b0d3255bfef95601890afd80709 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"versions", "version 1.2.3.4, v2.10.0, Chrome/120.0.6099.109, build 10.0.19045.3693"},
		{"numbers", "42, 3.14159, 1,234,567, 100000, port 8080, PID 12345, count 987654321"},
		{"MAC addresses with letters in an octet", "MAC: 01-23-45-67-89-AB and AB-01-23-45-67-89"},
		{"IBANs with letters in a group", "AL47 212A 1009 0000 0002 3569 8741, AT61 1904 A002 3457 3201, BE71 A961 2345 6769"},
		{"aws ids", "account 123456789012 arn:aws:iam::123456789012:role/Admin i-0abc1234def567890 ami-0123456789abcdef0"},
		{"luhn invalid", "4111 1111 1111 1112 1234567812345678 4111-1111-1111-1112"},
		{"invalid ssn", "000-12-3456 666-12-3456 900-12-3456 123-00-4567 123-45-0000 078 00 1123"},
		{"invalid ip", "999.1.1.1 256.256.256.256 1.2.3 10.0.0.300 ::ffff:192.168.1 gggg:hhhh::1234"},
		{"placeholders", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx ${PASSWORD} <your-api-key> **** api_key=YOUR_API_KEY_HERE"},
		{"indirect references", "secret = get_secret()\npassword = os.environ[\"X\"]\napi_key = config.api_key\nsecret= ${hunter2}"},
		{"prose", "The password must be at least 12 characters long. The token expired."},
		{"mac and times", "00:1A:2B:3C:4D:5E FF:FF:FF:FF:FF:FF 12:34:56 Port 80:443 std::vector"},
		{"key metadata", `"kms_key_id": "555ea4a3-d53a-4412-9c66-3a7cb667b0d6", key_length = XSalsa20.key_length, "key_name": "prod5zyxlmy-cmk"`},
		{"pgp public block", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBFOrMNcBCAC+gLI4s3bUkobS5NpOQbWfjWXbqC0Ixpc5bZYDOvsmfstmswna\n-----END PGP PUBLIC KEY BLOCK-----"},
		{"curl placeholders", `curl -u "${username}:${password}" && curl -u username:token && curl -u <user:password>`},
		{"postal codes", "San Francisco, CA 94105-1234 and 〒100-0001 東京都千代田区"},
		{"guardduty", `{"accountId":"123456789012","id":"16afba5c5c43e07c9e3e5e2e544e95df","severity":2.0,"service":{"count":42,"eventFirstSeen":"2023-04-16T06:11:53.438Z"},"instanceId":"i-0abc1234def567890","port":22}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, c := all.String(tc.in); got != tc.in {
				t.Errorf("changed %v:\n in  %q\n out %q", c, tc.in, got)
			}
		})
	}
}

func TestFullwidth(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"phone", "番号が０９０－１２３４－５６７８に変更", "番号が[REDACTED_PHONE]に変更"},
		{"phone parens ideographic space", "電話は（４１５）\u3000５５５－０１３２です", "電話は[REDACTED_PHONE]です"},
		{"card", "カード ４１１１\u3000１１１１\u3000１１１１\u3000１１１１ です", "カード [REDACTED_CC] です"},
		{"ip", "送信元１９２．１６８．０．１から", "送信元[REDACTED_IP]から"},
		{"email", "ｕｓｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ", "[REDACTED_EMAIL]"},
	})
}

func TestTypesSubset(t *testing.T) {
	t.Parallel()
	in := "a@b.example 4111 1111 1111 1111 10.0.0.1 password=hunter22"
	cases := []struct {
		types []Type
		want  string
	}{
		{[]Type{Email}, "[REDACTED_EMAIL] 4111 1111 1111 1111 10.0.0.1 password=hunter22"},
		{[]Type{Phone}, in}, // the card is a card, never a phone
		{[]Type{IP, Secret}, "a@b.example 4111 1111 1111 1111 [REDACTED_IP] password=[REDACTED_SECRET]"},
		{nil, in},
	}
	for _, tc := range cases {
		r := New(tc.types...)
		got, counts := r.String(in)
		if got != tc.want {
			t.Errorf("types %v: got %q want %q", tc.types, got, tc.want)
		}
		if counts == nil {
			t.Errorf("types %v: nil counts", tc.types)
		}
	}
	if New().Enabled() || (*Redactor)(nil).Enabled() || !all.Enabled() {
		t.Error("Enabled is wrong")
	}
}

func TestCounts(t *testing.T) {
	t.Parallel()
	_, c := all.String("a@b.example c@d.example 10.0.0.1 AKIAIOSFODNN7EXAMPLE")
	want := Counts{Email: 2, IP: 1, APIKey: 1}
	if len(c) != len(want) {
		t.Fatalf("counts %v want %v", c, want)
	}
	for k, v := range want {
		if c[k] != v {
			t.Fatalf("counts %v want %v", c, want)
		}
	}
	total := Counts{}
	total.Add(c)
	total.Add(Counts{Email: 1})
	if total[Email] != 3 || total.Total() != 5 {
		t.Fatalf("Add: %v", total)
	}
}

func TestIdempotent(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"password=[REDACTED_SECRET] and api_key: [REDACTED_API_KEY] token=[REDACTED_API_KEY]",
		"[REDACTED_EMAIL] [REDACTED_PHONE_2] [REDACTED_IP]:443",
		"mail a@b.example from 10.0.0.1 with card 4111111111111111 and Bearer abcdefghijklmnop1234",
		"Phone: a-very-long-address@example.com 5403926876",
		"パスワード: hunter22 電話は090-1234-5678です",
	}
	for _, in := range inputs {
		once, _ := all.String(in)
		twice, c := all.String(once)
		if once != twice {
			t.Errorf("not idempotent:\n in    %q\n once  %q\n twice %q", in, once, twice)
		}
		if strings.HasPrefix(in, "password=[REDACTED") && c.Total() != 0 {
			t.Errorf("placeholders matched: %v", c)
		}
	}
}

func TestValidUTF8(t *testing.T) {
	t.Parallel()
	in := "ｐａｓｓ：０９０－１２３４－５６７８ 電話 ０３－１２３４－５６７８ パスワード：ｈｕｎｔｅｒ２ 😀 a@b.example"
	out, _ := all.String(in)
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8: %q", out)
	}
}

func TestParseTypes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    []Type
		wantErr string
	}{
		{"email,ip,api_key", []Type{Email, IP, APIKey}, ""},
		{" EMAIL , Phone ", []Type{Email, Phone}, ""},
		{"cc,credit_card,ssn", []Type{CreditCard, SSN}, ""},
		{"all", AllTypes(), ""},
		{"ALL,email", AllTypes(), ""},
		{"none", []Type{}, ""},
		{"secret,apikey", []Type{APIKey, Secret}, ""},
		{"email,bogus", nil, "bogus"},
		{"", nil, "empty"},
		{"email,,ip", nil, "empty"},
		{"none,email", nil, "none"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTypes(tc.in)
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("want error containing %q", tc.wantErr)
				}
				msg := err.Error()
				if !strings.Contains(msg, tc.wantErr) {
					t.Fatalf("error %q does not name %q", msg, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || len(got) != len(tc.want) {
				t.Fatalf("got %v want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v want %v", got, tc.want)
				}
			}
		})
	}
}

func TestPlaceholderNeighbours(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"[REDACTED_IP]", "x [REDACTED_API_KEY]", "[REDACTED_EMAIL_2]"} {
		if !phBefore(s, len(s)) {
			t.Errorf("phBefore(%q)", s)
		}
	}
	if phBefore("[x]", 3) || phBefore("ab]", 3) || !phAfter("a[REDACTED_IP]", 1) || phAfter("a[x", 1) {
		t.Error("phBefore/phAfter")
	}
}
