package redact

import (
	"strings"
	"testing"
)

func TestPhoneRecognizer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want string
	}{
		{"Athens branch +30 21 0 3214567.", "Athens branch [REDACTED_PHONE]."},
		{"Support line +33 (0)1 42 68 53 00 was spoofed", "Support line [REDACTED_PHONE] was spoofed"},
		{"from=+43 (0)1 53422 0 dur=41s", "from=[REDACTED_PHONE] dur=41s"},
		{"contact is 13812345678, reachable", "contact is [REDACTED_PHONE], reachable"},
		{"phone is 01.42.68.53.00 according", "phone is [REDACTED_PHONE] according"},
		// ordinary numbers stay
		{"bytes_sent=18446744073 total", "bytes_sent=18446744073 total"},
		{"transferred 15728640000 bytes", "transferred 15728640000 bytes"},
		{"total 13912345678 in the batch", "total 13912345678 in the batch"},
		{"Sum of 12 34 56 78 90 items", "Sum of 12 34 56 78 90 items"},
		{"Invoice 2026-000134 totals", "Invoice 2026-000134 totals"},
		{"+30 21 0 0 0 0 is no number", "+30 21 0 0 0 0 is no number"},
		{"Upgraded from 1.2.3.4.5.6 today", "Upgraded from 1.2.3.4.5.6 today"},
		{"OID 1.3.6.1.2.1.1.5.0 for sysName", "OID 1.3.6.1.2.1.1.5.0 for sysName"},
		{"serial 010.001.002.003 here", "serial 010.001.002.003 here"},
		{"to 10.20.30.40:8080 ok", "to [REDACTED_IP]:8080 ok"},
		// date-led identifiers, a syslog version before its timestamp, an access log's status and size
		{"The case number 20261129-000481 was noted", "The case number 20261129-000481 was noted"},
		{"<134>1 2026-11-29T07:00:02Z vpn01 openvpn", "<134>1 2026-11-29T07:00:02Z vpn01 openvpn"},
		{`"GET /x HTTP/1.1" 200 5123 "-"`, `"GET /x HTTP/1.1" 200 5123 "-"`},
		{"GET https://h.example/x?a=b 200 1834221", "GET https://h.example/x?a=b 200 1834221"},
		{"Call 200 1834221 now", "Call [REDACTED_PHONE] now"},
		// a card as a CSV field; a thousands-grouped amount stays
		{"order,card\nA-1,30149283751047,11/28", "order,card\nA-1,[REDACTED_CC],11/28"},
		{"total 1,234,567,890,123 units", "total 1,234,567,890,123 units"},
	}
	r := New(AllTypes()...)
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			if got, _ := r.String(c.in); got != c.want {
				t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestLabelledValues(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"The heroku api key c46ccd05-6e0c-4655-9860-78fada54d472 leaked", "The heroku api key [REDACTED_API_KEY] leaked"},
		{`{"request_id":"b9b92d4f-cb3b-4145-afcd-151c039a8a39","app":"heroku-prod-web"}`, `{"request_id":"b9b92d4f-cb3b-4145-afcd-151c039a8a39","app":"heroku-prod-web"}`},
		{"heroku app b9b92d4f-cb3b-4145-afcd-151c039a8a39 restarted", "heroku app b9b92d4f-cb3b-4145-afcd-151c039a8a39 restarted"},
		{"note: user jdoe pass Wint3r!Harbor was reset", "note: user jdoe pass [REDACTED_SECRET] was reset"},
		{"user: backup pass: B4ckup#2026 in cron", "user: backup pass: [REDACTED_SECRET] in cron"},
		{"the user reset the pass phrase", "the user reset the pass phrase"},
		{"user admin pass ${ADMIN_PASS}", "user admin pass ${ADMIN_PASS}"},
		{"user admin passed the check 12345a", "user admin passed the check 12345a"},
		{"the line 10.2.3.4:6432:*:billing:b1ll1ng!Pay in the backup", "the line [REDACTED_IP]:6432:*:billing:[REDACTED_SECRET] in the backup"},
		{"Authorization: FlyV1 fm2_" + strings.Repeat("aB3+", 30) + "=", "Authorization: [REDACTED_API_KEY]"},
	}
	r := New(AllTypes()...)
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			if got, _ := r.String(c.in); got != c.want {
				t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestAzureConnectionStrings(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"Endpoint=sb://o.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=C/nlsFyj2QUEtABQA675PPRfuOxtH/QSmE7gGMcsZ6s=",
			"Endpoint=sb://o.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=[REDACTED_SECRET]"},
		{"Endpoint=https://cfg.azconfig.io;Id=0jPY-l0-s0:XOg1lHSssNdsTKRr9p2X;Secret=FVgkvrxJEf+gF93iX9tbMOpMvW2B2J7aflSB+M01znY=",
			"Endpoint=https://cfg.azconfig.io;Id=0jPY-l0-s0:XOg1lHSssNdsTKRr9p2X;Secret=[REDACTED_SECRET]"},
		{"AccountName=st;AccountKey=FIL3TG9GGTUL6XqgsJE10tb3CE7VqEHpbI78JxRCKjItL74rovGXrlyn07FikMpa/IhbJyiw/gHwa/dpsKRNKg==;EndpointSuffix=core.windows.net",
			"AccountName=st;AccountKey=[REDACTED_SECRET];EndpointSuffix=core.windows.net"},
	}
	r := New(AllTypes()...)
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			if got, _ := r.String(c.in); got != c.want {
				t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// BenchmarkFifthSet runs the fifth set's texts (other countries' phone
// layouts, vendor shapes, dotted numbers): the text that reaches the
// numbering plans most often.
func BenchmarkFifthSet(b *testing.B) {
	var sb strings.Builder
	recs := loadRecords(b, fifthSetPath)
	for sb.Len() < 1<<20 {
		for _, r := range recs {
			sb.WriteString(r.Text)
			sb.WriteByte('\n')
		}
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		all.String(s)
	}
}

func TestMailgunLabelled(t *testing.T) {
	t.Parallel()
	r := New(AllTypes()...)
	for in, want := range map[string]string{
		"Leaked Mailgun key 614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e in the repo":                              "Leaked Mailgun key [REDACTED_API_KEY] in the repo",
		"build 614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e finished":                                              "build 614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e finished",
		"curl -s --user 'api:614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e' https://api.eu.mailgun.net/v3/x/events": "curl -s --user 'api:[REDACTED_API_KEY]' https://api.eu.mailgun.net/v3/x/events",
		"614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e\nhttps://api.mailgun.net/v3":                                 "614a0aa87d13f49bde9e348b48ba5de2-d4d0cd78-da75527e\nhttps://api.mailgun.net/v3",
	} {
		if got, _ := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSMTPAuthPlain(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) {
		i := strings.Index(s, "AUTH")
		sc.smtpAuthAt(s, i, i+4)
	}
	checkRecognizer(t, "smtpAuthAt", run, []recognizerCase{
		{"C: AUTH PLAIN AHNjYW5uZXJAZXhhbXBsZS5jb20AU2M0bm5lci1SZWxheS0yMDI2", "SECRET:AHNjYW5uZXJAZXhhbXBsZS5jb20AU2M0bm5lci1SZWxheS0yMDI2"},
		{"AUTH PLAIN AGpvZQBwYXNz\r\n", "SECRET:AGpvZQBwYXNz"},
		{"S: 250-AUTH PLAIN LOGIN", ""},
		{"AUTH PLAIN dGVzdA==", ""}, // no NUL-separated credentials
		{"AUTH PLAIN =", ""},
	})
}
