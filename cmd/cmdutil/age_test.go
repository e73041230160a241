package cmdutil

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"30d", 30 * day}, {"2w", 14 * day}, {"12h", 12 * time.Hour}, {"90m", 90 * time.Minute},
		{"1h30m", 90 * time.Minute}, {"1w2d", 9 * day}, {"1.5d", 36 * time.Hour}, {"1d12h", 36 * time.Hour},
		{"10s", 10 * time.Second}, {" 7d ", 7 * day}, {"+3d", 3 * day}, {"500ms", 500 * time.Millisecond},
	} {
		got, err := ParseAge(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "  ", "0", "0d", "0s", "-1d", "-5h", "30", "d", "30days", "30D", "1y", "abc", "1d-1h", "1e3d",
		"100000000w", "9999999999h", "1d 2h", "３０d",
	} {
		if got, err := ParseAge(in); err == nil || ExitCode(err) != ExitUsage {
			t.Errorf("ParseAge(%q) = %v, %v; want a usage error", in, got, err)
		}
	}
}
