package redact

import "testing"

func TestScanURLs(t *testing.T) {
	t.Parallel()
	checkRecognizer(t, "scanURLs", (*scanner).scanURLs, []recognizerCase{
		{"postgres://app:S3cr3tPw@db.internal:5432/app", "SECRET:S3cr3tPw"},
		{"see https://u:p4ss@host.example/x and more", "SECRET:p4ss"},
		{"redis://:pa/ss?w0rd@cache:6379/0", "SECRET:pa/ss?w0rd"},
		{"https://hooks.slack.com/services/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.", "API_KEY:https://hooks.slack.com/services/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"},
		{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", ""},
		{"https://acme.my.salesforce.com/path", ""},
		{"https://host.example:8080/@scope/pkg", ""},
		{"https://user@host.example/", ""},
		{"://nothing", ""},
		{"postgres://app:${DB_PASSWORD}@db/app", ""},
	})
}

func TestAuthorityEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"host.example/path", 12},
		{"host.example?q=1", 12},
		{"u:p/w@host.example/x", 18},
		{"host.example:8080/@x", 17},
		{"host.example", 12},
	}
	for _, tt := range tests {
		if got := authorityEnd(tt.in, 0); got != tt.want {
			t.Errorf("authorityEnd(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if got := schemeStart("x=9https://", 8); got != 3 {
		// the scheme starts at its first letter
		t.Errorf("schemeStart = %d, want 3", got)
	}
	if got := schemeStart(" ://", 1); got != -1 {
		t.Errorf("schemeStart without a scheme = %d, want -1", got)
	}
}
