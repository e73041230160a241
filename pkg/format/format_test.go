package format

import "testing"

func TestCompactCount(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		0: "0", 999: "999", 1000: "1k", 1234: "1.2k", 1250: "1.2k", 12345: "12.3k", 999_949: "999.9k",
		999_999: "1M", 1_500_000: "1.5M", 2_000_000_000: "2G",
	} {
		if got := CompactCount(n); got != want {
			t.Errorf("CompactCount(%d) = %q, want %q", n, got, want)
		}
	}
}
