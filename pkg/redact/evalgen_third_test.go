package redact

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The third generated set is written from the labelling policy's category
// definitions alone, before the rules it scores were revised: new sentence
// and file templates (analyst notes in English and Japanese, GuardDuty- and
// SCC-like alert JSON, JSON-escaped tool output, YAML, .env, INI, Terraform,
// shell, PowerShell, Python, connection strings, log lines) and new value
// shapes, mixed with the strings an analyst needs kept. Its first score is
// the honest estimate of how the redactor generalises.
const thirdSetPath = "testdata/evalset-third.jsonl"

func renderThirdSet(t *testing.T) []byte {
	g := &evalGen{r: rand.New(rand.NewPCG(20261123, 303))}
	g.buildThird()
	return renderItems(t, g)
}

const csDigit = "0123456789"

func (g *evalGen) digits(n int) string { return g.str(csDigit, n) }

// ---- values, per category ----

func (g *evalGen) t3Email() string {
	first := g.pick("akiko", "j", "priya", "m.oconnor", "lee", "sato.taro", "ops", "Dana", "chris_w", "n-ivanova")
	last := g.pick("", ".tanaka", ".smith", "+soc", "+alerts2026", "_92", ".r", "-it", "7")
	dom := g.pick("example.com", "corp.example.co.jp", "mail.contoso-labs.net", "Example.ORG", "dept.univ.ac.uk",
		"xn--eckwd4c7c.jp", "sub1.sub2.example.io", "tenant.onmicrosoft.com")
	return first + last + "@" + dom
}

func (g *evalGen) t3Phone() string {
	d := g.digits
	switch g.r.IntN(12) {
	case 0:
		return "+81 90-" + d(4) + "-" + d(4)
	case 1:
		return "090-" + d(4) + "-" + d(4)
	case 2:
		return "03-" + d(4) + "-" + d(4)
	case 3:
		return "(" + g.pick("212", "415", "646", "312") + ") " + g.pick("555", "382", "719") + "-" + d(4)
	case 4:
		return "+1 " + g.pick("415", "206", "617") + "-" + g.pick("555", "382", "719") + "-" + d(4)
	case 5:
		return "+44 20 " + d(4) + " " + d(4)
	case 6:
		return "+49 30 " + d(8)
	case 7:
		return g.pick("415", "646", "503") + "." + g.pick("555", "382", "719") + "." + d(4)
	case 8:
		return "+33 1 " + d(2) + " " + d(2) + " " + d(2) + " " + d(2)
	case 9:
		return fullwidth("080-" + d(4) + "-" + d(4))
	case 10:
		return "+81-3-" + d(4) + "-" + d(4)
	default:
		return "+61 2 " + d(4) + " " + d(4)
	}
}

func fullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r - '0' + '０')
		case r == '-':
			b.WriteRune('－')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// t3Card returns a Luhn-valid number (valid=true) or the same shape with a
// broken check digit, grouped as cards are written.
func (g *evalGen) t3Card(valid bool) string {
	var prefix string
	n := 16
	group := []int{4, 4, 4, 4}
	switch g.r.IntN(7) {
	case 0:
		prefix = "4"
	case 1:
		prefix = "5" + g.pick("1", "2", "3", "4", "5")
	case 2:
		prefix = "22" + g.pick("21", "50", "99")
	case 3:
		prefix, n, group = "3"+g.pick("4", "7"), 15, []int{4, 6, 5}
	case 4:
		prefix = "6011"
	case 5:
		prefix = "35" + g.pick("28", "40", "89")
	default:
		prefix, n, group = "36", 14, []int{4, 6, 4}
	}
	body := []byte(prefix + g.digits(n-len(prefix)-1))
	sum := 0
	for i := len(body) - 1; i >= 0; i-- {
		x := int(body[i] - '0')
		if (len(body)-i)%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	check := (10 - sum%10) % 10
	if !valid {
		check = (check + 1 + g.r.IntN(8)) % 10
	}
	num := string(body) + string(rune('0'+check))
	sep := g.pick("", " ", "-")
	if sep == "" {
		return num
	}
	var parts []string
	i := 0
	for _, k := range group {
		parts = append(parts, num[i:i+k])
		i += k
	}
	return strings.Join(parts, sep)
}

func (g *evalGen) t3SSN(valid bool) string {
	var area int
	if valid {
		area = 1 + g.r.IntN(899)
		if area == 666 {
			area = 667
		}
	} else {
		area = []int{0, 666, 900 + g.r.IntN(99)}[g.r.IntN(3)]
	}
	grp, ser := 1+g.r.IntN(99), 1+g.r.IntN(9999)
	if !valid && area != 0 && g.r.IntN(2) == 0 {
		grp = 0
	}
	sep := g.pick("-", " ", ".")
	return fmt.Sprintf("%03d%s%02d%s%04d", area, sep, grp, sep, ser)
}

func (g *evalGen) t3IPv4() string {
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254))
	case 1:
		return fmt.Sprintf("172.%d.%d.%d", 16+g.r.IntN(16), g.r.IntN(256), 1+g.r.IntN(254))
	case 2:
		return fmt.Sprintf("192.168.%d.%d", g.r.IntN(256), 1+g.r.IntN(254))
	default:
		return fmt.Sprintf("%d.%d.%d.%d", 11+g.r.IntN(200), g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254))
	}
}

func (g *evalGen) t3IPv6() string {
	h := func() string { // a group of one to four hex digits, no leading zeros
		if s := strings.TrimLeft(g.str(csHexL, 4), "0"); s != "" {
			return s
		}
		return "0"
	}
	switch g.r.IntN(5) {
	case 0:
		return "2001:db8:" + h() + "::" + h()
	case 1:
		return "fe80::" + h() + ":" + h() + ":" + h() + ":" + h()
	case 2:
		parts := make([]string, 8)
		for i := range parts {
			parts[i] = g.str(csHexL, 4)
		}
		return strings.Join(parts, ":")
	case 3:
		return strings.ToUpper("2600:1f18:" + h() + ":" + h() + "::" + h())
	default:
		return "fd00::" + h()
	}
}

func (g *evalGen) t3IP() string {
	if g.r.IntN(3) == 0 {
		return g.t3IPv6()
	}
	return g.t3IPv4()
}

func (g *evalGen) t3JWT() string {
	hdr := g.pick("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ", "eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9")
	return hdr + ".eyJ" + g.str(csURL, 40+g.r.IntN(60)) + "." + g.str(csURL, 43)
}

// t3APIKey is a vendor-shaped token or an opaque key.
func (g *evalGen) t3APIKey() string {
	switch g.r.IntN(16) {
	case 0:
		return "AKIA" + g.str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	case 1:
		return "ASIA" + g.str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	case 2:
		return g.pick("ghp_", "gho_", "ghu_", "ghs_") + g.str(csAlnum, 36)
	case 3:
		return "github_pat_11" + g.str(csUpAN, 20) + "_" + g.str(csAlnum, 59)
	case 4:
		return "glpat-" + g.str(csURL, 20)
	case 5:
		return g.pick("xoxb-", "xoxp-") + g.digits(12) + "-" + g.digits(13) + "-" + g.str(csAlnum, 24)
	case 6:
		return g.pick("sk_live_", "rk_live_") + g.str(csAlnum, 24+g.r.IntN(75))
	case 7:
		return "AIza" + g.str(csURL, 35)
	case 8:
		return "SG." + g.str(csURL, 22) + "." + g.str(csURL, 43)
	case 9:
		return "npm_" + g.str(csAlnum, 36)
	case 10:
		return g.t3JWT()
	case 11:
		return "sk-proj-" + g.str(csURL, 48)
	case 12:
		return "shpat_" + g.str(csHexL, 32)
	case 13:
		return "SK" + g.str(csHexL, 32)
	case 14:
		return g.str(csHexL, 32)
	default:
		return g.str(csAlnum, 40)
	}
}

func (g *evalGen) t3Webhook() string {
	switch g.r.IntN(3) {
	case 0:
		return "https://hooks.slack.com/services/T" + g.str(csUpAN, 8) + "/B" + g.str(csUpAN, 10) + "/" + g.str(csAlnum, 24)
	case 1:
		return "https://discord.com/api/webhooks/" + g.digits(18) + "/" + g.str(csURL, 68)
	default:
		return "https://" + g.pick("contoso", "acme") + ".webhook.office.com/webhookb2/" + g.str(csHexL, 8) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 12) + "@" + g.str(csHexL, 8) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 12) + "/IncomingWebhook/" + g.str(csHexL, 32) + "/" + g.str(csHexL, 8) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 4) + "-" + g.str(csHexL, 12)
	}
}

func (g *evalGen) t3Password() string {
	switch g.r.IntN(6) {
	case 0:
		return g.pick("Winter", "Summer", "Sakura", "Dragon", "Monkey") + g.digits(4) + g.pick("!", "#", "$", "@")
	case 1:
		return g.str(csAlnum+"!#%^*-_", 14)
	case 2:
		return g.pick("correct", "purple", "silent") + "-" + g.pick("horse", "river", "tiger") + "-" + g.pick("battery", "lamp", "cloud") + "-" + g.digits(2)
	case 3:
		return "P@" + g.str(csAlnum, 6) + g.digits(2) + "!"
	case 4:
		return g.str(csAlnum, 20)
	default:
		return "hunter" + g.digits(3) + "&Qz"
	}
}

func (g *evalGen) t3AWSSecret() string { return g.str(csB64, 40) }

func (g *evalGen) t3PEM(escaped bool) string {
	kind := g.pick("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY")
	nl := "\n"
	if escaped {
		nl = `\n`
	}
	var b strings.Builder
	b.WriteString("-----BEGIN " + kind + "-----" + nl)
	for i := 0; i < 2+g.r.IntN(3); i++ {
		b.WriteString(g.str(csB64, 64) + nl)
	}
	b.WriteString(g.str(csB64, 20) + "==" + nl)
	b.WriteString("-----END " + kind + "-----")
	return b.String()
}

// ---- things that must survive ----

func (g *evalGen) t3UUID() string {
	return g.str(csHexL, 8) + "-" + g.str(csHexL, 4) + "-4" + g.str(csHexL, 3) + "-a" + g.str(csHexL, 3) + "-" + g.str(csHexL, 12)
}

func (g *evalGen) t3Time() string {
	return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), g.r.IntN(1000))
}

func (g *evalGen) t3Account() string { return fmt.Sprintf("%d", 100000000000+g.r.Int64N(899999999999)) }

func (g *evalGen) t3Negative() string {
	switch g.r.IntN(24) {
	case 0:
		return g.t3UUID()
	case 1:
		return g.t3Time()
	case 2:
		return g.str(csHexL, 64)
	case 3:
		return g.str(csHexL, 40)
	case 4:
		return "arn:aws:iam::" + g.t3Account() + ":role/" + g.pick("SecurityAudit", "OrganizationAccountAccessRole", "ci-deployer")
	case 5:
		return "arn:aws:s3:::" + g.pick("prod-logs", "finance-exports", "tf-state") + "-" + g.t3Account()
	case 6:
		return "i-0" + g.str(csHexL, 16)
	case 7:
		return g.pick("v1.29.4", "2.14.0-rc.1", "OpenSSL 3.0.13", "nginx/1.25.3", "10.0.19045.3693", "kernel 6.8.0-45-generic")
	case 8:
		return g.pick("https://login.contoso-example.com/oauth2/authorize", "malicious-updates.example.net", "http://198-51-100-7.example.org/payload.sh", "https://github.com/org/repo/blob/main/deploy.yaml")
	case 9:
		return g.pick("UnauthorizedAccess:EC2/SSHBruteForce", "Recon:IAMUser/MaliciousIPCaller.Custom", "CryptoCurrency:EC2/BitcoinTool.B!DNS", "CredentialAccess:Kubernetes/MaliciousIPCaller", "PERSISTENCE_IAM_ANOMALOUS_GRANT")
	case 10:
		return g.pick("${PASSWORD}", "<your-key>", "${{ secrets.DB_PASSWORD }}", "YOUR_API_KEY_HERE", "{{ .Values.apiKey }}", "%DB_PASS%", "<redacted>", "********")
	case 11:
		return "ghp_" + strings.Repeat("x", 36)
	case 12:
		return g.t3Card(false)
	case 13:
		return g.t3SSN(false)
	case 14:
		return fmt.Sprintf("%d.%d.%d.%d", 256+g.r.IntN(700), g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
	case 15:
		return fmt.Sprintf("%d", 1700000000000+g.r.Int64N(99999999999))
	case 16:
		return fmt.Sprintf("%d,%03d,%03d", 1+g.r.IntN(99), g.r.IntN(1000), g.r.IntN(1000))
	case 17:
		return "sha256:" + g.str(csHexL, 64)
	case 18:
		return "projects/" + g.pick("acme-prod", "sec-ops-471") + "/sources/" + g.digits(19) + "/findings/" + g.str(csHexL, 32)
	case 19:
		return "sg-0" + g.str(csHexL, 16)
	case 20:
		return "INC" + g.digits(7)
	case 21:
		return g.str(csHexL, 32) // MD5 named as a hash in its template
	case 22:
		return g.t3Account()
	default:
		return "CVE-20" + g.pick("23", "24", "25") + "-" + g.digits(5)
	}
}

// ---- templates ----

type t3val struct{ typ, val string }

func (g *evalGen) t3Positive(typ string) t3val {
	switch typ {
	case "EMAIL":
		return t3val{typ, g.t3Email()}
	case "PHONE":
		return t3val{typ, g.t3Phone()}
	case "CC":
		return t3val{typ, g.t3Card(true)}
	case "SSN":
		return t3val{typ, g.t3SSN(true)}
	case "IP":
		return t3val{typ, g.t3IP()}
	}
	panic(typ)
}

var t3Labels = map[string][]string{
	"EMAIL": {"reporter email", "sender", "mailbox", "user principal"},
	"PHONE": {"callback number", "phone", "mobile", "contact number"},
	"CC":    {"card number", "PAN", "payment card", "card"},
	"SSN":   {"SSN", "social security number", "SSN on file", "taxpayer SSN"},
	"IP":    {"source IP", "remote address", "egress IP", "caller IP"},
}

var t3LabelsJA = map[string][]string{
	"EMAIL": {"メールアドレス", "送信者", "報告者のメール"},
	"PHONE": {"電話番号", "連絡先", "携帯番号"},
	"CC":    {"カード番号", "クレジットカード番号"},
	"SSN":   {"社会保障番号", "SSN"},
	"IP":    {"送信元IP", "接続元アドレス", "宛先IP"},
}

func (g *evalGen) t3SentenceEN(x t3val, neg string) []seg {
	l := g.pick(t3Labels[x.typ]...)
	switch g.r.IntN(6) {
	case 0:
		return []seg{p("Triage note: the " + l + " in ticket " + neg + " was "), v(x.typ, x.val), p("; escalating to tier 2.")}
	case 1:
		return []seg{p("At " + g.t3Time() + " we saw " + l + " "), v(x.typ, x.val), p(" linked to " + neg + ".")}
	case 2:
		return []seg{p("Can you check whether "), v(x.typ, x.val), p(" (" + l + ") appears anywhere else? Related: " + neg)}
	case 3:
		return []seg{p("- " + l + ": "), v(x.typ, x.val), p("\n- reference: " + neg + "\n")}
	case 4:
		return []seg{p("Customer confirmed their " + l + " is "), v(x.typ, x.val), p(", and the affected object is " + neg + ".")}
	default:
		return []seg{p("> "), v(x.typ, x.val), p(" — " + l + ", seen alongside " + neg)}
	}
}

func (g *evalGen) t3SentenceJA(x t3val, neg string) []seg {
	l := g.pick(t3LabelsJA[x.typ]...)
	switch g.r.IntN(4) {
	case 0:
		return []seg{p(l + "は"), v(x.typ, x.val), p("です。関連ID: " + neg)}
	case 1:
		return []seg{p("調査の結果、" + l + "（"), v(x.typ, x.val), p("）が" + neg + "に記録されていました。")}
	case 2:
		return []seg{p("【" + l + "】"), v(x.typ, x.val), p("\n【参照】" + neg)}
	default:
		return []seg{p(neg + " の件で、" + l + ":"), v(x.typ, x.val), p(" を確認してください。")}
	}
}

// t3Alert wraps segs as the value of one field in a GuardDuty- or SCC-like
// finding; the other fields are strings that must survive.
func (g *evalGen) t3Alert(key string, val []seg) []seg {
	acct := g.t3Account()
	if g.r.IntN(2) == 0 {
		out := []seg{p(`{"schemaVersion":"2.0","accountId":"` + acct + `","region":"` + g.pick("us-east-1", "ap-northeast-1", "eu-west-2") +
			`","id":"` + g.str(csHexL, 32) + `","type":"` + g.pick("UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.OutsideAWS", "Recon:EC2/PortProbeUnprotectedPort", "Discovery:S3/AnomalousBehavior") +
			`","severity":` + g.pick("2", "5.3", "8") + `,"createdAt":"` + g.t3Time() + `","resource":{"instanceDetails":{"instanceId":"i-0` + g.str(csHexL, 16) + `"}},"service":{"action":{"` + key + `":"`)}
		out = append(out, val...)
		return append(out, p(`"},"count":`+g.digits(2)+`}}`))
	}
	out := []seg{p(`{"finding":{"name":"organizations/` + g.digits(12) + `/sources/` + g.digits(19) + `/findings/` + g.str(csHexL, 32) +
		`","category":"` + g.pick("Persistence: IAM Anomalous Grant", "Malware: Bad Domain", "Exfiltration: BigQuery Data Extraction") +
		`","eventTime":"` + g.t3Time() + `","resourceName":"//compute.googleapis.com/projects/acme-prod/zones/asia-northeast1-b/instances/` + g.digits(19) +
		`","sourceProperties":{"` + key + `":"`)}
	out = append(out, val...)
	return append(out, p(`"}}}`))
}

// t3Tool is an alert or snippet as it reads inside a tool result: JSON-escaped.
func (g *evalGen) t3Tool(inner []seg) []seg {
	out := []seg{p(`{"role":"tool","name":"` + g.pick("get_alert", "search_logs", "read_object") + `","content":"`)}
	out = append(out, escSegs(inner)...)
	return append(out, p(`"}`))
}

var t3AlertKeys = map[string][]string{
	"EMAIL": {"principalEmail", "userEmail", "recipient"},
	"PHONE": {"mfaPhone", "contactPhone"},
	"CC":    {"cardNumber", "matchedValue"},
	"SSN":   {"matchedValue", "ssn"},
	"IP":    {"ipAddressV4", "callerIp", "remoteIp"},
}

// ---- the build ----

func (g *evalGen) buildThird() {
	const src = "third:"
	// PII types in sentences, alerts, tool output and logs.
	for _, typ := range []string{"EMAIL", "PHONE", "CC", "SSN", "IP"} {
		for i := 0; i < 10; i++ {
			g.add(src+strings.ToLower(typ), "positive", "sentence", g.t3SentenceEN(g.t3Positive(typ), g.t3Negative())...)
		}
		for i := 0; i < 6; i++ {
			x := g.t3Positive(typ)
			glued := i%2 == 0
			if glued && typ != "IP" || !glued {
				g.add(src+strings.ToLower(typ), "positive", "sentence", g.t3SentenceJA(x, g.t3Negative())...)
			} else {
				g.add(src+strings.ToLower(typ), "positive", "sentence", p("接続元"), v(x.typ, x.val), p("から不審なログインがありました。"))
			}
		}
		for i := 0; i < 5; i++ {
			x := g.t3Positive(typ)
			a := g.t3Alert(g.pick(t3AlertKeys[typ]...), []seg{v(x.typ, x.val)})
			if i%2 == 1 {
				a = g.t3Tool(a)
			}
			g.add(src+strings.ToLower(typ), "positive", "alert", a...)
		}
		for i := 0; i < 3; i++ {
			x := g.t3Positive(typ)
			var line []seg
			switch typ {
			case "IP":
				line = []seg{p(g.t3Time() + " sshd[" + g.digits(5) + "]: Failed password for invalid user admin from "), v("IP", x.val), p(" port " + g.digits(5) + " ssh2")}
			case "EMAIL":
				line = []seg{p(g.t3Time() + " postfix/smtpd[" + g.digits(4) + "]: NOQUEUE: reject: RCPT from unknown; from=<"), v("EMAIL", x.val), p("> proto=ESMTP")}
			default:
				line = []seg{p(g.t3Time() + " level=warn msg=\"dlp match\" rule=" + strings.ToLower(typ) + " value=\""), v(typ, x.val), p("\" request_id=" + g.t3UUID())}
			}
			g.add(src+strings.ToLower(typ), "positive", "log", line...)
		}
	}
	// IPs with ports and in URLs: the address alone is the value.
	for i := 0; i < 4; i++ {
		ip := g.t3IPv4()
		g.add(src+"ip", "positive", "log", p("conn established "), v("IP", ip), p(":"+g.digits(4)+" -> "), v("IP", g.t3IPv4()), p(":443 bytes="+g.digits(6)))
	}
	for i := 0; i < 3; i++ {
		ip6 := g.t3IPv6()
		g.add(src+"ip", "positive", "log", p("GET /healthz 200 client=["), v("IP", ip6), p("]:"+g.digits(5)+" ua=\"curl/8.5.0\""))
	}

	// API keys in code, config and sentences.
	apiTemplates := []func(k string) ([]seg, string){
		func(k string) ([]seg, string) {
			return []seg{p("# .env\nNODE_ENV=production\n" + g.pick("API_KEY", "STRIPE_SECRET_KEY", "SERVICE_TOKEN", "X_API_KEY") + "="), v("API_KEY", k), p("\nLOG_LEVEL=debug\n")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("integrations:\n  pagerduty:\n    routing_key_ref: vault://pd\n  vendor:\n    " + g.pick("api_key", "apiKey", "access_token", "auth-token") + ": \""), v("API_KEY", k), p("\"\n    timeout: 30s\n")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("[default]\nregion = us-east-1\n" + g.pick("api_key", "token", "apikey") + " = "), v("API_KEY", k), p("\n")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("provider \"datadog\" {\n  " + g.pick("api_key", "app_key", "token") + " = \""), v("API_KEY", k), p("\"\n  api_url = \"https://api.datadoghq.com/\"\n}\n")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("curl -sS -H \"" + g.pick("X-API-Key", "X-Api-Token", "apikey") + ": "), v("API_KEY", k), p("\" https://api.example.com/v2/events?limit=100")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("$headers = @{ Authorization = \"Bearer "), v("API_KEY", k), p("\" }\nInvoke-RestMethod -Uri https://graph.microsoft.com/v1.0/me -Headers $headers")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("client = Client(" + g.pick("api_key", "token", "auth_token") + "=\""), v("API_KEY", k), p("\", region=\"eu\")  # TODO move to vault")}, "code"
		},
		func(k string) ([]seg, string) {
			return []seg{p("The leaked token "), v("API_KEY", k), p(" was revoked at " + g.t3Time() + ".")}, "sentence"
		},
		func(k string) ([]seg, string) {
			return []seg{p("漏洩したトークン"), v("API_KEY", k), p("は無効化済みです。")}, "sentence"
		},
		func(k string) ([]seg, string) {
			return []seg{p(g.t3Time() + " INFO http request method=POST path=/v1/charges authorization=\"Bearer "), v("API_KEY", k), p("\" status=201")}, "log"
		},
		func(k string) ([]seg, string) {
			return g.t3Alert("accessKeyId", []seg{v("API_KEY", k)}), "alert"
		},
		func(k string) ([]seg, string) {
			return g.t3Tool([]seg{p("export GITHUB_TOKEN="), v("API_KEY", k), p("\ngh api /user\n")}), "alert"
		},
	}
	for i := 0; i < 48; i++ {
		segs, shape := apiTemplates[i%len(apiTemplates)](g.t3APIKey())
		g.add(src+"api_key", "positive", shape, segs...)
	}
	for i := 0; i < 8; i++ {
		w := g.t3Webhook()
		switch i % 4 {
		case 0:
			g.add(src+"api_key", "positive", "code", p("notify:\n  webhook_url: "), v("API_KEY", w), p("\n  channel: \"#sec-alerts\"\n"))
		case 1:
			g.add(src+"api_key", "positive", "sentence", p("Alerts are posted to "), v("API_KEY", w), p(" — rotate it."))
		case 2:
			g.add(src+"api_key", "positive", "alert", g.t3Tool([]seg{p("WEBHOOK="), v("API_KEY", w), p("\n")})...)
		default:
			g.add(src+"api_key", "positive", "sentence", p("通知先Webhook: "), v("API_KEY", w))
		}
	}

	// Secrets: passwords, key blocks, client secrets, URL and curl credentials.
	secTemplates := []func() ([]seg, string){
		func() ([]seg, string) {
			return []seg{p("DB_HOST=db.internal\nDB_USER=app\n" + g.pick("DB_PASSWORD", "POSTGRES_PASSWORD", "MYSQL_ROOT_PASSWORD", "REDIS_PASS") + "="), v("SECRET", g.t3Password()), p("\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("database:\n  host: db.internal\n  user: reporting\n  " + g.pick("password", "passwd", "pwd") + ": '"), v("SECRET", g.t3Password()), p("'\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("[mysql]\nuser = backup\n" + g.pick("password", "pass") + " = "), v("SECRET", g.t3Password()), p("\nport = 3306\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("resource \"aws_db_instance\" \"main\" {\n  username = \"admin\"\n  password = \""), v("SECRET", g.t3Password()), p("\"\n  engine   = \"postgres\"\n}\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("$pw = ConvertTo-SecureString \""), v("SECRET", g.t3Password()), p("\" -AsPlainText -Force\nNew-LocalUser -Name svc_backup -Password $pw")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("conn = psycopg2.connect(host=\"db\", user=\"etl\", password=\""), v("SECRET", g.t3Password()), p("\")")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("curl -u " + g.pick("admin", "svc-jenkins", "elastic") + ":"), v("SECRET", g.t3Password()), p(" https://ci.example.com/api/json")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p(g.pick("postgres", "postgresql", "mysql", "mongodb+srv", "amqp", "redis") + "://" + g.pick("app", "svc_user", "root") + ":"), v("SECRET", g.str(csAlnum, 16)), p("@" + g.pick("db.prod.internal:5432/app", "cluster0.ab12c.mongodb.net/test?retryWrites=true", "mq.example.com:5672/vhost", "cache.internal:6379/0"))}, "connstr"
		},
		func() ([]seg, string) {
			return []seg{p("Server=tcp:sql-prod.database.windows.net,1433;Database=ledger;User ID=sa;Password="), v("SECRET", g.t3Password()), p(";Encrypt=True;")}, "connstr"
		},
		func() ([]seg, string) {
			return []seg{p(g.pick("client_secret", "CLIENT_SECRET", "clientSecret") + ": "), v("SECRET", g.str(csURL, 34)), p("\nclient_id: " + g.t3UUID() + "\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("aws_access_key_id = "), v("API_KEY", "AKIA"+g.str(csUpAN, 16)), p("\naws_secret_access_key = "), v("SECRET", g.t3AWSSecret()), p("\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("The admin password was "), v("SECRET", g.t3Password()), p(" and it was reused on " + g.pick("vpn.example.com", "the jump host", "three accounts") + ".")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("パスワードは"), v("SECRET", g.t3Password()), p("でした。すぐに変更してください。")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p(g.t3Time() + " ERROR auth failed: user=svc_backup password=\""), v("SECRET", g.t3Password()), p("\" src=" + g.pick("batch-7", "node-3"))}, "log"
		},
		func() ([]seg, string) {
			return g.t3Tool([]seg{p("cat ~/.pgpass\ndb.internal:5432:*:app:"), v("SECRET", g.t3Password()), p("\n")}), "alert"
		},
		func() ([]seg, string) {
			return []seg{p("-H \"Authorization: Basic "), v("SECRET", g.str(csB64, 28)+"="), p("\"")}, "code"
		},
	}
	for i := 0; i < 48; i++ {
		segs, shape := secTemplates[i%len(secTemplates)]()
		g.add(src+"secret", "positive", shape, segs...)
	}
	for i := 0; i < 6; i++ {
		switch i % 3 {
		case 0:
			g.add(src+"secret", "positive", "code", p("deploy key found in repo:\n"), v("SECRET", g.t3PEM(false)), p("\n"))
		case 1:
			g.add(src+"secret", "positive", "alert", p(`{"role":"tool","content":"key file:\n`), v("SECRET", g.t3PEM(true)), p(`\n"}`))
		default:
			g.add(src+"secret", "positive", "code", p("tls:\n  key: |\n    "), v("SECRET", strings.ReplaceAll(g.t3PEM(false), "\n", "\n    ")), p("\n"))
		}
	}

	// Mixed records: several types in one alert or note.
	for i := 0; i < 12; i++ {
		ip, em, key := g.t3IPv4(), g.t3Email(), g.t3APIKey()
		inner := []seg{p(`{"eventName":"ConsoleLogin","eventTime":"` + g.t3Time() + `","sourceIPAddress":"`), v("IP", ip),
			p(`","userIdentity":{"arn":"arn:aws:iam::` + g.t3Account() + `:user/`), v("EMAIL", em),
			p(`","accessKeyId":"`), v("API_KEY", key), p(`"},"requestID":"` + g.t3UUID() + `"}`)}
		if i%2 == 0 {
			inner = g.t3Tool(inner)
		}
		g.add(src+"mixed", "positive", "alert", inner...)
	}
	for i := 0; i < 6; i++ {
		g.add(src+"mixed", "positive", "sentence", p("本人確認: 電話"), v("PHONE", g.t3Phone()), p("、メール"), v("EMAIL", g.t3Email()), p("、カード"), v("CC", g.t3Card(true)), p("。"))
	}

	// Hard negatives: every one must come through untouched.
	negTemplates := []func() ([]seg, string){
		func() ([]seg, string) {
			return []seg{p("Finding " + g.t3UUID() + " (" + g.t3Negative() + ") first seen " + g.t3Time() + ", last seen " + g.t3Time() + ".")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("password = get_secret(\"db/" + g.pick("prod", "staging") + "\")\napi_key = os.environ[\"" + g.pick("API_KEY", "STRIPE_KEY") + "\"]\ntoken = None\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("DB_PASSWORD=" + g.pick("${DB_PASSWORD}", "<your-password>", "$(cat /run/secrets/db)", "") + "\nAPI_KEY=" + g.pick("<your-key>", "${API_KEY}", "YOUR_API_KEY", "xxxxxxxxxxxxxxxx") + "\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("password: ${{ secrets.DEPLOY_PASSWORD }}\ntoken: {{ vault \"secret/data/ci\" \"token\" }}\nimage: ghcr.io/acme/api@sha256:" + g.str(csHexL, 64) + "\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p(`{"type":"` + g.pick("Recon:EC2/PortProbeUnprotectedPort", "Impact:EC2/BitcoinDomainRequest.Reputation", "Trojan:EC2/DNSDataExfiltration") + `","accountId":"` + g.t3Account() + `","resource":{"instanceId":"i-0` + g.str(csHexL, 16) + `","imageId":"ami-0` + g.str(csHexL, 16) + `"},"updatedAt":"` + g.t3Time() + `","severity":8.0,"count":` + g.digits(3) + `,"sha256":"` + g.str(csHexL, 64) + `"}`)}, "alert"
		},
		func() ([]seg, string) {
			return []seg{p("検知ID " + g.t3UUID() + " は " + g.t3Time() + " に発生。ドメイン " + g.pick("evil-cdn.example.net", "update-check.example.org") + " への通信が " + g.digits(4) + " 回ありました。")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("Test card " + g.t3Card(false) + " was rejected (Luhn check failed); SSN field contained " + g.t3SSN(false) + ", which is not issued.")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("Upgrade from " + g.pick("v2.3.1", "1.18.0", "4.7.2-beta.3") + " to " + g.pick("v2.4.0", "1.19.2", "5.0.0") + " fixed CVE-2025-" + g.digits(5) + "; md5 " + g.str(csHexL, 32) + ", build " + g.digits(8) + ".")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p(g.t3Time() + " INFO request_id=" + g.t3UUID() + " trace=" + g.str(csHexL, 32) + " latency_ms=" + g.digits(3) + " bytes=" + g.digits(7) + " path=/api/v1/users/" + g.digits(6) + "\n")}, "log"
		},
		func() ([]seg, string) {
			return g.t3Tool([]seg{p(`{"commit":"` + g.str(csHexL, 40) + `","author":"ci-bot","message":"bump version to ` + g.pick("3.2.1", "0.9.14") + `","files":["terraform/main.tf","helm/values.yaml"]}`)}), "alert"
		},
		func() ([]seg, string) {
			return []seg{p("variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\npassword = var.db_password\nkms_key_id = \"arn:aws:kms:us-east-1:" + g.t3Account() + ":key/" + g.t3UUID() + "\"\n")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("$cred = Get-Credential\n$secret = (Get-AzKeyVaultSecret -VaultName kv-prod -Name sql-admin).SecretValue\nWrite-Host \"Run " + g.t3UUID() + " done\"")}, "code"
		},
		func() ([]seg, string) {
			return []seg{p("See https://console.cloud.google.com/security/command-center/findings?project=acme-prod-" + g.digits(6) + " and " + g.t3Negative() + ".")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("Totals: " + g.digits(4) + " events, " + g.digits(3) + " hosts, ports 22, 443, 3389; window " + g.t3Time() + " – " + g.t3Time() + "; ratio 0.9731.")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("The key is stored in AWS Secrets Manager (" + "arn:aws:secretsmanager:ap-northeast-1:" + g.t3Account() + ":secret:prod/db-" + g.str(csAlnum, 6) + "); no plaintext in the repo.")}, "sentence"
		},
		func() ([]seg, string) {
			return []seg{p("Pod " + g.pick("api", "worker") + "-" + g.str(csLowAN, 10) + "-" + g.str(csLowAN, 5) + " in namespace prod restarted; node ip-10-0-12-34.ec2.internal; image tag " + g.pick("v1.4.2", "2026.11.20") + ".")}, "log"
		},
	}
	for i := 0; i < 64; i++ {
		segs, shape := negTemplates[i%len(negTemplates)]()
		g.add(src+"negative", "negative", shape, segs...)
	}
}
