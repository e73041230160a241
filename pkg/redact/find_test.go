package redact

import (
	"net/netip"
	"strings"
	"testing"
)

// Find reports what String would replace, as written, and ParseIP reads the addresses it finds
// in every notation the scanner knows.
func TestFindAndParseIP(t *testing.T) {
	t.Parallel()
	r := New(AllTypes()...)
	for _, tc := range []struct {
		in   string
		want string // type=value;... of the findings
		ip   string // the first finding's address, when it is one
	}{
		{"lookup 10.0.3.7 please", "IP=10.0.3.7", "10.0.3.7"},
		{"010.000.003.007", "", ""}, // leading zeros: a serial or a version, not an address in text
		{"::ffff:10.0.3.7", "IP=::ffff:10.0.3.7", "10.0.3.7"},
		{"fe80::1%eth0", "IP=fe80::1", "fe80::1"},
		{"１０．０．３．７", "IP=１０．０．３．７", "10.0.3.7"},
		{"mail alice@corp.example now", "EMAIL=alice@corp.example", ""},
		{"key AKIAIOSFODNN7EXAMPLE", "API_KEY=AKIAIOSFODNN7EXAMPLE", ""},
		{"275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f https://evil.example/p", "", ""},
		{"[REDACTED_IP]", "", ""},
	} {
		got := r.Find(tc.in)
		var parts []string
		for _, f := range got {
			parts = append(parts, string(f.Type)+"="+f.Value)
		}
		if s := strings.Join(parts, ";"); s != tc.want {
			t.Errorf("Find(%q) = %s, want %s", tc.in, s, tc.want)
		}
		if tc.ip != "" {
			a, ok := ParseIP(got[0].Value)
			if !ok || a.String() != tc.ip {
				t.Errorf("ParseIP(%q) = %v %v, want %s", got[0].Value, a, ok, tc.ip)
			}
		}
	}
	if New().Find("10.0.3.7") != nil {
		t.Error("a redactor of no type found something")
	}
}

// ParseIP never accepts what is not an address, and what it accepts is one netip reads back.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"10.0.3.7", "010.0.0.1", "256.1.1.1", "::ffff:1.2.3.4", "fe80::1%eth0", "１．２．３．４", "1.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, ok := ParseIP(s)
		if !ok {
			return
		}
		if !a.IsValid() || a.Zone() != "" || a.Is4In6() {
			t.Fatalf("ParseIP(%q) = %v", s, a)
		}
		if b, err := netip.ParseAddr(a.String()); err != nil || b != a {
			t.Fatalf("ParseIP(%q) = %v, which reads back as %v %v", s, a, b, err)
		}
	})
}
