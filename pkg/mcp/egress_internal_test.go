package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/alertchat/alertchat/pkg/redact"
	"testing"
)

// What a public-only server's arguments may carry: internal and personal values are found
// wherever they are (nested, in object keys, in any notation the redactor reads), public
// indicators are not.
func TestEgressCheck(t *testing.T) {
	t.Parallel()
	g := newEgressGuard([]string{"corp.example", "*.ad.example."})
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // kind=value;... of the leaks, "" when the call may go
	}{
		{"public address", map[string]any{"ip": "203.0.113.7"}, ""},
		{"public IPv6", map[string]any{"ip": "2606:4700:4700::1111"}, ""},
		{"public indicators", map[string]any{"q": "evil.example https://evil.example/x?a=1 44d88612fea8a8f36de82e1278abb02f 275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f", "n": 3.0, "b": true}, ""},
		{"private", map[string]any{"ip": "10.0.3.7"}, "internal address=10.0.3.7"},
		{"172.16/12 and 192.168/16", map[string]any{"ips": []any{"172.20.1.1", "192.168.0.10", "172.32.0.1"}}, "internal address=172.20.1.1;internal address=192.168.0.10"},
		{"loopback", map[string]any{"ip": "127.0.0.1"}, "internal address=127.0.0.1"},
		{"link-local", map[string]any{"ip": "169.254.169.254"}, "internal address=169.254.169.254"},
		{"shared", map[string]any{"ip": "100.64.1.2", "not": "100.128.0.1"}, "internal address=100.64.1.2"},
		{"leading zeros", map[string]any{"ip": "010.000.003.007"}, "internal address=010.000.003.007"},
		{"leading zeros, public either way", map[string]any{"ip": "008.008.008.008"}, ""},
		{"leading zeros in a sentence", map[string]any{"q": "host 010.000.003.007 beaconed"}, "internal address=010.000.003.007"},
		{"fullwidth", map[string]any{"ip": "１０．０．３．７"}, "internal address=１０．０．３．７"},
		{"v4-mapped v6", map[string]any{"ip": "::ffff:10.0.3.7"}, "internal address=::ffff:10.0.3.7"},
		{"v6 unique local", map[string]any{"ip": "fd12:3456:789a::1"}, "internal address=fd12:3456:789a::1"},
		{"v6 link-local with zone", map[string]any{"ip": "fe80::1%eth0"}, "internal address=fe80::1%eth0"},
		{"v6 loopback", map[string]any{"ip": "::1"}, "internal address=::1"},
		{"nested deep", map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": "seen from 192.168.1.20 at noon"}}}}, "internal address=192.168.1.20"},
		{"object key", map[string]any{"filters": map[string]any{"10.1.2.3": "src"}}, "internal address=10.1.2.3"},
		{"internal domain", map[string]any{"host": "dc01.corp.example"}, "internal host=dc01.corp.example"},
		{"internal domain itself, any case", map[string]any{"host": "CORP.EXAMPLE."}, "internal host=CORP.EXAMPLE"},
		{"wildcard entry", map[string]any{"q": "ldap://dc.ad.example:389"}, "internal host=dc.ad.example"},
		{"not under it", map[string]any{"host": "notcorp.example"}, ""},
		{"usual suffixes", map[string]any{"q": "db.internal files.local pc7.corp nas.lan"}, "internal host=db.internal;internal host=files.local;internal host=pc7.corp;internal host=nas.lan"},
		{"localhost", map[string]any{"url": "http://localhost:8080/admin"}, "internal host=localhost"},
		{"fullwidth host", map[string]any{"host": "ｄｂ０１．ｃｏｒｐ"}, "internal host=db01.corp"},
		{"e-mail", map[string]any{"who": "alice@corp.example"}, "e-mail address=alice@corp.example"},
		{"e-mail of a public domain", map[string]any{"who": "bob@gmail.com"}, "e-mail address=bob@gmail.com"},
		{"API key", map[string]any{"k": "AKIAIOSFODNN7EXAMPLE"}, "API key=AKIAIOSFODNN7EXAMPLE"},
		{"password", map[string]any{"cmd": "mysql -u root password=hunter2hunter2"}, "secret=hunter2hunter2"},
		{"card", map[string]any{"k": "4111 1111 1111 1111"}, "credit card number=4111 1111 1111 1111"},
		{"each once", map[string]any{"a": "10.0.3.7", "b": []any{"10.0.3.7"}}, "internal address=10.0.3.7"},
	} {
		var got []string
		for _, l := range g.check(tc.args) {
			got = append(got, l.Kind+"="+l.Value)
		}
		if s := strings.Join(got, ";"); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
	}
	// What is nested deeper than the walk goes cannot be checked, so it does not go.
	var deep any = "203.0.113.7"
	for range 100 {
		deep = map[string]any{"d": deep}
	}
	if got := g.check(map[string]any{"x": deep}); len(got) != 1 {
		t.Errorf("nested too deep: %v", got)
	}
}

// What redaction replaces in the same arguments is held back too, however the arguments hold
// it: a value under a key that labels it, the "value" beside such a "name", personal numbers as
// labelled strings or JSON numbers, a labelled key that looks like a hash; and values written
// percent-encoded in a URL are judged decoded.
func TestEgressHoldsWhatRedactionReplaces(t *testing.T) {
	t.Parallel()
	g := newEgressGuard([]string{"corp.example"})
	const sha = "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f"
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // the kinds held, "" when the call may go
	}{
		{"password key", map[string]any{"password": "Tr0mbone!77x"}, "secret"},
		{"name and value", map[string]any{"env": []any{map[string]any{"name": "api_key", "value": "q8v7x6w5z4y3a2b1c0d9e8f7"}}}, "API key"},
		{"labelled phone string", map[string]any{"phone": "202-555-0143"}, "phone number"},
		{"labelled phone number", map[string]any{"phone": 2025550143.0}, "phone number"},
		{"labelled SSN", map[string]any{"ssn": "078-05-1120"}, "SSN"},
		{"card as a JSON number", map[string]any{"card": 4111111111111111.0}, "credit card number"},
		{"card as a bare JSON number", map[string]any{"n": 4111111111111111.0}, "credit card number"},
		{"labelled 32-hex key", map[string]any{"api_key": "44d88612fea8a8f36de82e1278abb02f"}, "API key"},
		{"labelled 40-hex key", map[string]any{"api_key": "275a021bbfb6489e54d471899f7db9d1663fc695"}, "API key"},
		{"labelled 64-hex token", map[string]any{"token": sha}, "API key"},
		{"percent-encoded e-mail", map[string]any{"url": "https://evil.example/track?email=alice%40corp.example.com"}, "e-mail address"},
		{"percent-encoded internal URL", map[string]any{"url": "https%3A%2F%2Fdb01%2Ecorp.example%2Fadmin"}, "internal host"},
		{"percent-encoded private address", map[string]any{"q": "target=10%2E0%2E3%2E7"}, "internal address"},
		// what goes: a hash under a key that names a hash, public indicators encoded
		{"a hash is a hash", map[string]any{"sha256": sha, "hash": "44d88612fea8a8f36de82e1278abb02f"}, ""},
		{"encoded public URL", map[string]any{"url": "https%3A%2F%2Fevil.example%2Fx%3Fa%3D1"}, ""},
	} {
		var kinds []string
		for _, l := range g.check(tc.args) {
			if !slices.Contains(kinds, l.Kind) {
				kinds = append(kinds, l.Kind)
			}
		}
		if got := strings.Join(kinds, ";"); got != tc.want {
			t.Errorf("%s: held %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A URL's host is read as HTTP clients read it (inet_aton: one to four parts, decimal, octal or
// hex), and internal domains are compared in their IDNA ASCII form, whichever form the config
// and the arguments write them in.
func TestEgressNumericHostsAndIDNA(t *testing.T) {
	t.Parallel()
	g := newEgressGuard([]string{"corp.example", "bücher.example", "xn--mnchen-3ya.example"})
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"decimal URL host", map[string]any{"url": "http://167773959/admin"}, "internal address=167773959"},
		{"hex URL host", map[string]any{"url": "http://0x0a000307/"}, "internal address=0x0a000307"},
		{"octal URL host", map[string]any{"url": "https://012.0.3.7:8443/x"}, "internal address=012.0.3.7"},
		{"two-part URL host", map[string]any{"url": "http://10.775/"}, "internal address=10.775"},
		{"loopback with userinfo", map[string]any{"url": "http://user@0177.1/"}, "internal address=0177.1"},
		{"hex address alone", map[string]any{"ip": "0x0a000307"}, "internal address=0x0a000307"},
		{"public numeric host", map[string]any{"url": "http://3405803783/"}, ""},
		{"a number is not a host", map[string]any{"q": "167773959 events", "n": "10.775"}, ""},
		{"punycode of a Unicode domain", map[string]any{"host": "dc1.xn--bcher-kva.example"}, "internal host=dc1.xn--bcher-kva.example"},
		{"Unicode of a Unicode domain", map[string]any{"url": "https://dc1.bücher.example/x"}, "internal host=dc1.bücher.example"},
		{"Unicode of a punycode domain", map[string]any{"host": "files.münchen.example"}, "internal host=files.münchen.example"},
		{"Unicode, upper case", map[string]any{"host": "FILES.MÜNCHEN.EXAMPLE"}, "internal host=FILES.MÜNCHEN.EXAMPLE"},
		{"another Unicode domain", map[string]any{"host": "bücher.example.org", "h": "münchen.example.de"}, ""},
	} {
		var got []string
		for _, l := range g.check(tc.args) {
			got = append(got, l.Kind+"="+l.Value)
		}
		if s := strings.Join(got, ";"); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
	}
}

// The shortcuts for one-indicator strings (an address, a hash, a domain) never let through what
// the redactor's scan would hold back.
func FuzzEgressShortcuts(f *testing.F) {
	for _, s := range []string{"10.0.3.7", "203.0.113.7", "fd00::1", "44d88612fea8a8f36de82e1278abb02f", "evil.example", "db01.corp",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "xn--bcher-kva.example", "a-b.c-d.example."} {
		f.Add(s)
	}
	slow := newEgressGuard([]string{"corp.example"})
	fast := newEgressGuard([]string{"corp.example"})
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		var viaScan leakSet
		viaScan.seen = map[string]bool{}
		for _, fd := range slow.redactor.Find(s) {
			switch fd.Type {
			case redact.IP:
				if a, ok := redact.ParseIP(fd.Value); ok && internalAddr(a) {
					viaScan.add("internal address", fd.Value)
				}
			case redact.Email:
				viaScan.add("e-mail address", fd.Value)
			default:
				viaScan.add(secretKind(fd.Type), fd.Value)
			}
		}
		slow.hosts(s, &viaScan)
		got := fast.check(map[string]any{"x": s})
		// The shortcut may hold back more (an address the scan does not read, as "::0"), never less.
		if len(viaScan.leaks) > 0 && len(got) == 0 {
			t.Fatalf("%q: the shortcut lets through what the scan holds back: %v", s, viaScan.leaks)
		}
	})
}

// The denial names what would leave (secrets by kind and their first characters only), at most
// five values.
func TestEgressDenial(t *testing.T) {
	t.Parallel()
	h := EgressHold{Server: "intel", Tool: "lookup", Leaks: []Leak{{Kind: "internal address", Value: "10.0.3.7"}}}
	if got, want := h.Denial(), "denied: would send internal data (10.0.3.7) to intel, a public-only server"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	h.Leaks = append(h.Leaks, Leak{Kind: "API key", Value: "AKIAIOSFODNN7EXAMPLE"})
	for i := range 5 {
		h.Leaks = append(h.Leaks, Leak{Kind: "internal host", Value: fmt.Sprintf("h%d.corp", i)})
	}
	if got, want := h.What(), "10.0.3.7, an API key AKIA…, h0.corp, h1.corp, h2.corp and 2 more"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// The denial is the call's function response: the model reads it and the history keeps it, so
// it names a secret or personal value by its kind only; its first characters are for the
// terminal's question alone.
func TestEgressDenialNamesSecretsByKindOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		leak Leak
		want string
	}{
		{Leak{Kind: "API key", Value: "AKIAIOSFODNN7EXAMPLE"}, "an API key"},
		{Leak{Kind: "SSN", Value: "078-05-1120"}, "an SSN"},
		{Leak{Kind: "credit card number", Value: "4111 1111 1111 1111"}, "a credit card number"},
		{Leak{Kind: "phone number", Value: "+1 202 555 0143"}, "a phone number"},
		{Leak{Kind: "secret", Value: "hunter2hunter2"}, "a secret"},
		{Leak{Kind: "internal host", Value: "db01.corp"}, "db01.corp"},
	} {
		h := EgressHold{Server: "intel", Tool: "lookup", Leaks: []Leak{tc.leak}}
		if got, want := h.Denial(), "denied: would send internal data ("+tc.want+") to intel, a public-only server"; got != want {
			t.Errorf("%s: %q, want %q", tc.leak.Kind, got, want)
		}
		if tc.leak.Kind != "internal host" && !strings.Contains(h.What(), string([]rune(tc.leak.Value)[:4])) {
			t.Errorf("%s: the question %q lost the first characters", tc.leak.Kind, h.What())
		}
	}
}

// tenKB are arguments of about 10 KB of public indicators, the call that goes through and so is
// checked whole: "indicators" a threat-intelligence lookup of many (addresses, domains, hashes,
// URLs), "query" a SIEM query of field = "value" clauses (the redactor's costliest text: every
// clause is an assignment it reads).
func tenKB(kind string) map[string]any {
	if kind == "query" {
		var b strings.Builder
		for b.Len() < 10000 {
			b.WriteString("process_name = \"powershell.exe\" AND target.hostname = \"evil.example\" OR ")
		}
		return map[string]any{"query": b.String(), "limit": 100.0}
	}
	var ips, domains, hashes, urls []any
	for i := range 150 {
		ips = append(ips, fmt.Sprintf("203.0.%d.%d", i%250, i%200))
		domains = append(domains, fmt.Sprintf("c2-%d.evil.example", i))
		hashes = append(hashes, fmt.Sprintf("%032x", i*7919))
		urls = append(urls, fmt.Sprintf("https://cdn%d.evil.example/p/%d", i, i))
	}
	return map[string]any{"ips": ips, "domains": domains, "hashes": hashes, "urls": urls,
		"options": map[string]any{"relationships": []any{"resolutions", "communicating_files"}, "since": "2026-11-27T00:00:00Z"}}
}

// BenchmarkEgressCheck is what the check adds to a public-only server's call of about 10 KB of
// arguments.
func BenchmarkEgressCheck(b *testing.B) {
	for _, kind := range []string{"indicators", "query"} {
		b.Run(kind, func(b *testing.B) {
			g := newEgressGuard([]string{"corp.example"})
			args := tenKB(kind)
			js, _ := json.Marshal(args)
			b.SetBytes(int64(len(js)))
			b.ReportAllocs()
			// The machine may be shared: the CPU time the process spent per call is reported
			// beside the wall time, which a loaded machine stretches.
			before := processCPU()
			for b.Loop() {
				if l := g.check(args); len(l) != 0 {
					b.Fatal(l)
				}
			}
			cpu := processCPU() - before
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
