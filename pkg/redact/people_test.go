package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Secrets as people write them, today's key formats and Japanese personal
// data: each case is written from its category's definition; clean
// sentences about the same things must come through untouched.
func TestPeopleWrittenSecrets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		// a password after the word, without a copula
		{"password then value", "password Tr0mbone!77 for the db", "password [REDACTED_SECRET] for the db"},
		{"quoted passphrase", `passphrase "red-Otter-19"`, `passphrase "[REDACTED_SECRET]"`},
		{"redis.conf requirepass", "bind 0.0.0.0\nrequirepass KWF2K292IPUTrxRC3iLQ\n", "bind [REDACTED_IP]\nrequirepass [REDACTED_SECRET]\n"},
		{"redis-cli config set", "config set masterauth Zq8vN2kLm4Xp", "config set masterauth [REDACTED_SECRET]"},
		{"redis.conf's example", "# requirepass foobared", "# requirepass foobared"},
		{"app password in groups", "EMAIL_HOST_PASSWORD=aqnm semg fere cgpo\n", "EMAIL_HOST_PASSWORD=[REDACTED_SECRET]\n"},
		{"words after a password key", "password=none of these words here", "password=none of these words here"},
		{"db password mixed case", "use DB password Kx9vLm2Q to connect", "use DB password [REDACTED_SECRET] to connect"},
		{"quoted passphrase of words", `passphrase "correct horse battery staple"`, `passphrase "[REDACTED_SECRET]"`},
		{"dashed passphrase", "the passphrase was correct-horse-battery-staple.", "the passphrase was [REDACTED_SECRET]."},
		{"qualifier before copula", "the admin password for web02 is Qv7#pLx9!", "the admin password for web02 is [REDACTED_SECRET]"},
		{"qualifier of user", "the password of user bob was Spr1ng2026!", "the password of user bob was [REDACTED_SECRET]"},
		{"japanese passphrase", "パスフレーズは Red-Otter-19 です", "パスフレーズは [REDACTED_SECRET] です"},
		{"japanese password", "パスワードは Hunter2abc です", "パスワードは [REDACTED_SECRET] です"},
		// user / pass
		{"login as user / pass", "login as root / W1nter!Sky", "login as root / [REDACTED_SECRET]"},
		{"log in as", "log in as admin / Adm1n!2026 then check", "log in as admin / [REDACTED_SECRET] then check"},
		{"credentials pair", "credentials: svc_backup / Bk9!xQ2z.", "credentials: svc_backup / [REDACTED_SECRET]."},
		// command lines
		{"net user add", "net user backup B4ckup!Pw /add", "net user backup [REDACTED_SECRET] /add"},
		{"net user quoted", `net user "svc acct" "P@ss w0rd1" /add`, `net user "svc acct" "[REDACTED_SECRET]" /add`},
		{"net user domain", "cmd /c net user jdoe Welcome123 /domain", "cmd /c net user jdoe [REDACTED_SECRET] /domain"},
		{"sshpass", "sshpass -p 'Xy9!pass' ssh admin@10.0.0.5", "sshpass -p '[REDACTED_SECRET]' ssh admin@[REDACTED_IP]"},
		{"docker login", "docker login -u bob -p Dck3r!Pass registry.example.com", "docker login -u bob -p [REDACTED_SECRET] registry.example.com"},
		{"curl user", "curl -u admin:S3cret! https://api.example.com", "curl -u admin:[REDACTED_SECRET] https://api.example.com"},
		{"pgpass line", "db.internal:5432:app:appuser:Pg!Pass2026", "db.internal:5432:app:appuser:[REDACTED_SECRET]"},
		{"url password", "mongodb+srv://svc:M0ng0Pass@cluster0.example.net/test", "mongodb+srv://svc:[REDACTED_SECRET]@cluster0.example.net/test"},
		// today's formats
		{"gemini auth key", "the key AQ.Ab8RN6K9xYzQw3pLmN0vT5uH2sJ7dF4gB1cE6aR8sT0uV2wX4y leaked", "the key [REDACTED_API_KEY] leaked"},
		{"gemini auth key env", "GEMINI_API_KEY=AQ.Ab8RN6K9xYzQw3pLmN0vT5uH2sJ7dF4gB1cE6aR8sT0uV2wX4y", "GEMINI_API_KEY=[REDACTED_API_KEY]"},
		{"gitlab routable pat", "token glpat-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA.0a1b2c3d4 leaked", "token [REDACTED_API_KEY] leaked"},
		{"gitlab routable runner", "glrt-t1_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA.01.0a1b2c3d4", "[REDACTED_API_KEY]"},
		{"artifactory reference", "ref cmVmdGtuOjAxOjE3MzQ1Njc4OTA6QWJDZEVmR2hJaktsTW5PcFFyU3RVdld4WXo0 leaked", "ref [REDACTED_API_KEY] leaked"},
		{"jwt in base64", "ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5LmV5SnpkV0lpT2lJeE1qTTBOVFkzT0Rrd0lp", "[REDACTED_API_KEY]"},
		// Japanese personal data
		{"my number spaced", "マイナンバー 1234 5678 9018", "マイナンバー [REDACTED_MY_NUMBER]"},
		{"my number plain", "個人番号: 123456789018", "個人番号: [REDACTED_MY_NUMBER]"},
		{"my number glued", "マイナンバーは1234-5678-9018です", "マイナンバーは[REDACTED_MY_NUMBER]です"},
		{"my number english", "my number 1234-5678-9018", "my number [REDACTED_MY_NUMBER]"},
		{"my number alone grouped", "番号 1234 5678 9018 を確認", "番号 [REDACTED_MY_NUMBER] を確認"},
		{"my number fullwidth", "マイナンバー：１２３４－５６７８－９０１８", "マイナンバー：[REDACTED_MY_NUMBER]"},
		{"jp mobile", "電話 090-1234-5678", "電話 [REDACTED_PHONE]"},
		{"jp landline", "本社 06-6123-4567 まで", "本社 [REDACTED_PHONE] まで"},
		{"jp +81", "+81 3-1234-5678", "[REDACTED_PHONE]"},
		{"jp fullwidth", "携帯は０９０－１２３４－５６７８です", "携帯は[REDACTED_PHONE]です"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, _ := all.String(tc.in); got != tc.want {
				t.Errorf("String(%q)\n got  %q\n want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestPeopleWrittenClean(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"password policy requires 12 characters",
		"the password must be rotated every 90 days",
		"password reset for user bob",
		"password SHA256-hashed in the db",
		"the password hash 5f4dcc3b5aa765d61d8327deb882cf99 was cracked",
		"the password was changed on 2024-01-05",
		"the password for the account is locked",
		"password expired for user svc01 on web02",
		"export DB_PASSWORD=${DB_PASSWORD}",
		"token ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
		"pwd /home/user2/projects",
		"cd /var/log / tmp",
		"ratio 3 / 4 of hosts",
		"login as root / sudo was denied",
		"user alice / 2FA-enabled",
		"rotate the passphrase yearly",
		"the passphrase is required for every key",
		`passphrase "${GPG_PASSPHRASE}"`,
		"net user backup * /add",
		"net user bob /delete",
		"net user %USERNAME% %NEWPASS% /add",
		"パスワードは必須です",
		"パスワードポリシーは12文字以上",
		"Account 123456789018 in us-east-1",
		"arn:aws:iam::123456789018:role/Admin",
		"1234 5678 9012",
		"マイナンバー 1234 5678 9012",              // check digit fails
		"BY13 NBRB 3600 9000 0000 2Z00 AB00", // groups of an IBAN
		"ref ABCD 1234 5678 9018 X1",
		"AQ.short is a label",
	} {
		if got, _ := all.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

func TestValidMyNumber(t *testing.T) {
	t.Parallel()
	// the check digit of 12345678901x is 8 by the official rule
	for d := byte('0'); d <= '9'; d++ {
		n := []byte("12345678901" + string(d))
		if got := validMyNumber(n); got != (d == '8') {
			t.Errorf("validMyNumber(%s) = %v", n, got)
		}
	}
	if !validMyNumber([]byte("000000000000")) {
		t.Error("all zeros: remainder 0 gives check digit 0")
	}
}

// FuzzPeopleWritten fuzzes the rules for secrets as people write them, My
// Numbers and Japanese phone numbers: no panic, valid UTF-8 kept, redaction
// idempotent, and every My Number replaced holds 12 digits with a valid
// check digit.
func FuzzPeopleWritten(f *testing.F) {
	for _, s := range []string{
		"password Tr0mbone!77 for the db", `passphrase "red-Otter-19"`, "the admin password for web02 is Qv7#pLx9!",
		"login as root / W1nter!Sky", "creds: ops-bot / Tr0mbone33%", "net user backup B4ckup!Pw /add",
		`net user "svc acct" "P@ss w0rd1" /add`, "マイナンバー 1234 5678 9018", "個人番号: 123456789018",
		"マイナンバー：１２３４－５６７８－９０１８", "06(6123)4567", "代表番号 07098821782", "BY13 NBRB 3600 9000 0000 2Z00",
		"glpat-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zA.01.0x1b2c3d4", "AQ.Ab8RN6K9xYzQw3pLmN0vT5uH2sJ7dF4gB1cE6aR8sT0uV2wX4y",
		"パスフレーズは Red-Otter-19 です", "password for  is ", "net user ", " / ", "login as / x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := all.String(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 output for %q: %q", s, out)
		}
		if again, _ := all.String(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
		sc := getScanner()
		ms := append([]match(nil), sc.find(s)...)
		putScanner(sc)
		for _, m := range ms {
			if m.typ != tMyNumber {
				continue
			}
			d := appendNormalized(nil, tMyNumber, s[m.start:m.end])
			if len(d) != 12 || !validMyNumber(d) {
				t.Fatalf("MY_NUMBER %q in %q is not 12 digits with a valid check digit", s[m.start:m.end], s)
			}
		}
	})
}

// BenchmarkPeopleWritten measures analyst prose dense in the words the new
// rules look at (password, login, net user, My Number, phones), beside
// BenchmarkString's mixed text.
func BenchmarkPeopleWritten(b *testing.B) {
	line := "the admin password for web02 is Qv7#pLx9! and password policy requires 12 characters; " +
		"login as root / W1nter!Sky, net user backup B4ckup!Pw /add, マイナンバー 1234 5678 9018, 電話 090-1234-5678, " +
		"see https://wiki.example.com/runbooks/ssh for the 42 attempts between 06:11 and 07:22.\n"
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(line)
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		all.String(s)
	}
}
