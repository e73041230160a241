package redact_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/redact"
)

var updateWalkGolden = flag.Bool("walkgolden.update", false, "rewrite testdata/walk/golden.jsonl from the current walk")

// walkGolden is one result of the golden corpus: the input, and what Map makes of it with
// plain placeholders, with keyed tokens, and with keyed tokens and evidence.
type walkGolden struct {
	Name   string                     `json:"name"`
	In     json.RawMessage            `json:"in"`
	Out    map[string]json.RawMessage `json:"out"`
	Counts map[string]redact.Counts   `json:"counts"`
}

// goldenEvidence is the alert of the evidence redactor: some of the corpus's addresses, and a
// secret it repeats.
const goldenEvidence = `{"src":"203.0.113.7","user":"alice@example.com","note":"password=Wint3r-Is-C0ming-42","peer":"2001:db8::7"}`

func goldenRedactors(t testing.TB) map[string]*redact.Redactor {
	keyed := keyedAll(t)
	return map[string]*redact.Redactor{"plain": plainAll, "tokens": keyed, "evidence": keyed.WithEvidence(goldenEvidence)}
}

// TestMapGolden holds Map to the output it gave before its fast paths (the quick shapes of
// detection, one scanner and token state per walk, the walk's token memo): the golden file
// was written by the walk without them, and every key, value and count must come out the
// same, byte for byte.
func TestMapGolden(t *testing.T) {
	path := filepath.Join("testdata", "walk", "golden.jsonl")
	rs := goldenRedactors(t)
	if *updateWalkGolden {
		var buf bytes.Buffer
		for _, g := range goldenCorpus() {
			g.Out, g.Counts = map[string]json.RawMessage{}, map[string]redact.Counts{}
			for name, r := range rs {
				out, counts := walkJSON(t, r, g.In)
				g.Out[name], g.Counts[name] = out, counts
			}
			line, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(append(line, '\n'))
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		var g walkGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		for name, r := range rs {
			out, counts := walkJSON(t, r, g.In)
			if !bytes.Equal(out, g.Out[name]) {
				t.Errorf("%s with %s:\n got %s\nwant %s", g.Name, name, out, g.Out[name])
			}
			if fmt.Sprint(counts) != fmt.Sprint(g.Counts[name]) {
				t.Errorf("%s with %s: counts %v, want %v", g.Name, name, counts, g.Counts[name])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("%d results in the golden corpus", n)
	}
}

// walkJSON decodes in, walks it with r, and encodes it (encoding/json sorts the keys).
func walkJSON(t testing.TB, r *redact.Redactor, in []byte) ([]byte, redact.Counts) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(in, &m); err != nil {
		t.Fatal(err)
	}
	counts := redact.Counts{}
	r.Map(m, counts)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out, counts
}

// goldenStrings are the texts the corpus is made of, keys and values alike: each quick shape
// and the texts just outside it, values of every type, and texts that hold several.
var goldenStrings = []string{
	// IPv4, and what is nearly one
	"203.0.113.7", "198.51.100.23", "10.0.0.1", "0.0.0.0", "255.255.255.255", "010.001.000.001", "1.2.3",
	"1.2.3.4.5", "256.1.1.1", "203.0.113.7:8080", "203.0.113.7/24", "v1.2.3.4", "２０３.０.１１３.７", "1.2.3.4 ",
	// IPv6
	"2001:db8::7", "2001:DB8:0:0:0:0:0:7", "::1", "fe80::1%eth0", "::ffff:192.0.2.1",
	// e-mail, and what is nearly one
	"alice@example.com", "Alice@Example.COM", "user1@mail2.example.org", "first.last@example.com",
	"a+tag@example.com", "bob@my-corp.example", "ops@example.c", "x@eyJhbGciOiJIUzI1.eyJzdWIiOiIx.io",
	"averyveryverylonglocal@example.com", "user@xn--bcher-kva.example", "user@1.2.3.4.example", "ＡＬＩＣＥ@example.com",
	"@example.com", "user@", "user@example.com.", "_svc@example.net", "SG@example.com",
	// timestamps, and what is nearly one
	"2025-11-26T10:04:05Z", "2025-11-26T10:04:05.123456789+09:00", "2025-11-26T10:04:05.1234567891Z",
	"2025-11-26T10:04:05-05:00", "2025-11-26T10:04:05", "2025-11-26 10:04:05", "2025-11-26", "2025-11-26T10:04Z",
	"9999-99-99T99:99:99Z", "2025-11-26T10:04:05.Z", "2025-11-26T10:04:05+0900", "4111-1111-11T11:11:11Z",
	// words, and what is nearly one
	"NL", "c2", "scanner", "ConsoleLogin", "ConsoleLogins", "first_seen", "_id", "AS64500", "AKIA", "password",
	"token", "api_key", "Bearer", "x", "us-east-1", "evt-000001", "AKIAIOSFODNN7EXAMPLE", "AKC1234567890",
	// secrets and personal data
	"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", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "password=hunter2hunter2",
	"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
	"4111 1111 1111 1111", "4111111111111111", "078-05-1123", "+1 415-555-0132", "(415) 555-0132", "090-1234-5678",
	"Wint3r-Is-C0ming-42", "https://user:s3cr3tP4ss@db.example.com/x",
	// texts that hold several, and placeholders already there
	"Host 10.0.12.34 resolved evil.example.net; owner alice@example.com was notified.",
	"送信元IP 203.0.113.7 から alice@example.com へ", "login from 198.51.100.23 by bob@my-corp.example at 2025-11-26T10:04:05Z",
	"[REDACTED_IP]", "[REDACTED_IP]#2", "[REDACTED_EMAIL] and 10.0.0.1", "",
}

// goldenCorpus builds results of the shapes tool results take (keyed by address, lists of
// records, text), from goldenStrings.
func goldenCorpus() []walkGolden {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func() string { return goldenStrings[rng.IntN(len(goldenStrings))] }
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(10); {
		case k < 5 || depth > 3:
			return pick()
		case k == 5:
			return []float64{4111111111111111, 42, 123456789012, -1.5, 0.97}[rng.IntN(5)]
		case k == 6:
			return rng.IntN(2) == 0
		case k == 7:
			a := make([]any, rng.IntN(4))
			for i := range a {
				a[i] = value(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for range rng.IntN(5) {
				m[pick()] = value(depth + 1)
			}
			return m
		}
	}
	var out []walkGolden
	add := func(name string, v map[string]any) {
		in, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out = append(out, walkGolden{Name: name, In: in})
	}
	for i := range 40 {
		// keyed by addresses, the same addresses again as values
		m := map[string]any{}
		for range 1 + rng.IntN(12) {
			k := pick()
			m[k] = map[string]any{"seen": pick(), "last": k, "first_seen": pick(), "score": float64(rng.IntN(100)), "tags": []any{pick(), pick()}}
		}
		add(fmt.Sprintf("keyed-%02d", i), map[string]any{"content": m})
	}
	for i := range 20 {
		// lists of records of the same few keys
		var events []any
		for range 1 + rng.IntN(8) {
			events = append(events, map[string]any{"id": pick(), "time": pick(), "src_ip": pick(), "user": pick(), "note": value(1)})
		}
		add(fmt.Sprintf("events-%02d", i), map[string]any{"total": float64(len(events)), "events": events})
	}
	for i := range 20 {
		// anything, nested
		m := map[string]any{}
		for range 1 + rng.IntN(6) {
			m[pick()] = value(0)
		}
		add(fmt.Sprintf("mixed-%02d", i), m)
	}
	// every string as a key and as a value, once
	all := map[string]any{}
	for i, s := range goldenStrings {
		all[s] = goldenStrings[len(goldenStrings)-1-i]
	}
	add("every-string", all)
	add("text", map[string]any{"content": strings.Repeat(goldenStrings[len(goldenStrings)-7]+" ", 20)})
	for i, v := range labelledShapes() {
		add(fmt.Sprintf("labelled-%02d", i), v)
	}
	return out
}

// labelledShapes are results whose values only their keys make sensitive: secrets under
// secret-ish keys, the value beside a secret-ish name (ECS and Kubernetes environment lists),
// phone, SSN and card numbers held as JSON numbers, and the look-alikes that must stay.
func labelledShapes() []map[string]any {
	return []map[string]any{
		{"password": "Tr0mbone!77", "client_secret": "q8Zt2-vWx_91LmNo", "token": "p9XfQ2vL7kR4sW1z", "api_key": "a1b2c3d4e5f6g7h8",
			"user": "deploy", "password_policy": "12 characters", "token_count": 1234.0},
		{"taskDefinition": map[string]any{"containerDefinitions": []any{map[string]any{"name": "web", "environment": []any{
			map[string]any{"name": "DB_PASSWORD", "value": "s3cr3t-Db-Pw"},
			map[string]any{"name": "API_TOKEN", "value": "tok-8f7e6d5c4b3a2910"},
			map[string]any{"name": "LOG_LEVEL", "value": "debug"},
			map[string]any{"name": "DB_PASSWORD_FILE", "value": "/run/secrets/db"},
		}}}}},
		{"spec": map[string]any{"containers": []any{map[string]any{"env": []any{
			map[string]any{"name": "AWS_SECRET_ACCESS_KEY", "value": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
			map[string]any{"name": "REDIS_PASSWORD", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": "redis", "key": "password"}}},
		}}}}},
		{"Parameters": []any{map[string]any{"Key": "ClientSecret", "Value": "Zx9-vB7nM5qW3eR1"}, map[string]any{"Key": "Region", "Value": "us-east-1"}}},
		{"phone": 2025550143.0, "mobile": 9012345678.0, "ssn": 123456789.0, "card_number": 4111111111111111.0, "port": 5432.0,
			"employees": 2025550143.0, "fax": "2025550144"},
		{"password": "${DB_PASSWORD}", "secret": "get_secret()", "token": "xxxxxxxxxxxxxxxx", "api_key": "", "passwd": 12345678.0},
		{"args": map[string]any{"password": "line one\nline \"two\" 9Zq!", "credentials": map[string]any{"username": "root", "password": "W1nter!Sky"}}},
	}
}
