package redact

import "testing"

func TestMatchVendor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string // the token matched at 0, "" for none
		typ  uint8
	}{
		{"GitHub token", "ghp_R8hWq2mZk4Xv9LpN3tY6bC1dF5gJ7sA0eU2i rest", "ghp_R8hWq2mZk4Xv9LpN3tY6bC1dF5gJ7sA0eU2i", tAPIKey},
		{"GitHub token too short", "ghp_R8hWq2mZk4Xv9LpN3tY6", "", 0},
		{"glued to a word", "ghp_R8hWq2mZk4Xv9LpN3tY6bC1dF5gJ7sA0eU2i_x", "", 0},
		{"placeholder body", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "", 0},
		{"AWS access key ID", "AKIAQWERTYUIOP123456.", "AKIAQWERTYUIOP123456", tAPIKey},
		{"GitLab routable suffix", "glpat-aB3dE5gH7jK9mN1pQ2rS.01.0a1b2c3d4", "glpat-aB3dE5gH7jK9mN1pQ2rS.01.0a1b2c3d4", tAPIKey},
		{"Slack needs a digit", "xoxb-abcdefghijklmnopq", "", 0},
		{"Slack", "xoxb-2847561930-Kd8fQ2mZpL", "xoxb-2847561930-Kd8fQ2mZpL", tAPIKey},
		{"no rule for the pair", "zz_R8hWq2mZk4Xv9LpN3tY6bC1dF5gJ7sA0eU2i", "", 0},
	}
	for _, tt := range tests {
		e, typ, ok := matchVendor(tt.in, 0)
		got := ""
		if ok {
			got = tt.in[:e]
		}
		if got != tt.want || typ != tt.typ {
			t.Errorf("%s: matchVendor(%q) = %q type %d, want %q type %d", tt.name, tt.in, got, typ, tt.want, tt.typ)
		}
	}
	// inside a dotted or dashed name
	if _, _, ok := matchVendor("a.ghp_R8hWq2mZk4Xv9LpN3tY6bC1dF5gJ7sA0eU2i", 2); ok {
		t.Error("a token inside a dotted name matched")
	}
}

func TestVendorBodyOK(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flags uint8
		body  string
		want  bool
	}{
		{0, "R8hWq2mZk4Xv9LpN", true},
		{0, "xxxxxxxxxxxxxxxx", false},
		{fNoPH, "xxxxxxxxxxxxxxxx", true},
		{fDigit, "abcdefghijklmnop", false},
		{fMixed, "1234567890123456", false},
		{fNotDigits, "1234567890123456", false},
		{fNotDigits, "12345678901234a6", true},
		{fUUID, "12345678-1234-1234-1234-123456789abc", true},
		{fUUID, "123456781234-1234-1234-123456789abc-", false},
	}
	for _, tt := range tests {
		r := &vrule{flags: tt.flags}
		if got := r.bodyOK(tt.body); got != tt.want {
			t.Errorf("bodyOK(flags %b, %q) = %v, want %v", tt.flags, tt.body, got, tt.want)
		}
	}
}
