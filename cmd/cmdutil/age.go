package cmdutil

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var ageSegment = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([a-zµμ]+)`)

// ParseAge parses a positive age: a Go duration ("12h", "90m", "1h30m") whose units may also
// include d (24h) and w (7d), as in "30d", "2w" or "1w2d".
func ParseAge(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, UsageErrorf("empty duration: use e.g. 30d, 2w, 12h or 90m")
	}
	if strings.HasPrefix(in, "-") {
		return 0, UsageErrorf("invalid duration %q: it must be positive", s)
	}
	rest := strings.TrimPrefix(in, "+")
	var total float64
	for rest != "" {
		m := ageSegment.FindStringSubmatch(rest)
		if m == nil {
			return 0, UsageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
		}
		rest = rest[len(m[0]):]
		var d float64
		switch m[2] {
		case "d", "w":
			n, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return 0, UsageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
			}
			d = n * float64(24*time.Hour)
			if m[2] == "w" {
				d *= 7
			}
		default:
			pd, err := time.ParseDuration(m[0])
			if err != nil {
				return 0, UsageErrorf("invalid duration %q: use e.g. 30d, 2w, 12h or 90m", s)
			}
			d = float64(pd)
		}
		total += d
	}
	if total >= math.MaxInt64 {
		return 0, UsageErrorf("duration %q is too long", s)
	}
	if d := time.Duration(total); d > 0 {
		return d, nil
	}
	return 0, UsageErrorf("invalid duration %q: it must be positive", s)
}
