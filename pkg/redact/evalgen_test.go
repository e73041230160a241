package redact

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// The generated evaluation set: cases written per category from the
// category's definition (vendor prefix conventions of public detector lists,
// key-name vocabularies, connection-URL schemes, alert layouts and the
// strings analysts need kept), never from the development corpus. It is
// written deterministically by
//
//	go test ./pkg/redact -run TestGenerateEvalSet -evalset.update
//
// and scored by TestEvalSet and, outside the tests, by the shared scorer:
//
//	go run . -corpus <repo>/pkg/redact/testdata/evalset.jsonl -cmd 'alertchat redact --jsonl'
const evalSetPath = "testdata/evalset.jsonl"

var updateEvalSet = flag.Bool("evalset.update", false, "rewrite "+evalSetPath)

// seg is a piece of generated text; typ is the gold type of the piece ("" for
// plain text).
type seg struct{ text, typ string }

type evalItem struct {
	id, source, kind, lang, shape string
	segs                          []seg
}

type evalGen struct {
	r     *rand.Rand
	items []evalItem
	n     map[string]int
}

const (
	csAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	csLowAN  = "abcdefghijklmnopqrstuvwxyz0123456789"
	csUpAN   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	csHexL   = "0123456789abcdef"
	csB64    = csAlnum + "+/"
	csURL    = csAlnum + "_-"
	csBase32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func (g *evalGen) str(cs string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = cs[g.r.IntN(len(cs))]
		}
		s := string(b)
		// generated tokens look like real ones: mixed when the set allows it
		if n < 8 || !strings.ContainsAny(cs, "0123456789") || !hasLetter(cs) || (strings.ContainsAny(s, "0123456789") && hasLetter(s)) {
			return s
		}
	}
}

func (g *evalGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *evalGen) add(source, kind, shape string, segs ...seg) {
	if g.n == nil {
		g.n = map[string]int{}
	}
	cat := source[strings.LastIndexByte(source, ':')+1:]
	g.n[cat]++
	lang := "en"
	for _, s := range segs {
		if strings.ContainsFunc(s.text, func(r rune) bool { return r >= 0x3000 }) {
			lang = "ja"
		}
	}
	g.items = append(g.items, evalItem{id: fmt.Sprintf("gen-%s-%04d", cat, g.n[cat]), source: source, kind: kind,
		lang: lang, shape: shape, segs: segs})
}

func p(s string) seg    { return seg{text: s} }
func v(t, s string) seg { return seg{text: s, typ: t} }
func jsonEsc(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// escSegs JSON-escapes every piece (the text as it reads inside a JSON string).
func escSegs(segs []seg) []seg {
	out := make([]seg, len(segs))
	for i, s := range segs {
		out[i] = seg{text: jsonEsc(s.text), typ: s.typ}
	}
	return out
}

func cat(parts ...[]seg) []seg {
	var out []seg
	for _, x := range parts {
		out = append(out, x...)
	}
	return out
}

// vendorDef is a token format: a literal prefix and a random body, written
// from the public descriptions of the format (gitleaks rules, trufflehog
// detectors, vendor documentation).
type vendorDef struct {
	name, prefix, cs string
	n                int
	typ, suffix      string
}

var evalVendors = []vendorDef{
	// infrastructure as code and cloud platforms
	{"terraform-cloud", "", csAlnum, 14, "API_KEY", ".atlasv1."},
	{"pulumi", "pul-", csHexL, 40, "API_KEY", ""},
	{"doppler-service", "dp.st.", csAlnum, 43, "API_KEY", ""},
	{"doppler-cli", "dp.ct.", csAlnum, 43, "API_KEY", ""},
	{"doppler-scim", "dp.scim.", csAlnum, 43, "API_KEY", ""},
	{"vault-service", "hvs.", csURL, 95, "API_KEY", ""},
	{"vault-batch", "hvb.", csURL, 140, "API_KEY", ""},
	{"vault-recovery", "hvr.", csURL, 90, "API_KEY", ""},
	{"digitalocean", "dop_v1_", csHexL, 64, "API_KEY", ""},
	{"scalingo", "tk-us-", csURL, 48, "API_KEY", ""},
	{"flyio", "fo1_", csURL, 43, "API_KEY", ""},
	{"supabase", "sbp_", csHexL, 40, "API_KEY", ""},
	{"render", "rnd_", csAlnum, 32, "API_KEY", ""},
	{"netlify", "nfp_", csAlnum, 36, "API_KEY", ""},
	{"tencent", "AKID", csAlnum, 32, "API_KEY", ""},
	{"alibaba", "LTAI", csAlnum, 20, "API_KEY", ""},
	{"scaleway", "SCW", csUpAN, 17, "API_KEY", ""},
	{"databricks", "dapi", csHexL, 32, "API_KEY", ""},
	{"planetscale", "pscale_tkn_", csURL, 43, "API_KEY", ""},
	{"planetscale-pw", "pscale_pw_", csURL, 43, "SECRET", ""},
	{"buildkite", "bkua_", csHexL, 40, "API_KEY", ""},
	{"circleci", "CCIPAT_", csAlnum, 22, "API_KEY", ""},
	{"gitlab-pat", "glpat-", csURL, 20, "API_KEY", ""},
	{"github-fine", "github_pat_", csAlnum + "_", 82, "API_KEY", ""},
	{"github-app", "ghs_", csAlnum, 36, "API_KEY", ""},
	{"npm", "npm_", csAlnum, 36, "API_KEY", ""},
	{"pypi", "pypi-AgEIcHlwaS5vcmc", csURL, 70, "API_KEY", ""},
	{"rubygems", "rubygems_", csHexL, 48, "API_KEY", ""},
	{"docker", "dckr_pat_", csURL, 27, "API_KEY", ""},
	{"jfrog", "AKCp", csAlnum, 69, "API_KEY", ""},
	{"grafana-sa", "glsa_", csAlnum, 32, "API_KEY", "_" + "0a1b2c3d"},
	{"newrelic", "NRAK-", csUpAN, 27, "API_KEY", ""},
	{"dynatrace", "dt0c01.", csUpAN, 24, "API_KEY", ".ABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
	{"sentry-user", "sntryu_", csHexL, 64, "API_KEY", ""},
	// code quality and developer services
	{"sonarqube-user", "squ_", csHexL, 40, "API_KEY", ""},
	{"sonarqube-project", "sqp_", csHexL, 40, "API_KEY", ""},
	{"sourcegraph", "sgp_", csHexL, 40, "API_KEY", ""},
	{"postman", "PMAK-", csHexL, 24, "API_KEY", "-" + "0123456789abcdef0123456789abcdef01"},
	{"linear", "lin_api_", csAlnum, 40, "API_KEY", ""},
	{"figma", "figd_", csURL, 40, "API_KEY", ""},
	{"notion", "ntn_", csAlnum, 46, "API_KEY", ""},
	{"readme", "rdme_", csLowAN, 70, "API_KEY", ""},
	{"prefect", "pnu_", csAlnum, 36, "API_KEY", ""},
	{"atlassian", "ATATT3", csURL, 180, "API_KEY", ""},
	{"airtable-pat", "pat", csAlnum, 14, "API_KEY", "." + strings.Repeat("0a1b2c3d4e5f6789", 4)},
	{"apify", "apify_api_", csAlnum, 36, "API_KEY", ""},
	{"adafruit", "aio_", csAlnum, 28, "API_KEY", ""},
	// payment
	{"stripe-secret", "sk_live_", csAlnum, 24, "API_KEY", ""},
	{"stripe-restricted", "rk_live_", csAlnum, 24, "API_KEY", ""},
	{"stripe-test", "sk_test_", csAlnum, 24, "API_KEY", ""},
	{"stripe-webhook", "whsec_", csAlnum, 32, "SECRET", ""},
	{"square", "EAAA", csURL, 60, "API_KEY", ""},
	{"square-oauth", "sq0csp-", csURL, 43, "SECRET", ""},
	{"razorpay", "rzp_live_", csAlnum, 14, "API_KEY", ""},
	{"razorpay-test", "rzp_test_", csAlnum, 14, "API_KEY", ""},
	{"flutterwave", "FLWSECK-", csHexL, 32, "SECRET", "-X"},
	{"shopify", "shpat_", csHexL, 32, "API_KEY", ""},
	{"shippo", "shippo_live_", csHexL, 40, "API_KEY", ""},
	{"duffel", "duffel_live_", csURL, 43, "API_KEY", ""},
	{"easypost", "EZAK", csAlnum, 54, "API_KEY", ""},
	{"plaid", "access-production-", csHexL, 8, "API_KEY", "-0a1b-2c3d-4e5f-0a1b2c3d4e5f"},
	{"braintree", "access_token$production$", csLowAN, 16, "API_KEY", "$0a1b2c3d4e5f67890a1b2c3d4e5f6789"},
	// feature flags and messaging
	{"launchdarkly-api", "api-", csHexL, 8, "API_KEY", "-0a1b-2c3d-4e5f-0a1b2c3d4e5f"},
	{"launchdarkly-sdk", "sdk-", csHexL, 8, "API_KEY", "-1a2b-3c4d-5e6f-1a2b3c4d5e6f"},
	{"statsig", "secret-", csAlnum, 43, "SECRET", ""},
	{"sendgrid", "SG.", csURL, 22, "API_KEY", "." + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG"},
	{"sendinblue", "xkeysib-", csHexL, 64, "API_KEY", "-AbCdEfGh12345678"},
	{"mailgun", "key-", csHexL, 32, "API_KEY", ""},
	{"slack-bot", "xoxb-", "0123456789", 12, "API_KEY", "-4567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
	{"telegram", "", "0123456789", 10, "API_KEY", ":AAE" + "h7Lk2Q9xYz0AbCdEfGhIjKlMnOpQrStU"},
	{"twilio", "SK", csHexL, 32, "API_KEY", ""},
	// AI vendors
	{"openai-proj", "sk-proj-", csURL, 80, "API_KEY", ""},
	{"anthropic", "sk-ant-api03-", csURL, 93, "API_KEY", "AA"},
	{"groq", "gsk_", csAlnum, 52, "API_KEY", ""},
	{"huggingface", "hf_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34, "API_KEY", ""},
	{"perplexity", "pplx-", csAlnum, 48, "API_KEY", ""},
	{"replicate", "r8_", csAlnum, 37, "API_KEY", ""},
	{"langsmith", "lsv2_pt_", csHexL, 32, "API_KEY", "_0a1b2c3d4e"},
	// clouds
	{"gcp-api", "AIza", csURL, 35, "API_KEY", ""},
	{"gcp-oauth-secret", "GOCSPX-", csURL, 28, "SECRET", ""},
	{"azure-client-secret", "", csAlnum, 3, "SECRET", "8Q~" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456"},
	{"age", "AGE-SECRET-KEY-1", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, "SECRET", ""},
}

func (g *evalGen) vendorToken(d vendorDef) string {
	tok := d.prefix + g.str(d.cs, d.n) + d.suffix
	if d.name == "terraform-cloud" {
		tok += g.str(csURL, 64)
	}
	return tok
}

func (g *evalGen) awsKeyID() string {
	return g.pick("AKIA", "ASIA") + g.str(csBase32, 16)
}

func (g *evalGen) awsSecret() string {
	for {
		s := g.str(csB64, 40)
		if mixedClasses(s, 3) && s[0] != '/' && s[39] != '/' && !strings.Contains(s, "//") {
			return s
		}
	}
}

var passwordWords = []string{"Summer", "Tiger", "Orange", "Hunter", "Dragon", "Monkey", "Falcon", "Winter", "Rocket",
	"Coffee", "Maple", "Silver", "Purple", "Thunder", "Galaxy"}

func (g *evalGen) password() string {
	switch g.r.IntN(3) {
	case 0:
		return g.pick(passwordWords...) + fmt.Sprint(g.r.IntN(9000)+100) + g.pick("!", "#", "$", "%", "&", "*", "?")
	case 1:
		return g.str(csAlnum+"!#%&*+=?^~", 12+g.r.IntN(10))
	default:
		return strings.ToLower(g.pick(passwordWords...)) + g.pick(".", "_", "-") + g.pick(passwordWords...) + fmt.Sprint(g.r.IntN(99))
	}
}

func (g *evalGen) ipv4() string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254))
	case 1:
		return fmt.Sprintf("192.168.%d.%d", g.r.IntN(256), 1+g.r.IntN(254))
	}
	return fmt.Sprintf("%d.%d.%d.%d", 11+g.r.IntN(180), g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254))
}

func (g *evalGen) ipv6() string {
	return fmt.Sprintf("2001:db8:%x:%x::%x", g.r.IntN(0xffff), g.r.IntN(0xffff), 1+g.r.IntN(0xfff))
}

func (g *evalGen) email() string {
	return g.pick("alice", "j.smith", "ops-team", "taro.yamada", "m.garcia+alerts", "svc_deploy") + "@" +
		g.pick("example.com", "corp.example.org", "mail.example.jp", "contoso.net")
}

func (g *evalGen) luhnCard() string {
	prefix := g.pick("4", "51", "55", "37", "6011")
	n := 16
	if prefix == "37" {
		n = 15
	}
	b := []byte(prefix)
	for len(b) < n-1 {
		b = append(b, byte('0'+g.r.IntN(10)))
	}
	sum := 0
	dbl := true
	for i := len(b) - 1; i >= 0; i-- {
		d := int(b[i] - '0')
		if dbl {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		dbl = !dbl
	}
	b = append(b, byte('0'+(10-sum%10)%10))
	s := string(b)
	switch g.r.IntN(3) {
	case 1:
		if n == 16 {
			return s[0:4] + "-" + s[4:8] + "-" + s[8:12] + "-" + s[12:]
		}
	case 2:
		if n == 16 {
			return s[0:4] + " " + s[4:8] + " " + s[8:12] + " " + s[12:]
		}
	}
	return s
}

func (g *evalGen) ssn() string {
	sep := g.pick("-", " ", ".")
	return fmt.Sprintf("%03d%s%02d%s%04d", 1+g.r.IntN(665), sep, 1+g.r.IntN(98), sep, 1+g.r.IntN(9998))
}

func (g *evalGen) phone() string {
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("(%03d) %03d-%04d", 201+g.r.IntN(700), 200+g.r.IntN(700), g.r.IntN(10000))
	case 1:
		return fmt.Sprintf("+1-%03d-%03d-%04d", 201+g.r.IntN(700), 200+g.r.IntN(700), g.r.IntN(10000))
	case 2:
		return fmt.Sprintf("090-%04d-%04d", g.r.IntN(10000), g.r.IntN(10000))
	}
	return fmt.Sprintf("+44 20 %04d %04d", g.r.IntN(10000), g.r.IntN(10000))
}

// guardDutyTypes are finding types from the public GuardDuty documentation:
// evidence that has to survive.
var guardDutyTypes = []string{
	"Backdoor:EC2/C&CActivity.B!DNS", "Backdoor:EC2/DenialOfService.Tcp", "Backdoor:EC2/Spambot",
	"Behavior:EC2/NetworkPortUnusual", "CryptoCurrency:EC2/BitcoinTool.B!DNS", "DefenseEvasion:EC2/UnusualDoHActivity",
	"Impact:EC2/PortSweep", "Impact:EC2/WinRMBruteForce", "Recon:EC2/PortProbeUnprotectedPort", "Recon:EC2/Portscan",
	"Trojan:EC2/BlackholeTraffic", "Trojan:EC2/DGADomainRequest.C!DNS", "Trojan:EC2/DNSDataExfiltration",
	"Trojan:EC2/DropPoint", "Trojan:EC2/DropPoint!DNS", "Trojan:EC2/PhishingDomainRequest!DNS",
	"UnauthorizedAccess:EC2/MetadataDNSRebind", "UnauthorizedAccess:EC2/RDPBruteForce",
	"UnauthorizedAccess:EC2/SSHBruteForce", "UnauthorizedAccess:EC2/TorClient",
	"CredentialAccess:IAMUser/AnomalousBehavior", "DefenseEvasion:IAMUser/AnomalousBehavior",
	"Discovery:IAMUser/AnomalousBehavior", "Exfiltration:IAMUser/AnomalousBehavior", "PenTest:IAMUser/KaliLinux",
	"Persistence:IAMUser/AnomalousBehavior", "Policy:IAMUser/RootCredentialUsage",
	"PrivilegeEscalation:IAMUser/AnomalousBehavior", "Recon:IAMUser/MaliciousIPCaller.Custom",
	"Stealth:IAMUser/CloudTrailLoggingDisabled", "Stealth:IAMUser/PasswordPolicyChange",
	"UnauthorizedAccess:IAMUser/ConsoleLoginSuccess.B",
	"UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.InsideAWS",
	"UnauthorizedAccess:IAMUser/InstanceCredentialExfiltration.OutsideAWS",
	"UnauthorizedAccess:IAMUser/MaliciousIPCaller", "UnauthorizedAccess:IAMUser/TorIPCaller",
	"Discovery:S3/MaliciousIPCaller", "Impact:S3/AnomalousBehavior.Delete", "Policy:S3/BucketPublicAccessGranted",
	"Stealth:S3/ServerAccessLoggingDisabled", "CredentialAccess:Kubernetes/MaliciousIPCaller",
	"CredentialAccess:Kubernetes/SuccessfulAnonymousAccess", "Execution:Kubernetes/ExecInKubeSystemPod",
	"Policy:Kubernetes/AdminAccessToDefaultServiceAccount", "PrivilegeEscalation:Kubernetes/PrivilegedContainer",
	"CredentialAccess:RDS/AnomalousBehavior.SuccessfulLogin", "CredentialAccess:RDS/MaliciousIPCaller.FailedLogin",
	"Execution:Runtime/ReverseShell", "PrivilegeEscalation:Runtime/DockerSocketAccessed",
	"Backdoor:Runtime/C&CActivity.B!DNS", "Execution:EC2/MaliciousFile", "Object:S3/MaliciousFile",
	"AttackSequence:IAM/CompromisedCredentials", "AttackSequence:S3/CompromisedData",
}

// keepValues are strings from alerts that analysts need: never redacted.
func (g *evalGen) keepValue() (key, val string) {
	switch g.r.IntN(12) {
	case 0:
		return "findingType", g.pick(guardDutyTypes...)
	case 1:
		return "type", g.pick(guardDutyTypes...)
	case 2:
		return "secretId", fmt.Sprintf("arn:aws:secretsmanager:us-east-1:%012d:secret:prod/db-%s", g.r.Int64N(1e12), g.str(csAlnum, 6))
	case 3:
		return "eventName", g.pick("GetSecretValue", "CreateAccessKey", "GetSessionToken", "UpdateLoginProfile", "PutSecretValue", "ListAccessKeys")
	case 4:
		return "eventSource", g.pick("secretsmanager.amazonaws.com", "sts.amazonaws.com", "iam.amazonaws.com", "kms.amazonaws.com")
	case 5:
		return "tokenType", g.pick("Bearer", "refresh_token", "id_token")
	case 6:
		return "kmsKeyId", fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.IntN(65536), g.r.IntN(65536), g.r.IntN(65536), g.r.Int64N(1<<48))
	case 7:
		return "sha256", g.str(csHexL, 64)
	case 8:
		return "passwordLastUsed", "2024-03-1" + fmt.Sprint(g.r.IntN(10)) + "T08:15:42Z"
	case 9:
		return "credentialType", g.pick("AssumedRole", "IAMUser", "Root", "FederatedUser")
	case 10:
		return "userAgent", "aws-cli/2.15." + fmt.Sprint(g.r.IntN(40)) + " Python/3.11.6 Linux/5.10 botocore/2.4.5"
	}
	return "instanceId", "i-0" + g.str(csHexL, 16)
}

// alert wraps the given field into a GuardDuty-like finding.
func (g *evalGen) alert(field []seg) []seg {
	k, val := g.keepValue()
	head := fmt.Sprintf(`{"schemaVersion":"2.0","accountId":"%012d","region":"%s","type":"%s","severity":%d,"%s":"%s",`,
		g.r.Int64N(1e12), g.pick("us-east-1", "ap-northeast-1", "eu-west-1"), g.pick(guardDutyTypes...), 2+g.r.IntN(7), k, jsonEsc(val))
	tail := fmt.Sprintf(`,"updatedAt":"2024-05-%02dT%02d:11:53.438Z"}`, 1+g.r.IntN(28), g.r.IntN(24))
	return cat([]seg{p(head)}, field, []seg{p(tail)})
}

// field renders "key":"value" with the value's segments JSON-escaped.
func field(key string, val []seg) []seg {
	return cat([]seg{p(`"` + key + `":"`)}, escSegs(val), []seg{p(`"`)})
}

// shapeWrap places a record's payload (already an alert JSON or a text) into
// one of the shapes: raw, escaped once inside a tool result, escaped twice.
func (g *evalGen) toolResult(inner []seg, times int) []seg {
	for i := 0; i < times; i++ {
		inner = cat([]seg{p(`{"role":"tool","name":"` + g.pick("get_alert", "run_command", "read_file") + `","content":"`)}, escSegs(inner), []seg{p(`"}`)})
	}
	return inner
}

type keyDef struct{ key, typ string }

var secretKeys = []keyDef{
	{"password", "SECRET"}, {"Password", "SECRET"}, {"db_password", "SECRET"}, {"DB_PASS", "SECRET"},
	{"passwd", "SECRET"}, {"adminPassword", "SECRET"}, {"client_secret", "SECRET"}, {"clientSecret", "SECRET"},
	{"secret_key", "SECRET"}, {"SecretAccessKey", "SECRET"}, {"smtp_password", "SECRET"}, {"masterUserPassword", "SECRET"},
	{"api_key", "API_KEY"}, {"apiKey", "API_KEY"}, {"x-api-key", "API_KEY"}, {"access_token", "API_KEY"},
	{"auth_token", "API_KEY"}, {"token", "API_KEY"}, {"sessionToken", "API_KEY"}, {"SLACK_BOT_TOKEN", "API_KEY"},
	{"datadog_api_key", "API_KEY"}, {"codecov_token", "API_KEY"}, {"SNYK_TOKEN", "API_KEY"}, {"sonar.login", "API_KEY"},
}

func (g *evalGen) valueFor(k keyDef) string {
	if k.typ == "SECRET" {
		if strings.Contains(strings.ToLower(k.key), "secretaccesskey") {
			return g.awsSecret()
		}
		if strings.Contains(strings.ToLower(k.key), "client") {
			return g.str(csURL, 32+g.r.IntN(16))
		}
		return g.password()
	}
	switch g.r.IntN(3) {
	case 0:
		return g.str(csHexL, 32+8*g.r.IntN(2))
	case 1:
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.IntN(65536), g.r.IntN(65536), g.r.IntN(65536), g.r.Int64N(1<<48))
	}
	return g.str(csAlnum, 24+g.r.IntN(20))
}

var urlSchemes = []string{"postgres", "postgresql", "mysql", "amqp", "amqps", "redis", "rediss", "mongodb", "mongodb+srv",
	"ftp", "sftp", "smtp", "smtps", "ldap", "ldaps", "mssql", "nats", "kafka", "clickhouse", "neo4j+s", "couchdb",
	"cockroachdb", "memcached", "https", "ssh", "git+https", "jdbc:postgresql", "jdbc:mysql", "sqlserver"}

func (g *evalGen) build() {
	sentences := []string{"We found %s in the deploy log; rotate it.", "The leaked value was %s according to the scanner.",
		"Please check whether %s is still active.", "ログに %s が残っていました。", "Customer pasted %s into the ticket."}
	sentence := func(val []seg) []seg {
		t := g.pick(sentences...)
		i := strings.Index(t, "%s")
		return cat([]seg{p(t[:i])}, val, []seg{p(t[i+2:])})
	}

	// vendor-prefixed tokens in every shape
	for _, d := range evalVendors {
		for k := 0; k < 3; k++ {
			tok := v(d.typ, g.vendorToken(d))
			src := "generated:vendor-" + d.name
			switch k {
			case 0:
				g.add(src, "positive", "sentence", sentence([]seg{tok})...)
			case 1:
				g.add(src, "positive", "alert_json", g.alert(field("evidence", []seg{p("token found in build output: "), tok}))...)
			default:
				g.add(src, "positive", "code_json_escaped", g.toolResult([]seg{p(strings.ToUpper(strings.ReplaceAll(d.name, "-", "_")) + "_CREDENTIAL=\""), tok, p("\"\n")}, 1+g.r.IntN(2))...)
			}
		}
	}

	// cloud access key IDs in alert JSON
	for k := 0; k < 30; k++ {
		id := v("API_KEY", g.awsKeyID())
		body := cat([]seg{p(`"resource":{"accessKeyDetails":{`)}, field(g.pick("accessKeyId", "AccessKeyId", "access_key_id"), []seg{id}),
			[]seg{p(`,"principalId":"AIDA` + g.str(csUpAN, 17) + `","userName":"` + g.pick("deploy", "ci-runner", "alice") + `"}}`)})
		switch k % 3 {
		case 0:
			g.add("generated:aws-access-key-id", "positive", "alert_json", g.alert(body)...)
		default:
			g.add("generated:aws-access-key-id", "positive", "code_json_escaped", g.toolResult(g.alert(body), k%3)...)
		}
	}

	// key-value secrets in JSON raw, escaped once and twice, and in code
	for k := 0; k < 90; k++ {
		kd := secretKeys[k%len(secretKeys)]
		val := v(kd.typ, g.valueFor(kd))
		switch k % 5 {
		case 0:
			g.add("generated:json-key-"+strings.ToLower(kd.typ), "positive", "alert_json", g.alert(cat([]seg{p(`"config":{`)}, field(kd.key, []seg{val}), []seg{p(`}`)}))...)
		case 1, 2:
			inner := cat([]seg{p("{")}, field(kd.key, []seg{val}), []seg{p(`, "user": "` + g.pick("bob", "svc", "admin") + `"}`)})
			g.add("generated:json-key-"+strings.ToLower(kd.typ), "positive", "code_json_escaped", g.toolResult(inner, 1+k%2)...)
		case 3:
			g.add("generated:json-key-"+strings.ToLower(kd.typ), "positive", "code", p(kd.key+": "), val, p("\n"+g.pick("user", "host", "region")+": "+g.pick("bob", "db.internal", "us-east-1")+"\n"))
		default:
			inner := []seg{p("config:\n  " + kd.key + ": "), val, p("\n  timeout: 30\n")}
			g.add("generated:json-key-"+strings.ToLower(kd.typ), "positive", "code_json_escaped", g.toolResult(inner, 1)...)
		}
	}

	// connection URLs of every scheme
	for k, sch := range urlSchemes {
		for j := 0; j < 2; j++ {
			pw := g.password()
			pw = strings.NewReplacer("@", "", "/", "", "?", "", "#", "", "%", "", ":", "").Replace(pw)
			if len(pw) < 6 {
				pw += "x9Q2"
			}
			host := g.pick("db.internal", "10.0.3.7", "mq.prod.example.net", "cluster0.ab1cd.mongodb.net")
			url := []seg{p(sch + "://" + g.pick("admin", "app_user", "guest", "svc") + ":"), v("SECRET", pw), p("@" + host + ":" + fmt.Sprint(1000+g.r.IntN(9000)) + "/" + g.pick("app", "orders", "0", "vhost"))}
			if strings.Contains(host, "10.0.3.7") {
				url[2] = p("@")
				url = append(url, v("IP", "10.0.3.7"), p(":5432/app"))
			}
			switch (k + j) % 3 {
			case 0:
				g.add("generated:connection-url", "positive", "sentence", sentence(url)...)
			case 1:
				g.add("generated:connection-url", "positive", "alert_json", g.alert(field("commandLine", cat([]seg{p("/usr/bin/app --db ")}, url)))...)
			default:
				g.add("generated:connection-url", "positive", "code_json_escaped", g.toolResult(cat([]seg{p("DATABASE_URL=")}, url, []seg{p("\n")}), 1+g.r.IntN(2))...)
			}
		}
	}

	// config-line values end at the value, not at the end of the line
	for k := 0; k < 20; k++ {
		pw := g.password()
		pw = strings.ReplaceAll(pw, " ", "")
		tail := g.pick(" then more words here", " and it was rotated yesterday", " (see ticket 4411)", " which the user reused elsewhere")
		key := g.pick("password", "Password", "passwd", "pwd")
		switch k % 2 {
		case 0:
			g.add("generated:value-extent", "positive", "sentence", p(key+": "), v("SECRET", pw), p(tail))
		default:
			g.add("generated:value-extent", "positive", "code_json_escaped", g.toolResult([]seg{p("note:\n" + key + ": "), v("SECRET", pw), p(tail + "\n")}, 1)...)
		}
	}

	// personal data inside alerts
	for k := 0; k < 40; k++ {
		var val seg
		key := ""
		switch k % 6 {
		case 0:
			val, key = v("EMAIL", g.email()), "userEmail"
		case 1:
			val, key = v("PHONE", g.phone()), "contactPhone"
		case 2:
			val, key = v("CC", g.luhnCard()), "cardNumber"
		case 3:
			val, key = v("SSN", g.ssn()), "ssn"
		case 4:
			val, key = v("IP", g.ipv4()), "ipAddressV4"
		default:
			val, key = v("IP", g.ipv6()), "ipAddressV6"
		}
		switch k % 3 {
		case 0:
			g.add("generated:pii-alert", "positive", "alert_json", g.alert(field(key, []seg{val}))...)
		case 1:
			g.add("generated:pii-alert", "positive", "code_json_escaped", g.toolResult(g.alert(field(key, []seg{val})), 1+g.r.IntN(2))...)
		default:
			g.add("generated:pii-alert", "positive", "sentence", sentence([]seg{val})...)
		}
	}

	// negatives: alerts and notes that must come through untouched
	for k := 0; k < 80; k++ {
		key, val := g.keepValue()
		switch k % 4 {
		case 0:
			g.add("generated:keep", "negative", "alert_json", g.alert(field(key, []seg{p(val)}))...)
		case 1:
			g.add("generated:keep", "negative", "code_json_escaped", g.toolResult(g.alert(field(key, []seg{p(val)})), 1+g.r.IntN(2))...)
		case 2:
			g.add("generated:keep", "negative", "sentence", p("GuardDuty raised "+g.pick(guardDutyTypes...)+" for "+key+" "+val+"; severity high."))
		default:
			g.add("generated:keep", "negative", "code", p(g.pick(guardDutyTypes...)+"\n"+key+": "+val+"\n"))
		}
	}
	for _, t := range guardDutyTypes {
		g.add("generated:finding-type", "negative", "sentence", p("Finding "+t+" was raised twice today."))
	}
	refs := []string{"password: ${DB_PASSWORD}", "api_key = os.environ[\"API_KEY\"]", "token: <your-token-here>",
		"secret = get_secret(\"prod/db\")", "\"password\": \"********\"", "client_secret: {{ .Values.clientSecret }}",
		"password_policy: strict", "password_min_length: 14", "token_expiry: 3600", "AWS_SECRET_ACCESS_KEY=$(vault read -field=key aws/creds)"}
	for _, r := range refs {
		g.add("generated:reference", "negative", "code", p(r+"\n"))
		g.add("generated:reference", "negative", "code_json_escaped", g.toolResult([]seg{p(r + "\n")}, 1)...)
	}
}

// buildFresh writes a second set with templates written after the rules
// (configuration files, shell, cloud audit events, chat messages), scored
// once to estimate generalisation rather than tuned to.
func (g *evalGen) buildFresh() {
	an := func(n int) string { return g.str(csAlnum, n) }
	type tmpl struct {
		shape, pre, post, typ string
		val                   func() string
	}
	pw := g.password
	tok := func() string { return an(32) }
	vendAPI := func() string {
		for {
			if d := evalVendors[g.r.IntN(len(evalVendors))]; d.typ == "API_KEY" {
				return g.vendorToken(d)
			}
		}
	}
	ts := []tmpl{
		{"code", "apiVersion: v1\nkind: Secret\nstringData:\n  password: ", "\n", "SECRET", pw},
		{"code", "export DB_PASSWORD='", "'\nexport DB_USER=app\n", "SECRET", pw},
		{"code", "resource \"aws_db_instance\" \"main\" {\n  username = \"admin\"\n  password = \"", "\"\n}\n", "SECRET", pw},
		{"code", "docker run -e \"POSTGRES_PASSWORD=", "\" -d postgres:16", "SECRET", pw},
		{"code", "curl -s -H \"X-Api-Key: ", "\" https://api.example.com/v2/items", "API_KEY", tok},
		{"code", "curl -H 'Authorization: Bearer ", "' https://api.example.com/me", "API_KEY", tok},
		{"code", "$password = ConvertTo-SecureString \"", "\" -AsPlainText -Force", "SECRET", pw},
		{"code", "spring.datasource.password=", "\nspring.datasource.username=app\n", "SECRET", pw},
		{"code", "jdbc:sqlserver://db.example.net:1433;databaseName=app;user=sa;password=", ";encrypt=true", "SECRET", pw},
		{"code", "kubectl create secret generic db --from-literal=password=", " -n prod", "SECRET", pw},
		{"code", "SLACK_WEBHOOK_TOKEN=", "\n", "API_KEY", tok},
		{"sentence", "Here is the token I used yesterday: ", " (please rotate)", "API_KEY", vendAPI},
		{"sentence", "The vendor key ", " showed up in the public repo.", "API_KEY", vendAPI},
		{"alert_json", `{"eventName":"AssumeRole","responseElements":{"credentials":{"accessKeyId":"`, `","expiration":"Jun 1, 2024 1:00:00 AM"}}}`, "API_KEY", g.awsKeyID},
		{"alert_json", `{"eventName":"CreateAccessKey","responseElements":{"accessKey":{"userName":"ci","accessKeyId":"`, `","status":"Active"}}}`, "API_KEY", g.awsKeyID},
		{"alert_json", `{"detail":{"requestParameters":{"masterUserPassword":"`, `","dBInstanceIdentifier":"prod-db"}}}`, "SECRET", pw},
		{"alert_json", `{"process":{"commandLine":"mysql -h db-primary -u root -p`, ` -e 'show databases'"}}`, "SECRET", pw},
		{"code_json_escaped", `{"role":"tool","content":"{\"Environment\":{\"Variables\":{\"STRIPE_SECRET_KEY\":\"`, `\"}}}"}`, "API_KEY", func() string { return "sk_live_" + an(24) }},
		{"code_json_escaped", `{"role":"tool","content":"[{\"name\":\"REDIS_PASSWORD\",\"value\":\"`, `\"}]"}`, "SECRET", pw},
		{"code_json_escaped", `{"role":"tool","content":"connection: amqp://svc:`, `@mq.internal:5672/prod\n"}`, "SECRET", func() string { return strings.NewReplacer("@", "", "/", "", ":", "", "%", "").Replace(pw()) }},
	}
	for k := 0; k < 240; k++ {
		t := ts[k%len(ts)]
		g.add("fresh:"+strings.Fields(t.pre + " x")[0], "positive", t.shape, p(t.pre), v(t.typ, t.val()), p(t.post))
	}
	negs := []string{
		"Failed password for root from host bastion-2 port 22 ssh2",
		"Accepted publickey for deploy from host ci-runner port 50122 ssh2: RSA SHA256:zT3t0PqX9mQ2c",
		`{"eventName":"GetSecretValue","requestParameters":{"secretId":"prod/payments/stripe"},"readOnly":true}`,
		`{"eventName":"ConsoleLogin","additionalEventData":{"MFAUsed":"Yes"},"responseElements":{"ConsoleLogin":"Success"}}`,
		"Rotate the token every 90 days; the password policy requires 14 characters.",
		"token_endpoint_auth_method: client_secret_basic",
		"password_hash_algorithm: argon2id",
		`{"type":"Recon:EC2/PortProbeUnprotectedPort","service":{"count":12}}`,
		"SECRET_KEY_BASE is read from the vault at boot.",
		"api_key_header: X-Api-Key",
	}
	for _, ln := range negs {
		g.add("fresh:negative", "negative", "code", p(ln))
	}
	for k := 0; k < 20; k++ {
		g.add("fresh:pii", "positive", "sentence", p("Reach the on-call at "), v("PHONE", g.phone()), p(" or "), v("EMAIL", g.email()), p("; the host was "), v("IP", g.ipv4()), p("."))
	}
}

type evalRecord struct {
	ID     string       `json:"id"`
	Text   string       `json:"text"`
	Spans  []corpusSpan `json:"spans"`
	Source string       `json:"source"`
	Kind   string       `json:"kind"`
	Lang   string       `json:"lang"`
	Shape  string       `json:"shape"`
}

// renderEvalSet builds the generated set in the scorer's JSONL format.
func renderEvalSet(t *testing.T) []byte {
	g := &evalGen{r: rand.New(rand.NewPCG(20261123, 7))}
	g.build()
	return renderItems(t, g)
}

// renderFreshSet builds the second generated set (see buildFresh).
func renderFreshSet(t *testing.T) []byte {
	g := &evalGen{r: rand.New(rand.NewPCG(20261124, 11))}
	g.buildFresh()
	return renderItems(t, g)
}

func renderItems(t *testing.T, g *evalGen) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range g.items {
		var text strings.Builder
		rec := evalRecord{ID: it.id, Source: it.source, Kind: it.kind, Lang: it.lang, Shape: it.shape, Spans: []corpusSpan{}}
		for _, s := range it.segs {
			if s.typ != "" {
				// the shared scorer knows the policy's seven types; others
				// (MY_NUMBER) are "extra" there and scored by scoreExtra
				scope := "in"
				if _, ok := typeNum(Type(s.typ)); !ok || s.typ == string(MyNumber) {
					scope = "extra"
				}
				rec.Spans = append(rec.Spans, corpusSpan{Start: text.Len(), End: text.Len() + len(s.text), Type: s.typ, Scope: scope})
			}
			text.WriteString(s.text)
		}
		rec.Text = text.String()
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

const freshSetPath = "testdata/evalset-fresh.jsonl"

func TestGenerateEvalSet(t *testing.T) {
	for path, want := range map[string][]byte{evalSetPath: renderEvalSet(t), freshSetPath: renderFreshSet(t), thirdSetPath: renderThirdSet(t), fourthSetPath: renderFourthSet(t)} {
		checkGenerated(t, path, "the generator", want)
	}
}

// checkGenerated holds the file at path to want, what from writes, or rewrites it with
// -evalset.update.
func checkGenerated(t *testing.T, path, from string, want []byte) {
	t.Helper()
	if *updateEvalSet {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what %s writes; run with -evalset.update", path, from)
	}
}
