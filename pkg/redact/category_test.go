package redact

import (
	"strings"
	"testing"
)

// Tests per rule category, written from each category's definition.

// TestVendorPrefixCategories checks tokens built from the documented
// layouts of vendor formats by category, and look-alikes that must stay.
func TestVendorPrefixCategories(t *testing.T) {
	t.Parallel()
	hex40 := "3f9a1c0b7e2d4f6a8b1c3e5d7f9a0b2c4d6e8f1a"
	an := "Zq7Rk2Lm9Xw4Tv8Pn3Hs6Jd1Fg5Bc0Ny"
	uuid := "4f1c2a7e-9b3d-4c8e-a1f2-6d7e8f9a0b1c"
	cases := []struct {
		category, tok, typ string
	}{
		{"iac: terraform cloud", "Xy12abCD34efGH.atlasv1." + an + an[:30], "API_KEY"},
		{"iac: pulumi", "pul-" + hex40, "API_KEY"},
		{"iac: scaleway", "SCW" + "K7Q2M9X4T8P3H6J1F", "API_KEY"},
		{"iac: tencent", "AKID" + an, "API_KEY"},
		{"iac: supabase", "sbp_" + hex40, "API_KEY"},
		{"iac: netlify", "nfp_" + an + "Ab12", "API_KEY"},
		{"iac: render", "rnd_" + an, "API_KEY"},
		{"iac: buildkite", "bkua_" + hex40, "API_KEY"},
		{"iac: circleci", "CCIPAT_" + an[:22] + "_" + hex40, "API_KEY"},
		{"vault: service token", "hvs." + an + an + an, "API_KEY"},
		{"vault: recovery token", "hvr." + an + an + an, "API_KEY"},
		{"vault: doppler cli", "dp.ct." + an + "AbCdEfGhIjK", "API_KEY"},
		{"vault: doppler service account", "dp.sa." + an + "AbCdEfGhIjK", "API_KEY"},
		{"code quality: sonarqube", "squ_" + hex40, "API_KEY"},
		{"code quality: sourcegraph cody", "sqco_" + an + an[:27], "API_KEY"},
		{"code quality: bitbucket app password", "ATBB" + an, "API_KEY"},
		{"payment: razorpay", "rzp_live_" + an[:14], "API_KEY"},
		{"payment: square", "EAAA" + an + "-_" + an[:10], "API_KEY"},
		{"payment: braintree", "access_token$production$" + "k3j9m2p8q1w7x4z6$" + hex40[:32], "API_KEY"},
		{"payment: ramp secret", "ramp_sec_" + an + an[:16], "SECRET"},
		{"feature flags: launchdarkly api", "api-" + uuid, "API_KEY"},
		{"feature flags: launchdarkly sdk", "sdk-" + uuid, "API_KEY"},
		{"feature flags: statsig server secret", "secret-" + an + "AbCdEfGhIjK", "SECRET"},
		{"messaging: pubnub", "sub-c-" + uuid, "API_KEY"},
		{"messaging: brevo", "xkeysib-" + hex40 + hex40[:24] + "-AbCdEfGh12345678", "API_KEY"},
		{"developer: airtable pat", "pat" + "Ab12Cd34Ef56Gh" + "." + hex40 + hex40[:24], "API_KEY"},
		{"developer: apify", "apify_api_" + an + "Xy12", "API_KEY"},
		{"developer: posthog", "phx_" + an + "AbCdEfGhIjK", "API_KEY"},
		{"developer: notion (older)", "secret_" + an + "AbCdEfGhIjK", "API_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.category, func(t *testing.T) {
			t.Parallel()
			want := Placeholder(Type(tc.typ))
			for _, wrap := range []string{"found %s in the log", `{"evidence":"%s"}`, `{\"v\":\"%s\"}`, "ログに%sがありました"} {
				in := strings.Replace(wrap, "%s", tc.tok, 1)
				got, _ := all.String(in)
				if exp := strings.Replace(wrap, "%s", want, 1); got != exp {
					t.Errorf("String(%q)\n got  %q\n want %q", in, got, exp)
				}
			}
		})
	}
}

func TestVendorLookAlikesKept(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"api-4f1c2a7e-9b3d-4c8e",                                       // short of a UUID
		"request id api-20240101-120000",                               // not a UUID layout
		"the sdk-version flag",                                         // a word
		"xxxxxxxxxxxxxx.atlasv1." + strings.Repeat("x", 64),            // placeholder
		"pul-" + strings.Repeat("0", 40),                               // placeholder body
		`API_KEY="glc_` + strings.Repeat("1", 42) + `="`,               // placeholder after a prefix
		"secret-santa-list and secret-key-rotation",                    // words
		"rzp_live_short",                                               // too short
		"build SCWDEFAULTPROFILEXX",                                    // no digit
		"pattern.of.a.java.package.name.with.many.parts.in.it.com.app", // a dotted name
	} {
		if got, _ := all.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestFindingTypesKept: namespaced names (finding types, ARNs) are evidence.
func TestFindingTypesKept(t *testing.T) {
	t.Parallel()
	for _, ft := range guardDutyTypes {
		for _, wrap := range []string{"Finding %s was raised.", `{"type":"%s","severity":8}`, `{\"Type\":\"%s\"}`, "type: %s\n"} {
			in := strings.Replace(wrap, "%s", ft, 1)
			if got, _ := all.String(in); got != in {
				t.Errorf("String(%q) = %q, want it unchanged", in, got)
			}
		}
	}
	for _, in := range []string{
		`"secretId":"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbC123"`,
		"urn:example:token:service/api-gateway",
		`"eventName":"GetSecretValue","eventSource":"secretsmanager.amazonaws.com"`,
	} {
		if got, _ := all.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
	runCases(t, []redactCase{
		{"glued colon with a literal", "password:Hunter2Secret!", "password:[REDACTED_SECRET]"},
	})
}

// TestEscapedJSONDepth: key and value quotes escaped zero to three times.
func TestEscapedJSONDepth(t *testing.T) {
	t.Parallel()
	q := `"`
	for depth := 0; depth <= 3; depth++ {
		for _, kv := range []struct{ key, val, typ string }{
			{"password", "S3cr3t!Pass#42", "SECRET"},
			{"client_secret", "Qm9v-Zk2_Lx8Rt4Wp7Yn1", "SECRET"},
			{"apiKey", "k2J9xQ7mL4pR8vT1wZ5n", "API_KEY"},
			{"AccessKeyId", "ASIAZ3MHAL7ZQKJGHV4B", "API_KEY"},
		} {
			in := "{" + q + kv.key + q + ": " + q + kv.val + q + ", " + q + "user" + q + ": " + q + "bob" + q + "}"
			want := strings.Replace(in, kv.val, Placeholder(Type(kv.typ)), 1)
			if got, _ := all.String(in); got != want {
				t.Errorf("depth %d: String(%q)\n got  %q\n want %q", depth, in, got, want)
			}
		}
		q = `\` + strings.ReplaceAll(q, `\`, `\\`)
	}
}

// TestConfigValueExtent: an unquoted value ends at the first space.
func TestConfigValueExtent(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"prose after", "password: Hunter2Secret! then more words here", "password: [REDACTED_SECRET] then more words here"},
		{"escaped newline", `note:\npassword: Tr0ub4dor&3 and it was rotated\n`, `note:\npassword: [REDACTED_SECRET] and it was rotated\n`},
		{"comment", "db_password = Zx9!qW2#eR # rotated", "db_password = [REDACTED_SECRET] # rotated"},
		{"quoted keeps spaces", `password: "correct horse battery staple"`, `password: "[REDACTED_SECRET]"`},
		{"dash before quoted value", "pulumi token - 'k2J9xQ7mL4pR8vT1wZ5n'", "pulumi token - '[REDACTED_API_KEY]'"},
	})
}

// TestAccessKeyIDKeys: the key name decides for cloud access key IDs.
func TestAccessKeyIDKeys(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"json", `{"AccessKeyId":"ASIAZ3MHAL7ZQKJGHV4B"}`, `{"AccessKeyId":"[REDACTED_API_KEY]"}`},
		{"snake", "aws_access_key_id = AKIA2E0A8F3B244C9986", "aws_access_key_id = [REDACTED_API_KEY]"},
		{"other vendor layout", `"access_key_id": "LTAI5tQ7mL4pR8vT1wZ5nK2J"`, `"access_key_id": "[REDACTED_API_KEY]"`},
		{"sample finding value", `"accessKeyId":"GeneratedFindingAccessKeyId"`, `"accessKeyId":"GeneratedFindingAccessKeyId"`},
		{"placeholder", "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX", "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX"},
	})
}

// TestConnectionURLSchemes: the password of scheme://user:pass@host for
// every scheme, including symbols in the password.
func TestConnectionURLSchemes(t *testing.T) {
	t.Parallel()
	for _, sch := range []string{"postgres", "postgresql", "mysql", "amqp", "amqps", "redis", "rediss", "mongodb",
		"mongodb+srv", "ftp", "sftp", "smtp", "ldap", "mssql", "nats", "kafka", "clickhouse", "neo4j+s", "jdbc:postgresql", "https"} {
		for _, pw := range []string{"Pa55w0rd", "Tz^9~kQ=2w", "!W9Pl^3N0wXM"} {
			in := sch + "://app_user:" + pw + "@db.internal:5432/app"
			want := sch + "://app_user:[REDACTED_SECRET]@db.internal:5432/app"
			if got, _ := all.String(in); got != want {
				t.Errorf("String(%q)\n got  %q\n want %q", in, got, want)
			}
		}
	}
	runCases(t, []redactCase{
		{"no user", "redis://:Cache9Pass@cache:6379/0", "redis://:[REDACTED_SECRET]@cache:6379/0"},
		{"template kept", "postgres://app:${DB_PASSWORD}@db/app", "postgres://app:${DB_PASSWORD}@db/app"},
		{"slash in password", "mongodb://admin:Ab/cd+ef==@db.example.net:27017/app", "mongodb://admin:[REDACTED_SECRET]@db.example.net:27017/app"},
		{"hash in password", "redis://:pa#ss9Word@cache.internal:6379", "redis://:[REDACTED_SECRET]@cache.internal:6379"},
		{"question mark in password", "postgres://u:p?ssW0rd@db/x", "postgres://u:[REDACTED_SECRET]@db/x"},
		{"port then a scoped path", "https://registry.npmjs.org:443/@babel/core", "https://registry.npmjs.org:443/@babel/core"},
		{"at in a path", "https://medium.com/@someone/post and http://host:8080/p/@scope/x", "https://medium.com/@someone/post and http://host:8080/p/@scope/x"},
	})
}

// TestReferencesKept: code references and tags are not literals.
func TestReferencesKept(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"password: !Ref DbPassword",
		"client_secret: !vault prod/app",
		`req.Header.Set("x-api-key", brandAPIKey)`,
		`req.Header.Set("Authorization", serviceToken)`,
		"token = config.auth.token",
	} {
		if got, _ := all.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
	runCases(t, []redactCase{
		{"bang literal", "password: !W9Pl^3N0wXM", "password: [REDACTED_SECRET]"},
		{"dotted token", "token: s.ZC9Ecf4M5g9o34Q6RkzGsj0z", "token: [REDACTED_API_KEY]"},
		{"fake inside a long value", `api_key = "msCwufakeod43s2adD0emLbIBpZqTno9P"`, `api_key = "[REDACTED_API_KEY]"`},
		{"fake as a short value", `api_key = "fake-key-1234"`, `api_key = "fake-key-1234"`},
	})
}

// TestNamedValues: a sibling field names the value (container environment
// lists, manifests, configuration attributes).
func TestNamedValues(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"ecs environment", `[{"name":"DB_PASSWORD","value":"Hunter2Secret!"},{"name":"LOG_LEVEL","value":"debug"}]`,

			`[{"name":"DB_PASSWORD","value":"[REDACTED_SECRET]"},{"name":"LOG_LEVEL","value":"debug"}]`},
		{"manifest", "env:\n- name: API_TOKEN\n  value: k2J9xQ7mL4pR8vT1wZ5n\n", "env:\n- name: API_TOKEN\n  value: [REDACTED_API_KEY]\n"},
		{"manifest lines", "- name: DB_PASSWORD\n  value: Hunter2Secret!", "- name: DB_PASSWORD\n  value: [REDACTED_SECRET]"},
		{"config attribute", `<add key="ClientSecret" value="Qm9vZk2Lx8Rt4Wp7Yn1"/>`, `<add key="ClientSecret" value="[REDACTED_SECRET]"/>`},
		{"escaped", `{\"Name\":\"DB_PASS\",\"Value\":\"S3cr3t!Pass\"}`, `{\"Name\":\"DB_PASS\",\"Value\":\"[REDACTED_SECRET]\"}`},
		{"metadata name", `{"name":"password_policy","value":"strict"}`, `{"name":"password_policy","value":"strict"}`},
		{"tag", `{"key":"Owner","value":"alice"}`, `{"key":"Owner","value":"alice"}`},
		{"volume", `{"name": "secret-volume", "mountPath": "/etc/secret"}`, `{"name": "secret-volume", "mountPath": "/etc/secret"}`},
	})
}

// TestAPIWordKeys: a key with the word "api" and no key word takes only
// strong random tokens, quoted.
func TestAPIWordKeys(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"go short declaration", `apiMetrics := "5po8TFGawiYNCc1ct4ofWkBqzIfA6IeO"`, `apiMetrics := "[REDACTED_API_KEY]"`},
		{"hex", `stripe_api = "0f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e"`, `stripe_api = "[REDACTED_API_KEY]"`},
		{"version", `api_version = "2023-01-01"`, `api_version = "2023-01-01"`},
		{"url", `apiUrl = "https://api.example.com/v1"`, `apiUrl = "https://api.example.com/v1"`},
		{"name", `"X-API-Name": "NRG0-Hermes-INTERNAL-API"`, `"X-API-Name": "NRG0-Hermes-INTERNAL-API"`},
		{"unquoted", "apiGateway: Zk3mQ9xT2vL8wR5nY7bC4dF6", "apiGateway: Zk3mQ9xT2vL8wR5nY7bC4dF6"},
		{"not a word", `capital = "5po8TFGawiYNCc1ct4ofWkBqzIfA6IeO"`, `capital = "5po8TFGawiYNCc1ct4ofWkBqzIfA6IeO"`},
		{"csrf token", `<input type="hidden" name="authenticity_token" value="7SWa-Fo1hsC6oovfBsJFLGPUl2EhkSW"/>`,
			`<input type="hidden" name="authenticity_token" value="7SWa-Fo1hsC6oovfBsJFLGPUl2EhkSW"/>`},
	})
}

// TestVersionKeys: dotted quads under keys naming a version, and section
// numbers, are not addresses.
func TestVersionKeys(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"json version keys", `{"agentVersion":"1.2.3.4","kernel_version":"5.10.0.1","server":"10.0.0.2"}`, `{"agentVersion":"1.2.3.4","kernel_version":"5.10.0.1","server":"[REDACTED_IP]"}`},
		{"assignment", "engine_version=1.1.0.0 host 10.1.1.1", "engine_version=1.1.0.0 host [REDACTED_IP]"},
		{"section", "see section 4.2.1.3 of the RFC", "see section 4.2.1.3 of the RFC"},
	})
}

func TestPhoneCountryCodeBeforeDots(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"plus one", "call +1 415.555.0132 now", "call [REDACTED_PHONE] now"},
		{"glued to a word", "x+1 415.555.0132", "x+1 [REDACTED_PHONE]"},
	})
}

func TestCardShortLastGroup(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"diners 4-4-4-2", "diners 3056 9309 0259 04", "diners [REDACTED_CC]"},
		{"luhn fails", "ref 1234 5678 9012 34", "ref 1234 5678 9012 34"},
		{"iban groups", "IBAN FI21 1234 5600 0007 85 and DE89 3704 0044 0532 0130 00", "IBAN FI21 1234 5600 0007 85 and DE89 3704 0044 0532 0130 00"},
	})
}

// TestLiteralShapes: values that look like names at first sight but are
// literals by their character mix, and literals passed to a command.
func TestLiteralShapes(t *testing.T) {
	t.Parallel()
	runCases(t, []redactCase{
		{"dotted password quoted", `password = "maple.Hunter14"`, `password = "[REDACTED_SECRET]"`},
		{"dotted password unquoted", "--from-literal=password=summer.Monkey53 -n prod", "--from-literal=password=[REDACTED_SECRET] -n prod"},
		{"reference kept", "password = settings.db_password", "password = settings.db_password"},
		{"package name kept", `secret_provider_class = "com.example.vault"`, `secret_provider_class = "com.example.vault"`},
		{"hash-led literal", `"masterUserPassword":"#0IOIQK7VWgwEuxN%?"`, `"masterUserPassword":"[REDACTED_SECRET]"`},
		{"template kept", `password: "#{db_password}"`, `password: "#{db_password}"`},
		{"powershell", `$password = ConvertTo-SecureString "Coffee8014%" -AsPlainText -Force`, `$password = ConvertTo-SecureString "[REDACTED_SECRET]" -AsPlainText -Force`},
		{"powershell read-host kept", `$password = Read-Host "Enter password" -AsSecureString`, `$password = Read-Host "Enter password" -AsSecureString`},
	})
}

// TestProseCredentialStatements checks a credential named in a sentence: a
// password word with a copula (is, was, set to, changed to) and a value
// with a letter and a digit, or a token word followed by a random token;
// sentences that only talk about a password keep every word.
func TestProseCredentialStatements(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"The admin password was Dragon4036! and it was reused.", "The admin password was [REDACTED_SECRET] and it was reused."},
		{"her password is hunter22.", "her password is [REDACTED_SECRET]."},
		{"The VPN passphrase was set to purple-river-lamp-65", "The VPN passphrase was set to [REDACTED_SECRET]"},
		{"Root PASSWORD changed to P@k3s9Lq!", "Root PASSWORD changed to [REDACTED_SECRET]"},
		{"The leaked token wf8YfSPhEOQhc1bOczMNQ6FliKtekOEaZJGQqBm9 was revoked.", "The leaked token [REDACTED_API_KEY] was revoked."},
		{"the token 9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c expired", "the token [REDACTED_API_KEY] expired"},
		{"The API key is Zq7Rk2Lm9Xw4Tv8Pn3Hs6Jd1", "The API key is [REDACTED_API_KEY]"},
		// talk about a password, not a password
		{"password was reset yesterday", ""},
		{"the password is stored in vault", ""},
		{"password is required.", ""},
		{"The password is ${DB_PASSWORD} in the template", ""},
		{"the secret is SHA256 hashed", ""},
		{"the token expired at 2026-11-23T03:17:34Z", ""},
		{"token 12345 of 67890", ""},
		{"the password is os.environ.get", ""},
	}
	checkRedacted(t, cases)
}

// TestCommandResultsKept checks that a value computed by a command is not a
// literal: PowerShell cmdlets with approved verbs, alone or in a
// parenthesised expression, and other parenthesised references; a
// conversion cmdlet's quoted argument is the literal itself.
func TestCommandResultsKept(t *testing.T) {
	t.Parallel()
	kept := []string{
		"$cred = Get-Credential\n$x = 1",
		"$cred = Get-Credential",
		"$secret = (Get-AzKeyVaultSecret -VaultName kv-prod -Name sql).SecretValue",
		"$password = (Read-Host -AsSecureString)",
		"$token = (Invoke-RestMethod -Uri $u).access_token",
		"$apiKey = ($cfg.ApiKey)",
		"password = (os.environ.get)",
	}
	for _, in := range kept {
		if got, _ := all.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
	in := `$pw = ConvertTo-SecureString "Winter2024!x" -AsPlainText -Force`
	want := `$pw = ConvertTo-SecureString "[REDACTED_SECRET]" -AsPlainText -Force`
	if got, _ := all.String(in); got != want {
		t.Errorf("String(%q) = %q, want %q", in, got, want)
	}
}

// TestAccessKeyIDShapes checks values under access-key-ID keys: AWS IDs
// (upper case and digits) and the random mixed-case or hex IDs other clouds
// issue are API keys; names and short values are not.
func TestAccessKeyIDShapes(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"accessKeyId":"AKIAYBEETW73R4EOIFY4"}`, `{"accessKeyId":"[REDACTED_API_KEY]"}`},
		{`{"accessKeyId":"tpJAlK57EOfqffCGIXlYEqx08K7HHMfP6FEb8QOi"}`, `{"accessKeyId":"[REDACTED_API_KEY]"}`},
		{`{"accessKeyId":"a44d4045f6adf6cd2897bfe1548bda3c"}`, `{"accessKeyId":"[REDACTED_API_KEY]"}`},
		{`AccessKeyId: LTAI5tRk9Qm2Xw7Zp3Lc8Nv4`, `AccessKeyId: [REDACTED_API_KEY]`},
		{`{"accessKeyId":"ci-deployer"}`, ""},
		{`{"accessKeyId":"ASIA...."}`, ""},
		{`access_key_id = var.access_key_id`, ""},
	}
	checkRedacted(t, cases)
}

// TestPasswordFileLines checks PostgreSQL password-file lines
// (host:port:database:user:password, '*' wildcards) as files, inside JSON
// tool output and escaped twice; colon-separated names that are not such
// lines keep every field.
func TestPasswordFileLines(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"db.internal:5432:*:app:P@fi0M6966!\n", "db.internal:5432:*:app:[REDACTED_SECRET]\n"},
		{"*:*:*:postgres:Winter2024!", "*:*:*:postgres:[REDACTED_SECRET]"},
		{"  replica-2.example.com:6432:ledger:etl_user:aufGI2rE9zxpyGheYtpS", "  replica-2.example.com:6432:ledger:etl_user:[REDACTED_SECRET]"},
		{"host:5432:db:u:pa\\:ss1", "host:5432:db:u:[REDACTED_SECRET]"},
		{`{"content":"cat ~/.pgpass\ndb:5432:*:app:Dragon4036!\n"}`, `{"content":"cat ~/.pgpass\ndb:5432:*:app:[REDACTED_SECRET]\n"}`},
		{`{"c":"{\"out\":\"db:5432:*:app:Dragon4036!\\n\"}"}`, `{"c":"{\"out\":\"db:5432:*:app:[REDACTED_SECRET]\\n\"}"}`},
		// not password-file lines
		{"session:12345:user:profile:avatar", ""},
		{"ab:12:34:56:78:9a", ""},
		{"2026-11-23T03:17:34Z host:5:a:b:c", ""},
		{"localhost:5432:mydb:me:${PGPASS}", ""},
		{"Recon:EC2/PortProbeUnprotectedPort:1:2:abc123", ""},
		{"x db:5432:*:app:Dragon4036!", ""},
	}
	checkRedacted(t, cases)
}

// TestCommandLinePasswordOptions checks the password options of common
// tools (sshpass -p, registry logins -p, az login -p, ldap* -w, redis-cli
// -a, smbclient -U user%password), PowerShell's ConvertTo-SecureString
// literal wherever the call is, and $env:NAME assignments; variables,
// missing values, paths and the same flags of other commands stay.
func TestCommandLinePasswordOptions(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"sshpass -p 'Xy9!kLm2' ssh user@host", "sshpass -p '[REDACTED_SECRET]' ssh user@host"},
		{"docker login -u user -p Xy9!kLm2 registry.example.com", "docker login -u user -p [REDACTED_SECRET] registry.example.com"},
		{"az login --service-principal -u 1b2c3d4e -p Xy9!kLm2 --tenant contoso", "az login --service-principal -u 1b2c3d4e -p [REDACTED_SECRET] --tenant contoso"},
		{"ldapsearch -x -D cn=admin -w Xy9!kLm2 -b dc=example", "ldapsearch -x -D cn=admin -w [REDACTED_SECRET] -b dc=example"},
		{"redis-cli -h cache -a Xy9!kLm2 ping", "redis-cli -h cache -a [REDACTED_SECRET] ping"},
		{"smbclient //srv/share -U alice%Xy9!kLm2", "smbclient //srv/share -U alice%[REDACTED_SECRET]"},
		{`{"cmd":"sshpass -p \"Xy9!kLm2\" scp f h:"}`, `{"cmd":"sshpass -p \"[REDACTED_SECRET]\" scp f h:"}`},
		{"New-Object PSCredential('admin', (ConvertTo-SecureString 'Xy9!kLm2' -AsPlainText -Force))", "New-Object PSCredential('admin', (ConvertTo-SecureString '[REDACTED_SECRET]' -AsPlainText -Force))"},
		{"-Password (ConvertTo-SecureString -String 'Xy9!kLm2' -AsPlainText -Force)", "-Password (ConvertTo-SecureString -String '[REDACTED_SECRET]' -AsPlainText -Force)"},
		{`$env:API_KEY = "Zq7Rk2Lm9Xw4Tv8Pn3Hs6Jd1"`, `$env:API_KEY = "[REDACTED_API_KEY]"`},
		{`$Env:DB_PASSWORD="Xy9!kLm2"`, `$Env:DB_PASSWORD="[REDACTED_SECRET]"`},
		// not passwords
		{"docker login -u user -p $REGISTRY_PASSWORD", ""},
		{`sshpass -p "$SSHPASS" ssh h`, ""},
		{"ps -a -x | grep redis", ""},
		{"redis-cli -a", ""},
		{"smbclient -U alice //srv/x", ""},
		{"az login -u app -p /path/cert.pem", ""},
		{"tar -p -w xyz123abc", ""},
		{"$x = ConvertTo-SecureString -String $plain -AsPlainText", ""},
		{"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf", ""},
	}
	checkRedacted(t, cases)
}

// checkRedacted checks each case's redaction by every type; an empty want means the input
// stays as it is.
func checkRedacted(t *testing.T, cases []struct{ in, want string }) {
	t.Helper()
	for _, tc := range cases {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if got, _ := all.String(tc.in); got != want {
			t.Errorf("String(%q)\n got  %q\n want %q", tc.in, got, want)
		}
	}
}
