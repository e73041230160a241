package redact

import "testing"

func TestParseValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		xml, query bool
		want       string
		quoted, ok bool
	}{
		{"double quotes", `"s3cr3t" rest`, false, false, "s3cr3t", true, true},
		{"single quotes keep an escaped quote", `'a\'b' x`, false, false, `a\'b`, true, true},
		{"quote not closed on the line", "\"abc\ndef\"", false, false, "", false, false},
		{"ObjC string", `@"tok123"`, false, false, "tok123", true, true},
		{"escaped once", `\"p4ss\" more`, false, false, "p4ss", true, true},
		{"escaped twice", `\\\"p4ss\\\"`, false, false, "p4ss", true, true},
		{"backslash without a quote is unquoted", `\x41abc`, false, false, `\x41abc`, false, true},
		{"backticks", "`tok123`", false, false, "tok123", true, true},
		{"backticks around a command", "`cat /run/secret`", false, false, "", false, false},
		{"backticks with interpolation", "`${TOKEN}`", false, false, "", false, false},
		{"unquoted ends at a comma before the next pair", "abc123,next=1", false, false, "abc123", false, true},
		{"unquoted ends at a comma before a space", "abc123, next", false, false, "abc123", false, true},
		{"unquoted ends at a comma before a quote", `abc123,"user"`, false, false, "abc123", false, true},
		{"unquoted ends at a semicolon before the next pair", "abc123;Host:db", false, false, "abc123", false, true},
		{"a trailing comma is not the value's", "abc123,\n", false, false, "abc123", false, true},
		{"a comma and a semicolon inside go on", "Ab,cd;ef!", false, false, "Ab,cd;ef!", false, true},
		{"Latin symbols and letters go on", "A,.:-¨@*¿?!", false, false, "A,.:-¨@*¿?!", false, true},
		{"Japanese after the value ends it", "abc123です", false, false, "abc123", false, true},
		{"a no-break space ends it", "abc123\u00a0x", false, false, "abc123", false, true},
		{"unquoted ends at an escape", `abc\ndef`, false, false, "abc", false, true},
		{"query ends at &", "abc&x=1", false, true, "abc", false, true},
		{"not a query: & kept", "abc&x=1", false, false, "abc&x=1", false, true},
		{"XML ends at a tag", "abc</pw>", true, false, "abc", false, true},
		{"XML reads quotes as text", `"abc"</pw>`, true, false, "", false, false},
		{"unbalanced bracket and stop dropped", "abc)).", false, false, "abc", false, true},
		{"balanced bracket kept", "f(x)", false, false, "f(x)", false, true},
		{"empty", "", false, false, "", false, false},
	}
	for _, tt := range tests {
		vs, ve, quoted, ok := parseValue(tt.in, 0, tt.xml, tt.query)
		got := ""
		if ok {
			got = tt.in[vs:ve]
		}
		if got != tt.want || quoted != tt.quoted || ok != tt.ok {
			t.Errorf("%s: parseValue(%q) = %q quoted %v ok %v, want %q %v %v", tt.name, tt.in, got, quoted, ok, tt.want, tt.quoted, tt.ok)
		}
	}
}

func TestValueType(t *testing.T) {
	t.Parallel()
	secret := keyInfo{cls: keySecret}
	api := keyInfo{cls: keyAPI}
	tests := []struct {
		name   string
		ki     keyInfo
		key    string
		val    string
		quoted bool
		typ    uint8
		ok     bool
	}{
		{"password literal", secret, "password", "Hunter2Pass", false, tSecret, true},
		{"password too short", secret, "password", "abc", false, 0, false},
		{"password is an identifier", secret, "password", "db_password_var", false, 0, false},
		{"password quoted letters", secret, "password", "HunterPass", true, tSecret, true},
		{"stop word", secret, "password", "changeme", true, 0, false},
		{"value repeats the key", secret, "Password", "password", true, 0, false},
		{"template", secret, "password", "${DB_PASSWORD}", false, 0, false},
		{"placeholder already", secret, "password", "[REDACTED_SECRET]", false, 0, false},
		{"api key with digits", api, "api_key", "a1b2c3d4e5f6", false, tAPIKey, true},
		{"api key numeric token", api, "api_key", "8273619450273816", false, tAPIKey, true},
		{"api key too short", api, "api_key", "a1b2c3", false, 0, false},
		{"api key version", api, "api_key", "release-1.2.3", false, 0, false},
		{"cloudant key is a secret", keyInfo{cls: keyAPI, cloudant: true}, "cloudant_key", "abcd1234efgh", false, tSecret, true},
		{"sumo access ID", keyInfo{cls: keyAPI, sumo: true}, "sumo_access_id", "suAbCdEfGh1234", false, tAPIKey, true},
		{"facebook app secret", keyInfo{cls: keySecret, facebook: true}, "facebook_secret", "0123456789abcdef0123456789abcdef", false, tSecret, true},
		{"access key ID", keyInfo{cls: keyAPI, accessKeyID: true}, "access_key_id", "AKIAQWERTYUIOPASDF12", false, tAPIKey, true},
		{"access key ID placeholder", keyInfo{cls: keyAPI, accessKeyID: true}, "access_key_id", "XXXXXXXXXXXXXXXXXXXX", false, tAPIKey, false},
		{"api word, unquoted", keyInfo{api: true}, "apiMetrics", "5po8Jq2LwX9zRt4Mv7Nc", false, 0, false},
		{"api word, quoted random", keyInfo{api: true}, "apiMetrics", "5po8Jq2LwX9zRt4Mv7Nc", true, tAPIKey, true},
		{"no key class", keyInfo{}, "name", "5po8Jq2LwX9zRt4Mv7Nc", true, 0, false},
	}
	for _, tt := range tests {
		typ, ok := valueType(tt.ki, tt.key, tt.val, tt.quoted)
		if typ != tt.typ || ok != tt.ok {
			t.Errorf("%s: valueType(%q) = %d %v, want %d %v", tt.name, tt.val, typ, ok, tt.typ, tt.ok)
		}
	}
}
