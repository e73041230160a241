package redact

import (
	"strings"
	"testing"
)

// recognized runs one recognizer on a fresh scanner and lists what it
// proposed as "TYPE:text", space-separated; a probe is "probe:text".
func recognized(s string, run func(sc *scanner, s string)) string {
	sc := &scanner{}
	run(sc, s)
	var out []string
	for _, m := range sc.cands {
		name := "probe"
		if m.typ < uint8(numTypes) {
			name = string(allTypes[m.typ])
		}
		out = append(out, name+":"+s[m.start:m.end])
	}
	return strings.Join(out, " ")
}

// recognizerCase is one input of a recognizer and what it must propose.
type recognizerCase struct {
	in, want string
}

func checkRecognizer(t *testing.T, name string, run func(sc *scanner, s string), tests []recognizerCase) {
	t.Helper()
	for _, tt := range tests {
		if got := recognized(tt.in, run); got != tt.want {
			t.Errorf("%s(%q) = %q, want %q", name, tt.in, got, tt.want)
		}
	}
}
