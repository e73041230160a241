package redact

import "testing"

func TestByteClasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		class uint16
		name  string
		in    string
		out   string
	}{
		{cDigit, "digit", "0189", "a/ :\x80"},
		{cHex, "hex", "09afAF", "gG:.\xff"},
		{cB64, "base64", "aZ09+/", "-_=."},
		{cKey, "key", "aZ09_.-", "+/: "},
		{cLocal, "local part", "aZ09._%+-", "@:/ "},
		{cDomain, "domain label", "aZ09-", "._@"},
		{cV6, "IPv6", "09afAF:.", "g/-"},
		{cURL, "URL", "aZ09/:?#&=%~!$*", "\"'<>`\\{}| \x7f\x80"},
		{cB64URL, "base64url", "aZ09_-", "+/="},
		{cSpace, "space", " \t", "\n\r_"},
		{cNumSep, "number separator", " \t-.()", "/_+"},
		{cTokBody, "token body", "aZ09_-.+/=~", ":@ \x80"},
		{cUnder, "underscore", "_", "-a"},
	}
	for _, tt := range tests {
		for i := 0; i < len(tt.in); i++ {
			if ctab[tt.in[i]]&tt.class == 0 {
				t.Errorf("%q is not in class %s", tt.in[i], tt.name)
			}
		}
		for i := 0; i < len(tt.out); i++ {
			if ctab[tt.out[i]]&tt.class != 0 {
				t.Errorf("%q is in class %s", tt.out[i], tt.name)
			}
		}
	}
	for c := 0x80; c < 0x100; c++ {
		if ctab[c] != 0 {
			t.Errorf("byte %#x has classes %b; bytes of UTF-8 sequences separate", c, ctab[c])
		}
	}
}
