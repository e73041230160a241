package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The fourth generated set is written from the categories' definitions in
// the labelling policy and the redaction contract ("secrets as people write
// them", today's credential formats, Japanese personal data), before the
// rules it scores were tuned, and not from the development corpus: prose
// and chat-style passwords in English and Japanese, user / pass pairs,
// password options of command lines, connection strings and URLs of many
// schemes, vendor tokens in the layouts of the public rule sets (Gemini AQ.
// auth keys, Anthropic and OpenAI project, service-account and admin keys,
// GitLab tokens of every prefix, routable ones included, Slack), My Numbers
// with their check digit and Japanese phone numbers, and clean sentences
// about the same things.
const fourthSetPath = "testdata/evalset-fourth.jsonl"

func renderFourthSet(t *testing.T) []byte {
	g := &evalGen{r: rand.New(rand.NewPCG(20261127, 404))}
	g.buildFourth()
	return renderItems(t, g)
}

// tpl renders a template: "{name}" is replaced by vals[name], a gold span
// when the seg has a type.
func tpl(s string, vals map[string]seg) []seg {
	var out []seg
	for {
		a := strings.IndexByte(s, '{')
		if a < 0 {
			break
		}
		b := strings.IndexByte(s[a:], '}')
		x, ok := vals[s[a+1:a+b]]
		if b < 0 || !ok {
			out = append(out, p(s[:a+1]))
			s = s[a+1:]
			continue
		}
		if a > 0 {
			out = append(out, p(s[:a]))
		}
		out = append(out, x)
		s = s[a+b+1:]
	}
	if s != "" {
		out = append(out, p(s))
	}
	return out
}

// f4Password is a password as people pick them: a word with digits and a
// symbol, a season and a year, a random string, a dashed passphrase.
func (g *evalGen) f4Password(urlSafe bool) string {
	word := g.pick("Tr0mbone", "Falcon", "Maple", "Kestrel", "Winter", "Summer", "Orchid", "Zephyr", "Quartz", "Harbor")
	sym := g.pick("!", "#", "$", "%", "&", "*", "?", "@")
	if urlSafe {
		sym = g.pick("!", "*", "~", "_", "-")
	}
	switch g.r.IntN(5) {
	case 0:
		return word + g.digits(2+g.r.IntN(3)) + sym
	case 1:
		return g.pick("Spring", "Autumn", "Winter", "Summer") + g.pick("2025", "2026", "24", "26") + sym
	case 2:
		return g.str(csAlnum, 6) + sym + g.str(csAlnum, 4)
	case 3:
		return strings.ToLower(word) + "-" + g.pick("Otter", "Copper", "Lantern", "River") + "-" + g.digits(2)
	default:
		return g.pick("P", "Q", "X", "K") + g.str(csLowAN, 5) + sym + g.digits(3)
	}
}

func (g *evalGen) f4User() string {
	return g.pick("root", "admin", "svc_backup", "jdoe", "deploy", "postgres", "oracle", "sa", "ops-bot", "m.tanaka")
}

func (g *evalGen) f4Host() string {
	return g.pick("web02", "db-prod-1", "jump01", "files-03", "erp-db", "build7", "nas-tokyo", "vpn-gw")
}

// myNumber returns a valid Individual Number (check digit by the official
// rule), or with broken=true the same layout with a wrong last digit.
func (g *evalGen) myNumber(broken bool) string {
	d := []byte(g.digits(11) + "0")
	for c := byte('0'); c <= '9'; c++ {
		d[11] = c
		if validMyNumber(d) {
			break
		}
	}
	if broken {
		d[11] = '0' + (d[11]-'0'+1+byte(g.r.IntN(8)))%10
	}
	return string(d)
}

func group4(s, sep string) string { return s[:4] + sep + s[4:8] + sep + s[8:] }

func (g *evalGen) jpPhone() string {
	d := g.digits
	switch g.r.IntN(10) {
	case 0:
		return "090-" + d(4) + "-" + d(4)
	case 1:
		return "080 " + d(4) + " " + d(4)
	case 2:
		return "070" + d(8)
	case 3:
		return "03-" + d(4) + "-" + d(4)
	case 4:
		return "06(" + d(4) + ")" + d(4)
	case 5:
		return "045-" + d(3) + "-" + d(4)
	case 6:
		return "0120-" + d(3) + "-" + d(3)
	case 7:
		return "+81 90-" + d(4) + "-" + d(4)
	case 8:
		return "+81-3-" + d(4) + "-" + d(4)
	default:
		return fullwidth("090-" + d(4) + "-" + d(4))
	}
}

// f4Token returns a vendor token in the layout its rule sets and vendors
// document.
func (g *evalGen) f4Token() (name, tok string) {
	u := func(n int) string { return g.str(csURL, n) }
	an := func(n int) string { return g.str(csAlnum, n) }
	switch g.r.IntN(22) {
	case 0, 1:
		return "gemini auth key", "AQ.Ab" + u(48)
	case 2:
		return "google api key", "AIzaSy" + u(33)
	case 3:
		return "anthropic api key", "sk-ant-api03-" + u(93) + "AA"
	case 4:
		return "anthropic admin key", "sk-ant-admin01-" + u(93) + "AA"
	case 5:
		return "openai project key", "sk-proj-" + u(74) + "T3BlbkFJ" + u(74)
	case 6:
		return "openai service account key", "sk-svcacct-" + u(58) + "T3BlbkFJ" + u(58)
	case 7:
		return "openai admin key", "sk-admin-" + u(58) + "T3BlbkFJ" + u(58)
	case 8:
		return "gitlab pat", "glpat-" + u(20)
	case 9:
		return "gitlab pat routable", "glpat-" + an(27+g.r.IntN(20)) + "." + g.str(csLowAN, 9)
	case 10:
		return "gitlab runner routable", "glrt-t" + g.digits(1) + "_" + an(27) + "." + g.str(csLowAN, 9)
	case 11:
		return "gitlab deploy", "gldt-" + u(20)
	case 12:
		return "gitlab job", "glcbt-" + an(2) + "_" + u(20)
	case 13:
		return "gitlab trigger", "glptt-" + g.str(csHexL, 40)
	case 14:
		return "gitlab feed", "glft-" + u(20)
	case 15:
		return "gitlab incoming mail", "glimt-" + u(25)
	case 16:
		return "gitlab agent", "glagent-" + u(50)
	case 17:
		return "gitlab scim", "glsoat-" + u(20)
	case 18:
		return "gitlab oauth secret", "gloas-" + u(64)
	case 19:
		return "gitlab feature flag", "glffct-" + u(20)
	case 20:
		return "slack bot", "xoxb-" + g.digits(12) + "-" + g.digits(13) + "-" + an(24)
	default:
		return "slack app", "xapp-1-A" + g.str(csUpAN, 10) + "-" + g.digits(13) + "-" + g.str(csHexL, 64)
	}
}

func (g *evalGen) buildFourth() {
	const src = "fourth:"
	for i := 0; i < 60; i++ {
		pw := g.f4Password(false)
		vals := map[string]seg{"pw": v("SECRET", pw), "user": p(g.f4User()), "host": p(g.f4Host()),
			"phrase": v("SECRET", strings.ToLower(g.pick("red", "blue", "quiet", "amber"))+"-"+g.pick("Otter", "Falcon", "Lantern")+"-"+g.digits(2))}
		t := g.pick(
			"password {pw} for the db on {host}",
			"use password {pw} when the installer asks",
			"the admin password for {host} is {pw}",
			"the root password on {host} was {pw} until Monday",
			"passphrase \"{phrase}\" unlocks the key",
			"login as {user} / {pw}",
			"log in as {user} / {pw} and check the cron jobs",
			"creds: {user} / {pw}",
			"{host}のパスワードは{pw}です",
			"パスワード：{pw}",
			"初期パスワード「{pw}」を通知済み",
			"パスフレーズは {phrase} です",
			"net user {user} {pw} /add",
			"cmd.exe /c net user {user} {pw} /add /domain",
			"sshpass -p '{pw}' ssh {user}@{host}",
			"docker login -u {user} -p {pw} registry.example.com",
			"mysql -u {user} -p'{pw}' -h {host}",
			"redis-cli -a '{pw}' -h {host} ping",
			"curl -u {user}:{pw} https://{host}.example.com/api/v1/status",
			"{host}:5432:app:{user}:{pw}",
			"Server={host};Database=app;User Id={user};Password={pw};",
		)
		g.add(src+"secret-prose", "positive", "sentence", tpl(t, vals)...)
	}
	schemes := []string{"postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv", "redis", "rediss", "amqp",
		"amqps", "ftp", "sftp", "smtp", "smtps", "ldap", "ldaps", "https", "mssql", "sqlserver", "clickhouse", "nats", "git+https"}
	for _, sc := range schemes {
		vals := map[string]seg{"pw": v("SECRET", g.f4Password(true)), "user": p(g.f4User()), "host": p(g.f4Host())}
		t := g.pick("conn {s}://{user}:{pw}@{host}.internal:5432/app", `{"dsn":"{s}://{user}:{pw}@{host}.corp.example.com/db"}`,
			"接続先 {s}://{user}:{pw}@{host}.internal を使用")
		g.add(src+"secret-url", "positive", "code", tpl(strings.ReplaceAll(t, "{s}", sc), vals)...)
	}
	for i := 0; i < 70; i++ {
		name, tok := g.f4Token()
		vals := map[string]seg{"tok": v("API_KEY", tok)}
		t := g.pick("found {tok} in the build log", "export "+strings.ToUpper(strings.ReplaceAll(name, " ", "_"))+"={tok}",
			`{"level":"error","msg":"auth failed","key":"{tok}"}`, "ログに{tok}が残っていた", "the "+name+" {tok} was revoked")
		g.add(src+"api-key", "positive", "sentence", tpl(t, vals)...)
	}
	for i := 0; i < 30; i++ {
		n := g.myNumber(false)
		shown := g.pick(n, group4(n, " "), group4(n, "-"), fullwidth(group4(n, "-")))
		vals := map[string]seg{"n": v("MY_NUMBER", shown), "g": v("MY_NUMBER", group4(n, g.pick(" ", "-")))}
		t := g.pick("マイナンバー: {n}", "個人番号 {n} の照会", "マイナンバーは{n}です", "My Number {n} on the form",
			"申請書に {g} と記載", "individual number: {n}")
		g.add(src+"my-number", "positive", "sentence", tpl(t, vals)...)
	}
	for i := 0; i < 30; i++ {
		vals := map[string]seg{"ph": v("PHONE", g.jpPhone())}
		t := g.pick("電話 {ph}", "携帯は{ph}です", "連絡先：{ph}", "call {ph} after 18:00", "TEL {ph}", "代表番号 {ph}")
		g.add(src+"jp-phone", "positive", "sentence", tpl(t, vals)...)
	}
	// clean: about passwords, numbers and tokens, with none in them
	for i := 0; i < 60; i++ {
		vals := map[string]seg{"user": p(g.f4User()), "host": p(g.f4Host()), "acct": p(g.digits(12)),
			"bad": p(g.myNumber(true)), "hex": p(g.str(csHexL, 32))}
		t := g.pick(
			"password policy requires 12 characters",
			"the password must be rotated every 90 days on {host}",
			"password reset for user {user}",
			"the password hash {hex} was cracked offline",
			"password expired for {user} on {host}",
			"the password for the account is locked",
			"export DB_PASSWORD=${DB_PASSWORD}",
			"token ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx in the docs",
			"login as {user} / sudo was denied",
			"net user {user} /delete",
			"net user {user} * /add",
			"パスワードは必須です",
			"パスワードポリシーは12文字以上",
			"AWS account {acct} in us-east-1",
			"arn:aws:iam::{acct}:role/Admin",
			"マイナンバー {bad} は検査数字が合わない",
			"ticket {hex} closed",
			"cd /var/log / tmp on {host}",
			"the GEMINI_API_KEY variable is unset",
			"rotate the passphrase yearly",
		)
		g.add(src+"clean", "negative", "sentence", tpl(t, vals)...)
	}
}

func TestFourthSetTemplates(t *testing.T) {
	t.Parallel()
	got := tpl("a {x} b {y}", map[string]seg{"x": v("SECRET", "1"), "y": p("2")})
	if len(got) != 4 || got[1].typ != "SECRET" || got[3].text != "2" {
		t.Errorf("tpl = %#v", got)
	}
}

// scoreExtra scores one type that the records label as "extra" (a type the
// shared scorer does not know): recall over its spans, precision over the
// matches of that type.
func scoreExtra(t *testing.T, recs []corpusRecord, typ Type) (recall, precision float64) {
	t.Helper()
	n, _ := typeNum(typ)
	gold, found, regions, tp := 0, 0, 0, 0
	for _, r := range recs {
		sc := getScanner()
		ms := append([]match(nil), sc.find(r.Text)...)
		putScanner(sc)
		for _, g := range r.Spans {
			if g.Type != string(typ) {
				continue
			}
			gold++
			for _, m := range ms {
				if m.typ == n && m.start <= g.Start && m.end >= g.End {
					found++
					break
				}
			}
		}
		for _, m := range ms {
			if m.typ != n {
				continue
			}
			regions++
			ok := false
			for _, g := range r.Spans {
				if g.Type == string(typ) && m.start < g.End && g.Start < m.end {
					ok = true
				}
			}
			if ok {
				tp++
			} else {
				t.Logf("%s: false positive %s %q", r.ID, typ, r.Text[m.start:m.end])
			}
		}
	}
	recall = float64(found) / float64(max(gold, 1))
	precision = float64(tp) / float64(max(regions, 1))
	t.Logf("%s: recall %.3f (%d/%d), precision %.3f (%d/%d)", typ, recall, found, gold, precision, tp, regions)
	return recall, precision
}
