// Package format writes counts, times and IDs the way every alertchat output shows them to
// people.
package format

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ShortIDLen is how many characters of an ID tables show.
const ShortIDLen = 8

// ShortID is the first ShortIDLen characters of id.
func ShortID(id string) string {
	if utf8.RuneCountInString(id) <= ShortIDLen {
		return id
	}
	return string([]rune(id)[:ShortIDLen])
}

// RFC3339 writes t in UTC, to the second.
func RFC3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Plural is "1 history" or "3 histories".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// CompactCount writes a count for people: 950, 1.2k, 3.4M.
func CompactCount(n int64) string {
	f := float64(n)
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case f < 999_950:
		return trimZero(fmt.Sprintf("%.1f", f/1e3)) + "k"
	case f < 999_950_000:
		return trimZero(fmt.Sprintf("%.1f", f/1e6)) + "M"
	}
	return trimZero(fmt.Sprintf("%.1f", f/1e9)) + "G"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// RelativeTime says how long before now t was, for people.
func RelativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}
