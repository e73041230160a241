package redact_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/redact"
)

var plainAll = redact.New(redact.AllTypes()...)

func keyedAll(t testing.TB) *redact.Redactor {
	t.Helper()
	tk, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	return plainAll.WithTokens(tk)
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func encode(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An MCP result whose structured content is keyed by IP and e-mail address (threat-intel and
// SIEM servers answer so) is stored with its keys redacted, its values walked as before.
func TestMapRedactsKeys(t *testing.T) {
	t.Parallel()
	r := keyedAll(t)
	m := decode(t, `{"content":{"203.0.113.7":{"score":87,"seen_by":"soc@example.com"},`+
		`"alice@example.com":{"logins":3,"last_ip":"198.51.100.23"},"summary":"2 indicators"}}`)
	counts := redact.Counts{}
	r.Map(m, counts)
	out := encode(t, m)
	for _, raw := range []string{"203.0.113.7", "alice@example.com", "soc@example.com", "198.51.100.23"} {
		if strings.Contains(out, raw) {
			t.Errorf("%s stored raw: %s", raw, out)
		}
	}
	content := m["content"].(map[string]any)
	var ipTok, mailTok string
	for k := range content {
		switch {
		case strings.HasPrefix(k, "[REDACTED_IP_"):
			ipTok = k
		case strings.HasPrefix(k, "[REDACTED_EMAIL_"):
			mailTok = k
		}
	}
	if ipTok == "" || mailTok == "" || len(content) != 3 || content["summary"] != "2 indicators" {
		t.Fatalf("keys %v", slices.Sorted(maps.Keys(content)))
	}
	// a key gets the token its value gets anywhere else
	if tok, _ := r.String("203.0.113.7"); tok != ipTok {
		t.Errorf("key token %s, value token %s", ipTok, tok)
	}
	if content[ipTok].(map[string]any)["score"] != 87.0 {
		t.Errorf("value under the renamed key: %v", content[ipTok])
	}
	if counts[redact.IP] != 2 || counts[redact.Email] != 2 {
		t.Errorf("counts %v", counts)
	}
}

// Keys that redaction makes equal are all kept, under names that do not depend on the map's
// iteration order.
func TestMapKeyCollisionsKeepEveryEntry(t *testing.T) {
	t.Parallel()
	const in = `{"10.0.0.2":{"n":2},"10.0.0.1":{"n":1},"[REDACTED_IP]":"was a placeholder already","[REDACTED_IP]#2":"taken too","10.0.0.3":[3]}`
	want := `{"[REDACTED_IP]":"was a placeholder already","[REDACTED_IP]#2":"taken too","[REDACTED_IP]#3":{"n":1},"[REDACTED_IP]#4":{"n":2},"[REDACTED_IP]#5":[3]}`
	for i := range 50 {
		m := decode(t, in)
		plainAll.Map(m, nil)
		if got := encode(t, m); got != want {
			t.Fatalf("run %d: %s\nwant %s", i, got, want)
		}
	}
	// with tokens, the same address written two ways is one token: both entries stay
	r := keyedAll(t)
	m := decode(t, `{"Alice@Example.com":1,"alice@example.com":2}`)
	r.Map(m, nil)
	tok, _ := r.String("alice@example.com")
	if len(m) != 2 || m[tok] != 1.0 || m[tok+"#2"] != 2.0 {
		t.Fatalf("collision under tokens: %v", m)
	}
	// and redacting again changes nothing
	before := encode(t, m)
	r.Map(m, nil)
	if after := encode(t, m); after != before {
		t.Fatalf("second walk changed %s into %s", before, after)
	}
}

func TestMapTypedMapsAndStringMaps(t *testing.T) {
	t.Parallel()
	type label string
	typed := map[label]int{"10.0.0.1": 1, "host": 2}
	sm := map[string]string{"bob@example.org": "x", "10.9.9.9": "10.9.9.9"}
	m := map[string]any{"typed": typed, "sm": sm}
	plainAll.Map(m, nil)
	if typed["[REDACTED_IP]"] != 1 || typed["host"] != 2 || len(typed) != 2 {
		t.Errorf("typed map %v", typed)
	}
	if sm["[REDACTED_EMAIL]"] != "x" || sm["[REDACTED_IP]"] != "[REDACTED_IP]" || len(sm) != 2 {
		t.Errorf("string map %v", sm)
	}
}

// nest wraps leaf in depth levels of objects (odd levels) and arrays (even levels).
func nest(depth int, leaf any) any {
	v := leaf
	for i := range depth {
		if i%2 == 0 {
			v = map[string]any{"k": v}
		} else {
			v = []any{v}
		}
	}
	return v
}

// What lies deeper than the walk goes is replaced, never written as it came.
func TestMapReplacesWhatIsTooDeep(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{redact.MaxDepth - 2, redact.MaxDepth + 1, 200, 5000} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			t.Parallel()
			m := map[string]any{"r": nest(depth, map[string]any{"owner": "deep@example.com", "10.1.1.1": true})}
			// through JSON, as a result arrives
			m = decode(t, encode(t, m))
			plainAll.Map(m, nil)
			out := encode(t, m)
			if strings.Contains(out, "deep@example.com") || strings.Contains(out, "10.1.1.1") {
				t.Fatalf("a deep value was written raw")
			}
			deep := strings.Contains(out, redact.TooDeep)
			if deep != (depth > redact.MaxDepth-2) {
				t.Fatalf("depth %d: replaced %v: %.300s", depth, deep, out)
			}
			if !deep && !strings.Contains(out, `"owner":"[REDACTED_EMAIL]"`) {
				t.Fatalf("a value within reach was not redacted: %s", out)
			}
		})
	}
}

type deepNode struct {
	Name string
	Next *deepNode
	Any  any
}

func TestMapTypedValuesTooDeepAreZeroed(t *testing.T) {
	t.Parallel()
	var head *deepNode
	for i := range 100 {
		head = &deepNode{Name: fmt.Sprintf("n%d owner%d@example.com", i, i), Next: head}
	}
	m := map[string]any{"chain": head}
	plainAll.Map(m, nil)
	n := 0
	for p := m["chain"].(*deepNode); p != nil; p = p.Next {
		if strings.Contains(p.Name, "@example.com") {
			t.Fatalf("node %d kept %q", n, p.Name)
		}
		n++
	}
	if n >= 100 || n < redact.MaxDepth/3 {
		t.Fatalf("the chain was cut at %d nodes", n)
	}
}

// A map that holds itself (possible in Go values, never in JSON) ends the walk.
func TestMapCycleEnds(t *testing.T) {
	t.Parallel()
	m := map[string]any{"ip": "10.0.0.1"}
	m["self"] = m
	plainAll.Map(m, nil)
	if m["ip"] != "[REDACTED_IP]" {
		t.Fatalf("ip %v", m["ip"])
	}
}

// Long integers are written as JSON writes them and redacted like that text: a card number
// sent as a JSON number is not stored raw; counts, scores and account IDs stay numbers.
func TestMapNumbers(t *testing.T) {
	t.Parallel()
	m := decode(t, `{"card":4111111111111111,"count":42,"score":0.97,"account":123456789012,"big":1e300,"neg":-4111111111111111}`)
	m["typed"] = int64(5500000000000004)
	m["number"] = json.Number("4012888888881881")
	m["small"] = json.Number("7")
	plainAll.Map(m, nil)
	if m["card"] != "[REDACTED_CC]" || m["typed"] != "[REDACTED_CC]" || m["number"] != "[REDACTED_CC]" {
		t.Errorf("card numbers kept: %v", m)
	}
	if m["count"] != 42.0 || m["score"] != 0.97 || m["account"] != 123456789012.0 || m["big"] != 1e300 || m["small"] != json.Number("7") {
		t.Errorf("ordinary numbers changed: %v", m)
	}
	encode(t, m) // still marshals
}

func TestMapDisabledChangesNothing(t *testing.T) {
	t.Parallel()
	m := map[string]any{"10.0.0.1": nest(300, "a@b.example")}
	before := encode(t, m)
	redact.New().Map(m, nil)
	if after := encode(t, m); after != before {
		t.Fatal("a disabled redactor changed the value")
	}
}

// FuzzMap walks hostile shapes: JSON as a server may send it (any nesting, huge keys, keys
// that collide once redacted, numbers, large fan-out), and shapes built from the input bytes.
// It checks: no panic; the result still marshals; no string left (key or value) that
// redaction would change; nothing nested deeper than MaxDepth; every entry kept down to
// MaxDepth; and a second walk changes nothing.
func FuzzMap(f *testing.F) {
	for _, s := range []string{
		`{"203.0.113.7":{"score":87},"alice@example.com":{"n":1},"summary":"x"}`,
		`{"10.0.0.1":1,"10.0.0.2":2,"[REDACTED_IP]":3,"[REDACTED_IP]#2":4}`,
		`{"Alice@Example.com":1,"alice@example.com":2,"ＡＬＩＣＥ@example.com":3}`,
		`{"card":4111111111111111,"n":[1,2.5,true,null,"078-05-1123"]}`,
		`{"a":` + strings.Repeat(`{"b":[`, 80) + `"x@y.example"` + strings.Repeat(`]}`, 80) + `}`,
		`{"` + strings.Repeat("k", 5000) + `@example.com":"v"}`,
		`{"password=hunter2hunter2":"","-----BEGIN PRIVATE KEY-----\nAAAAAAAAAAAAAAAAAAAA\n-----END PRIVATE KEY-----":0}`,
		`{"password":"Tr0mbone!77","client_secret":"q8Zt2-vWx_91LmNo","token":"p9XfQ2vL7kR4sW1z","api_key":7}`,
		`{"env":[{"name":"DB_PASSWORD","value":"s3cr3t-Db-Pw"},{"Key":"ClientSecret","Value":12345678}]}`,
		`{"phone":2025550143,"ssn":123456789,"card_number":4111111111111111,"fax":"2025550144","パスワード":"x9!Qz7Lm"}`,
		"\x00\x01\x02\x05\x03\x04\x07\x01\x06\x02\x05",
		strings.Repeat("\x01", 300),
		strings.Repeat("\x05\x02", 40),
	} {
		f.Add([]byte(s))
	}
	keyed := keyedAll(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			v = shape(data)
		}
		m, ok := v.(map[string]any)
		if !ok {
			m = map[string]any{"v": v}
		}
		for _, r := range []*redact.Redactor{plainAll, keyed} {
			in, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			var x map[string]any
			if err := json.Unmarshal(in, &x); err != nil {
				t.Skip("not representable as JSON (deeper than encoding/json reads)")
			}
			entries := countEntries(x, 0)
			checkLabelledAsText(t, r, x)
			findings := checkFindMap(t, r, x)
			counts := redact.Counts{}
			r.Map(x, counts)
			if n := countsTotal(counts); n != findings {
				t.Fatalf("FindMap reported %d values, Map replaced %d (%v)", findings, n, counts)
			}
			out, err := json.Marshal(x)
			if err != nil {
				t.Fatalf("result does not marshal: %v", err)
			}
			checkWalked(t, r, x, 0)
			if got := countEntries(x, 0); got != entries {
				t.Fatalf("%d entries within reach before, %d after", entries, got)
			}
			r.Map(x, nil)
			if again, _ := json.Marshal(x); string(again) != string(out) {
				t.Fatalf("second walk changed\n%s\ninto\n%s", out, again)
			}
		}
	})
}

// countEntries counts map entries and array elements down to MaxDepth.
func countEntries(v any, depth int) int {
	if depth > redact.MaxDepth {
		return 0
	}
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += 1 + countEntries(e, depth+1)
		}
	case []any:
		for _, e := range x {
			n += 1 + countEntries(e, depth+1)
		}
	}
	return n
}

func checkWalked(t *testing.T, r *redact.Redactor, v any, depth int) {
	t.Helper()
	if depth > redact.MaxDepth+1 {
		t.Fatalf("a value %d levels deep was kept", depth)
	}
	clean := func(s string) {
		if again, _ := r.String(s); again != s {
			t.Fatalf("%q left for redaction (it redacts to %q)", s, again)
		}
	}
	switch x := v.(type) {
	case string:
		clean(x)
	case float64:
		if x == float64(int64(x)) {
			clean(fmt.Sprint(int64(x)))
		}
	case map[string]any:
		for k, e := range x {
			clean(k)
			checkWalked(t, r, e, depth+1)
		}
	case []any:
		for _, e := range x {
			checkWalked(t, r, e, depth+1)
		}
	}
}

// shapeKeys are keys a shape is built from: addresses (some equal once redacted or normalised),
// a placeholder, secrets as keys, plain words.
var shapeKeys = []string{
	"203.0.113.7", "２０３.０.１１３.７", "203.0.113.8", "[REDACTED_IP]", "[REDACTED_IP]#2", "alice@example.com",
	"ALICE@example.com", "id", "score", "api_key=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4111 1111 1111 1111", "",
}

// shape builds a value from bytes, a small program: open an object or an array, close one,
// add a string, a number or a key, repeat the last value many times, nest very deep.
func shape(data []byte) any {
	type frame struct {
		m   map[string]any
		a   *[]any
		key string
	}
	root := map[string]any{}
	stack := []frame{{m: root}}
	put := func(v any) {
		top := &stack[len(stack)-1]
		if top.m != nil {
			k := top.key
			if _, taken := top.m[k]; taken {
				k += fmt.Sprint(len(top.m))
			}
			top.m[k] = v
		} else {
			*top.a = append(*top.a, v)
		}
	}
	for i := 0; i < len(data); i++ {
		b := data[i]
		arg := 0
		if i+1 < len(data) {
			arg = int(data[i+1])
		}
		switch b % 8 {
		case 0: // open an object
			m := map[string]any{}
			put(m)
			stack = append(stack, frame{m: m})
		case 1: // open an array
			a := &[]any{}
			stack = append(stack, frame{a: a})
		case 2: // close
			if len(stack) > 1 {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if top.a != nil {
					put(*top.a)
				}
			}
		case 3: // a key
			stack[len(stack)-1].key = shapeKeys[arg%len(shapeKeys)]
			i++
		case 4: // a string value
			put(shapeKeys[arg%len(shapeKeys)] + " seen")
			i++
		case 5: // a number
			put([]float64{4111111111111111, 42, 123456789012, -1.5, 1e22}[arg%5])
			i++
		case 6: // fan-out: many entries of colliding keys
			top := &stack[len(stack)-1]
			for j := range arg * 2 {
				k := fmt.Sprintf("10.0.%d.%d", j/250, j%250)
				if top.m != nil {
					top.m[k] = float64(j)
				} else {
					*top.a = append(*top.a, map[string]any{k: "x"})
				}
			}
			i++
		case 7: // deep nesting, or a huge key
			if arg%2 == 0 {
				put(nest(arg+redact.MaxDepth/2, map[string]any{"owner@example.com": "10.2.3.4"}))
			} else {
				stack[len(stack)-1].key = strings.Repeat("x", 1<<12) + "@example.com"
			}
			i++
		}
	}
	for len(stack) > 1 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.a != nil {
			put(*top.a)
		}
	}
	return root
}

// TestMapJudgesValuesWithTheirLabels: a value under a secret-ish or personal-data key, or
// beside a secret-ish name, is redacted as the same bytes written as "key": value in text
// would be; look-alikes under other keys, and placeholders, stay.
func TestMapJudgesValuesWithTheirLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"a password", `{"password":"Tr0mbone!77","user":"deploy"}`, `{"password":"[REDACTED_SECRET]","user":"deploy"}`},
		{"a client secret", `{"client_secret":"q8Zt2-vWx_91LmNo"}`, `{"client_secret":"[REDACTED_SECRET]"}`},
		{"a token and an API key", `{"token":"p9XfQ2vL7kR4sW1z","api_key":"a1b2c3d4e5f6g7h8"}`, `{"api_key":"[REDACTED_API_KEY]","token":"[REDACTED_API_KEY]"}`},
		{"an ECS environment list", `{"environment":[{"name":"DB_PASSWORD","value":"s3cr3t-Db-Pw"},{"name":"LOG_LEVEL","value":"debug"}]}`,
			`{"environment":[{"name":"DB_PASSWORD","value":"[REDACTED_SECRET]"},{"name":"LOG_LEVEL","value":"debug"}]}`},
		{"a parameter list with Key and Value", `{"p":[{"Key":"ClientSecret","Value":"Zx9-vB7nM5qW3eR1"}]}`, `{"p":[{"Key":"ClientSecret","Value":"[REDACTED_SECRET]"}]}`},
		{"numbers under personal-data keys", `{"phone":2025550143,"ssn":123456789,"card_number":4111111111111111,"employees":2025550143}`,
			`{"card_number":"[REDACTED_CC]","employees":2025550143,"phone":"[REDACTED_PHONE]","ssn":"[REDACTED_SSN]"}`},
		{"a password held as a number", `{"passwd":12345678}`, `{"passwd":"[REDACTED_SECRET]"}`},
		{"bare digits as a string under a phone key", `{"fax":"2025550144"}`, `{"fax":"[REDACTED_PHONE]"}`},
		{"a value JSON escapes", `{"password":"two\nlines 9Zq!"}`, `{"password":"[REDACTED_SECRET]"}`},
		{"placeholders and metadata stay", `{"password":"${DB_PASSWORD}","token":"xxxxxxxxxxxxxxxx","password_policy":"12 characters","token_count":1234,"name":"DB_PASSWORD_FILE","value":"/run/secrets/db"}`,
			`{"name":"DB_PASSWORD_FILE","password":"${DB_PASSWORD}","password_policy":"12 characters","token":"xxxxxxxxxxxxxxxx","token_count":1234,"value":"/run/secrets/db"}`},
		{"already redacted", `{"password":"[REDACTED_SECRET]","phone":"[REDACTED_PHONE]"}`, `{"password":"[REDACTED_SECRET]","phone":"[REDACTED_PHONE]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, _ := walkJSON(t, plainAll, []byte(tt.in))
			if string(out) != tt.want {
				t.Errorf("Map(%s)\n got %s\nwant %s", tt.in, out, tt.want)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
				t.Fatal(err)
			}
			checkLabelledAsText(t, plainAll, m)
		})
	}
}

// checkLabelledAsText holds the walk's top-level string values to the redaction of the same
// bytes in text: the value of "k": "v" in what String makes of it. Keys that redaction changes,
// values JSON escapes and name/value pairs are left out.
func checkLabelledAsText(t *testing.T, r *redact.Redactor, in map[string]any) {
	t.Helper()
	plain := func(s string) bool {
		return !strings.ContainsAny(s, "\"\\") && strings.IndexFunc(s, func(c rune) bool { return c < 0x20 }) < 0
	}
	out := map[string]any{}
	for k, v := range in {
		out[k] = v
	}
	r.Map(out, nil)
	for k, v := range in {
		s, ok := v.(string)
		if !ok || !plain(k) || !plain(s) || k == "value" || k == "Value" {
			continue
		}
		prefix := `"` + k + `": "`
		text, _ := r.String(prefix + s + `"`)
		if !strings.HasPrefix(text, prefix) || !strings.HasSuffix(text, `"`) {
			continue // the key itself is redacted
		}
		if want := text[len(prefix) : len(text)-1]; out[k] != want {
			t.Fatalf("%q under %q became %q; as text %q", s, k, out[k], want)
		}
	}
}

// checkFindMap: FindMap changes nothing, and reports each value Map replaces (too-deep
// containers aside, which it reports but Map does not count); it returns how many.
func checkFindMap(t *testing.T, r *redact.Redactor, m map[string]any) int {
	t.Helper()
	before, _ := json.Marshal(m)
	n := 0
	r.FindMap(m, nil, func(f redact.Finding) {
		if f.Type != "" {
			n++
		}
	})
	if after, _ := json.Marshal(m); string(after) != string(before) {
		t.Fatalf("FindMap changed\n%s\ninto\n%s", before, after)
	}
	return n
}

func countsTotal(c redact.Counts) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// FindMap reports what Map replaces, labels and numbers included, in key order, and changes
// nothing; visit is given the strings and may keep one from the scan unless it is labelled.
func TestFindMap(t *testing.T) {
	t.Parallel()
	in := `{"password":"Tr0mbone!77","env":[{"name":"DB_PASSWORD","value":"s3cr3t-Db-Pw"}],"card":4111111111111111,` +
		`"note":"mail alice@example.com from 10.0.0.1","api_key":"44d88612fea8a8f36de82e1278abb02f","ip":"10.0.0.2"}`
	var m map[string]any
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	visited := map[string]bool{}
	plainAll.FindMap(m, func(s string) bool {
		visited[s] = true
		return s == "10.0.0.2" || s == "44d88612fea8a8f36de82e1278abb02f"
	},
		func(f redact.Finding) { got = append(got, string(f.Type)+"="+f.Value) })
	want := "API_KEY=44d88612fea8a8f36de82e1278abb02f;CC=4111111111111111;SECRET=s3cr3t-Db-Pw;EMAIL=alice@example.com;IP=10.0.0.1;SECRET=Tr0mbone!77"
	if s := strings.Join(got, ";"); s != want {
		t.Errorf("found %s\nwant  %s", s, want)
	}
	if !visited["10.0.0.2"] || !visited["note"] || !visited["Tr0mbone!77"] {
		t.Errorf("visited %v", visited)
	}
	if after, _ := json.Marshal(m); !strings.Contains(string(after), "Tr0mbone!77") {
		t.Errorf("changed: %s", after)
	}
}

// FindMap judges a table's cells with their column as their label, as Map replaces them, and
// changes none of them.
func TestFindMapTable(t *testing.T) {
	t.Parallel()
	in := `{"columns":["user","password","phone"],"rows":[["ann","hunter2-Zq9x",5551234500]]}`
	var m map[string]any
	if err := json.Unmarshal([]byte(in), &m); err != nil {
		t.Fatal(err)
	}
	var got []string
	plainAll.FindMap(m, nil, func(f redact.Finding) { got = append(got, string(f.Type)+"="+f.Value) })
	if s := strings.Join(got, ";"); !strings.Contains(s, "SECRET=hunter2-Zq9x") || !strings.Contains(s, "5551234500") {
		t.Errorf("found %s", s)
	}
	if after, _ := json.Marshal(m); string(after) != in {
		t.Errorf("changed: %s", after)
	}
}
