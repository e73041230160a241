package redact

import "testing"

func TestReadUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want numUnit
		ok   bool
	}{
		{"555 1234", numUnit{start: 0, end: 3, digits: 3, parts: 1}, true},
		{"(06)6123", numUnit{start: 0, end: 4, digits: 2, parts: 1, paren: true}, true},
		{"(12345)", numUnit{}, false},
		{"()1", numUnit{}, false},
		{"192.168.0.1 x", numUnit{start: 0, end: 11, digits: 8, parts: 4}, true},
		{"1.2.", numUnit{start: 0, end: 3, digits: 2, parts: 2}, true},
		{"abc", numUnit{}, false},
	}
	for _, tt := range tests {
		got, ok := readUnit(tt.in, 0)
		if got != tt.want || ok != tt.ok {
			t.Errorf("readUnit(%q) = %+v %v, want %+v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNextUnitStart(t *testing.T) {
	t.Parallel()
	plain := []numUnit{{start: 0, end: 3, digits: 3, parts: 1}}
	zeroArea := []numUnit{{start: 0, end: 2, digits: 2, parts: 1}}
	tests := []struct {
		in   string
		p    int
		prev []numUnit
		want int
	}{
		{"555 1234", 3, plain, 4},
		{"555-1234", 3, plain, 4},
		{"555 -1234", 3, plain, 5},
		{"555  1234", 3, plain, -1},
		{"555--1234", 3, plain, -1},
		{"555 x", 3, plain, -1},
		{"555 (12)", 3, plain, 4},
		{"123(45)", 3, plain, -1},
		{"06(6123)4567", 2, zeroArea, 2},
		{"16(6123)4567", 2, zeroArea, -1},
		{"555", 3, plain, -1},
	}
	for _, tt := range tests {
		if got := nextUnitStart(tt.in, tt.p, tt.prev); got != tt.want {
			t.Errorf("nextUnitStart(%q, %d) = %d, want %d", tt.in, tt.p, got, tt.want)
		}
	}
}

func TestDottedUnit(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) {
		u, _ := readUnit(s, 0)
		sc.dottedUnit(s, u, false)
	}
	checkRecognizer(t, "dottedUnit", run, []recognizerCase{
		{"192.168.0.1", "IP:192.168.0.1"},
		{"192.168.0.1:8080", "IP:192.168.0.1"},
		{"1.2.3.4.5.6", ""},
		{"01.02.03.04.05", "PHONE:01.02.03.04.05"},
		{"1.2.3.4.5", ""},
		{"078.05.1123", "SSN:078.05.1123"},
		{"666.05.1123", ""},
		{"930.167.3943", "PHONE:930.167.3943"},
		{"930.167.3943 x12", "PHONE:930.167.3943 x12"},
		{"930.167.3943/1", ""},
		{"1.22.333", ""},
	})
}

func TestCountryCodeBefore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		start int
		want  int
	}{
		{"+1 415.555.0132", 3, 0},
		{"+44-415.555.0132", 4, 0},
		{"call 1 415.555.0132", 7, 7},
		{"a+1 415.555.0132", 4, 4},
		{"415.555.0132", 0, 0},
	}
	for _, tt := range tests {
		if got := countryCodeBefore(tt.in, tt.start); got != tt.want {
			t.Errorf("countryCodeBefore(%q, %d) = %d, want %d", tt.in, tt.start, got, tt.want)
		}
	}
}

func TestNumeric(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) { sc.numeric(s, 0) }
	checkRecognizer(t, "numeric", run, []recognizerCase{
		{"4111 1111 1111 1111", "CC:4111 1111 1111 1111"},
		{"078-05-1123", "SSN:078-05-1123"},
		{"10.0.0.1", "IP:10.0.0.1"},
		{"2026-11-29", ""},
		{"4111 1111 1111 1112", ""},
		{"+1 (555) 123-4567", "PHONE:+1 (555) 123-4567"},
		{"12345abc", "probe:12345"},
	})
}
