package redact

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

func testTokenizer(t testing.TB, key []byte) *Tokenizer {
	t.Helper()
	tk, err := NewTokenizer(key)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

var tokenRE = regexp.MustCompile(`\[REDACTED_([A-Z_]+?)_([a-z2-7]{10})\]`)

func TestTokenEquivalentForms(t *testing.T) {
	t.Parallel()
	tk := testTokenizer(t, testKey)
	cases := []struct {
		typ  Type
		a, b string
	}{
		{IP, "203.0.113.7", "２０３．０．１１３．７"},
		{IP, "2001:DB8::1", "2001:db8:0:0:0:0:0:1"},
		{IP, "::ffff:203.0.113.7", "203.0.113.7"},
		{IP, "fe80::1%eth0", "FE80::1"},
		{Email, "Evil@Example.COM", "evil@example.com"},
		{Email, "ｅｖｉｌ＠example.com", "evil@example.com"},
		{Phone, "090-1234-5678", "０９０－１２３４－５６７８"},
		{Phone, "(555) 123-4567", "555.123.4567"},
		{CreditCard, "4111 1111 1111 1111", "4111-1111-1111-1111"},
		{SSN, "078-05-1123", "078 05 1123"},
	}
	for _, c := range cases {
		t.Run(c.a, func(t *testing.T) {
			t.Parallel()
			if ta, tb := tk.Token(c.typ, c.a), tk.Token(c.typ, c.b); ta != tb {
				t.Fatalf("%q -> %s, %q -> %s", c.a, ta, c.b, tb)
			}
		})
	}
}

func TestTokenDistinct(t *testing.T) {
	t.Parallel()
	tk := testTokenizer(t, testKey)
	other := testTokenizer(t, []byte("another workspace key, 32 bytes!"))
	a := tk.Token(IP, "203.0.113.7")
	if m := tokenRE.FindStringSubmatch(a); m == nil || m[0] != a || m[1] != "IP" {
		t.Fatalf("token %q has not the form [REDACTED_IP_<10 base32>]", a)
	}
	for _, c := range []struct {
		name string
		b    string
	}{
		{"another value", tk.Token(IP, "198.51.100.23")},
		{"another key", other.Token(IP, "203.0.113.7")},
		{"another type", tk.Token(Secret, "203.0.113.7")},
		{"case matters for secrets", tk.Token(Secret, "Hunter2hunter2")},
	} {
		if c.b == a {
			t.Errorf("%s: same token %s", c.name, a)
		}
	}
	if tk.Token(Secret, "Hunter2hunter2") == tk.Token(Secret, "hunter2hunter2") {
		t.Error("secrets differing in case got one token")
	}
	if _, err := NewTokenizer([]byte("short")); err == nil {
		t.Error("a 5-byte key was accepted")
	}
}

func TestRedactorWithTokens(t *testing.T) {
	t.Parallel()
	r := New(AllTypes()...).WithTokens(testTokenizer(t, testKey))
	in := "Is 203.0.113.7 malicious? It contacted Evil@Example.com from 198.51.100.23, then ２０３．０．１１３．７ again and evil@example.com."
	out, counts := r.String(in)
	ms := tokenRE.FindAllStringSubmatch(out, -1)
	if len(ms) != 5 || counts[IP] != 3 || counts[Email] != 2 {
		t.Fatalf("got %q, counts %v", out, counts)
	}
	if ms[0][0] != ms[3][0] || ms[1][0] != ms[4][0] || ms[0][0] == ms[2][0] || ms[0][1] != "IP" || ms[1][1] != "EMAIL" {
		t.Fatalf("tokens do not follow the values: %q", out)
	}
	for _, raw := range []string{"203.0.113.7", "198.51.100.23", "xample"} {
		if strings.Contains(out, raw) {
			t.Fatalf("%q left in %q", raw, out)
		}
	}
	// idempotent: tokens are placeholders, also next to ports and glued text
	for _, s := range []string{out, "[REDACTED_IP_abcdefghij]:8080 and [REDACTED_EMAIL_abcdefghij]x"} {
		if again, c := r.String(s); again != s || c.Total() != 0 {
			t.Fatalf("second pass changed %q into %q", s, again)
		}
	}
	// the plain redactor keeps its placeholders and leaves tokens alone
	plain, _ := New(AllTypes()...).String(in)
	if strings.Contains(plain, "_"+ms[0][2]) || !strings.Contains(plain, "[REDACTED_IP] malicious") {
		t.Fatalf("plain redactor wrote %q", plain)
	}
	if again, _ := New(AllTypes()...).String(out); again != out {
		t.Fatalf("plain redactor changed tokens: %q", again)
	}
}

func TestRedactorEvidence(t *testing.T) {
	t.Parallel()
	alert := `{"src":"203.0.113.7","owner":"Alice@Example.com","note":"password=Tr0ub4dor&3x"}`
	r := New(AllTypes()...).WithTokens(testTokenizer(t, testKey)).WithEvidence(alert)
	in := "203.0.113.7 and ２０３．０．１１３．７ talked to 198.51.100.23; alice@example.com wrote to bob@example.com"
	out, counts := r.String(in)
	if !strings.Contains(out, "203.0.113.7 and ２０３．０．１１３．７") || !strings.Contains(out, "alice@example.com wrote") {
		t.Fatalf("evidence not kept: %q", out)
	}
	if strings.Contains(out, "198.51.100.23") || strings.Contains(out, "bob@") || counts.Total() != 2 {
		t.Fatalf("non-evidence kept: %q %v", out, counts)
	}
	// evidence applies without tokens too, and JSONL output follows the same rule
	plain := New(AllTypes()...).WithEvidence(alert)
	if out, _ := plain.String("from 203.0.113.7 to 198.51.100.23"); out != "from 203.0.113.7 to [REDACTED_IP]" {
		t.Fatalf("plain with evidence: %q", out)
	}
	var b strings.Builder
	if err := r.RunJSONL(strings.NewReader(`{"id":1,"text":"203.0.113.7 198.51.100.23"}`+"\n"), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"203.0.113.7 [REDACTED_IP_`) {
		t.Fatalf("jsonl: %s", b.String())
	}
	// the base redactor is unchanged
	if out, _ := New(AllTypes()...).String("203.0.113.7"); out != "[REDACTED_IP]" {
		t.Fatalf("base changed: %q", out)
	}
}

func TestIsToken(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"[REDACTED_IP]": true, "[REDACTED_IP_abcdefghij]": true, "[REDACTED_]": false,
		"[REDACTED_IP ab]": false, "REDACTED_IP": false,
	} {
		if got := IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v", s, got)
		}
	}
}

// BenchmarkTokenDerivation derives tokens of distinct values on one core;
// values/s is the figure to compare with the 1M/s target.
func BenchmarkTokenDerivation(b *testing.B) {
	tk := testTokenizer(b, testKey)
	vals := make([]string, 4096)
	for i := range vals {
		switch i % 3 {
		case 0:
			vals[i] = fmt.Sprintf("203.0.%d.%d", i/256, i%256)
		case 1:
			vals[i] = fmt.Sprintf("User%d@Example.com", i)
		default:
			vals[i] = fmt.Sprintf("090-%04d-%04d", i, i*7%10000)
		}
	}
	types := [3]Type{IP, Email, Phone}
	i := 0
	for b.Loop() {
		_ = tk.Token(types[i%3], vals[i%len(vals)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
}

// BenchmarkStringTokens compares redacting mixed text with plain
// placeholders and with keyed tokens.
func BenchmarkStringTokens(b *testing.B) {
	text := mixedText(1 << 20)
	for _, c := range []struct {
		name string
		r    *Redactor
	}{
		{"plain", New(AllTypes()...)},
		{"tokens", New(AllTypes()...).WithTokens(testTokenizer(b, testKey))},
		{"tokens+evidence", New(AllTypes()...).WithTokens(testTokenizer(b, testKey)).WithEvidence(sampleAlert)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				c.r.String(text)
			}
		})
	}
}

// FuzzTokensIdempotent: redacting with keyed tokens twice changes nothing the second time, and
// the output never holds a plain placeholder.
func FuzzTokensIdempotent(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add("Is 203.0.113.7 malicious? It contacted evil@example.com from 198.51.100.23")
	r := New(AllTypes()...).WithTokens(testTokenizer(f, testKey))
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, phPrefix) {
			return // inputs with their own placeholders are covered by FuzzString
		}
		out, _ := r.String(s)
		if again, c := r.String(out); again != out || c.Total() != 0 {
			t.Fatalf("second pass changed %q into %q (from %q)", out, again, s)
		}
		for _, p := range placeholders {
			if strings.Contains(out, p) {
				t.Fatalf("plain placeholder %s in %q", p, out)
			}
		}
	})
}

// The alert's indicators are kept as they are; a secret or a key the alert holds is still
// redacted, and so is personal data that is not an indicator.
func TestEvidenceKeepsIndicatorsNotSecrets(t *testing.T) {
	t.Parallel()
	alert := `{"src":"203.0.113.7","user":"alice@example.com","url":"https://admin:S3cr3tPassw0rd@intranet.example.com/login",` +
		`"cmdline":"mysql -u root --password=Hunter2Hunter2","key":"AKIAQWERTYUIOPASDFGH","token":"ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",` +
		`"client_secret":"Zk9!qP2#vL7xR4tW","pem":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----",` +
		`"phone":"090-1234-5678","card":"4111 1111 1111 1111","ssn":"078-05-1123"}`
	r := New(AllTypes()...).WithTokens(testTokenizer(t, testKey)).WithEvidence(alert)
	in := "203.0.113.7 logged in as alice@example.com to https://admin:S3cr3tPassw0rd@intranet.example.com/login; " +
		"then password=Hunter2Hunter2, key AKIAQWERTYUIOPASDFGH, token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R, " +
		"client_secret: Zk9!qP2#vL7xR4tW, phone 090-1234-5678, card 4111 1111 1111 1111, ssn 078-05-1123\n" +
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----"
	out, counts := r.String(in)
	for _, kept := range []string{"203.0.113.7", "alice@example.com", "@intranet.example.com/login"} {
		if !strings.Contains(out, kept) {
			t.Errorf("indicator %q not kept: %s", kept, out)
		}
	}
	for _, secret := range []string{"S3cr3tPassw0rd", "Hunter2Hunter2", "AKIAQWERTYUIOPASDFGH", "ghp_1a2B", "Zk9!qP2", "MIIEvQ", "090-1234-5678", "4111 1111", "078-05-1123"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q from the alert written raw: %s", secret, out)
		}
	}
	if counts[Secret] < 4 || counts[APIKey] < 2 || counts[IP] != 0 || counts[Email] != 0 {
		t.Errorf("counts %v: %s", counts, out)
	}
}

// A secret the alert holds is redacted in a history wherever it occurs, also where nothing
// around it says it is a secret; short ones only as whole words.
func TestEvidenceSecretsAreRedactedWhereverTheyOccur(t *testing.T) {
	t.Parallel()
	alert := `{"match":"db_password = \"Wint3r-Is-C0ming-42\"","pw":"Pa\\ss-w0rd-99","short":"password: Abc123"}`
	r := New(AllTypes()...).WithTokens(testTokenizer(t, testKey)).WithEvidence(alert)
	for _, tc := range []struct{ in, raw string }{
		{"rotate Wint3r-Is-C0ming-42 now", "Wint3r-Is-C0ming-42"},
		{"it was xWint3r-Is-C0ming-42y", "Wint3r-Is-C0ming-42"},
		{`the value Pa\ss-w0rd-99 leaked`, `Pa\ss-w0rd-99`},
		{"Abc123 again", "Abc123"},
	} {
		out, _ := r.String(tc.in)
		if strings.Contains(out, tc.raw) || !strings.Contains(out, "[REDACTED_SECRET_") {
			t.Errorf("%q -> %q", tc.in, out)
		}
	}
	// the same token as detection gives the value elsewhere
	a, _ := r.String("rotate Wint3r-Is-C0ming-42 now")
	b, _ := r.String("db_password = Wint3r-Is-C0ming-42")
	if a[len("rotate "):len(a)-len(" now")] != b[len("db_password = "):] {
		t.Errorf("tokens differ: %q %q", a, b)
	}
	// a short value inside a longer word is left alone
	if out, _ := r.String("xAbc123y"); out != "xAbc123y" {
		t.Errorf("short value replaced inside a word: %q", out)
	}
}

// A walk's token memo gives the tokens derivation gives, keeps no evidence from its
// decision, and is emptied when the walk ends: no walk sees another's values.
func TestWalkTokenMemo(t *testing.T) {
	t.Parallel()
	tk := testTokenizer(t, testKey)
	r := New(AllTypes()...).WithTokens(tk).WithEvidence(`{"src":"198.51.100.23"}`)
	st := tk.getMemo()
	for range 2 {
		for _, v := range []struct {
			value string
			n     uint8
			typ   Type
		}{{"203.0.113.7", tIP, IP}, {"alice@example.com", tEmail, Email}, {"２０３.０.１１３.７", tIP, IP}} {
			if got, ok := r.repl(v.value, v.n, st); !ok || got != tk.Token(v.typ, v.value) {
				t.Fatalf("%s: %q, %v; want %q", v.value, got, ok, tk.Token(v.typ, v.value))
			}
		}
		if got, ok := r.repl("198.51.100.23", tIP, st); ok {
			t.Fatalf("evidence replaced by %q", got)
		}
	}
	tk.put(st)
	if st.memoOn || st.memo != ([len(st.memo)]memoEntry{}) {
		t.Fatal("the memo outlived its walk")
	}
}
