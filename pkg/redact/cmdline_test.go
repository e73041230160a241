package redact

import (
	"strings"
	"testing"
)

func TestScanCurlUser(t *testing.T) {
	t.Parallel()
	checkRecognizer(t, "scanCurlUser", (*scanner).scanCurlUser, []recognizerCase{
		{"curl -u user:P@ss https://x", "SECRET:P@ss"},
		{"curl --user=admin:Hunter2x https://x", "SECRET:Hunter2x"},
		{"curl --user admin:Hunter2x https://x", "SECRET:Hunter2x"},
		{"curl -u admin:'Hunter 2x' https://x", "SECRET:Hunter 2x"},
		{`curl -u "admin":"Hunter2x" https://x`, "SECRET:Hunter2x"},
		{"curl -u sk_live_4eC39HqLyjWDarjtT1zdp7dc: https://x", "SECRET:sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"curl -u $USER:$PASS https://x", ""},
		{"curl -u admin https://x", ""},
		{"ls -ux", ""},
		{"x--user=a:b", ""},
	})
}

func TestCurlUserArg(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"-u a:b", 3},
		{"curl -u   a:b", 10},
		{"--user=a:b", 7},
		{"--user a:b", 7},
		{"--users a", -1},
		{"-ua:b", -1},
		{"-u ", -1},
	}
	for _, tt := range tests {
		if got := curlUserArg(tt.in, strings.Index(tt.in, "-u")); got != tt.want {
			t.Errorf("curlUserArg(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestLoginPairAt(t *testing.T) {
	t.Parallel()
	run := func(sc *scanner, s string) { sc.loginPairAt(s, strings.Index(s, " / ")+1) }
	checkRecognizer(t, "loginPairAt", run, []recognizerCase{
		{"login as root / W1nter!Sky", "SECRET:W1nter!Sky"},
		{"credentials: admin / P@ssw0rd1.", "SECRET:P@ssw0rd1"},
		{"we log in as ops / Blue42sky", "SECRET:Blue42sky"},
		{"account is svc@corp / Spr1ngTime", "SECRET:Spr1ngTime"},
		{"ratio root / W1nter!Sky", ""},
		{"login as root / password", ""},
		{"login as root / [REDACTED_SECRET]", ""},
		{"login as  / W1nter!Sky", ""},
	})
}

func TestLoginWord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		want int
	}{
		{"Login", loginNamed},
		{"creds", loginNamed},
		{"log in", loginNamed},
		{"sign in", loginNamed},
		{"tuck in", loginOther},
		{"as", loginFiller},
		{"with", loginFiller},
		{"ratio", loginOther},
	}
	for _, tt := range tests {
		w := strings.LastIndexByte(tt.s, ' ') + 1
		if got := loginWord(tt.s, w, len(tt.s)); got != tt.want {
			t.Errorf("loginWord(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
