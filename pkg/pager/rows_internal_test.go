package pager

import (
	"strings"
	"testing"
)

func TestRowsByDisplayWidth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		width int
		want  int
	}{
		{"short\nlines\n", 80, 2},
		{strings.Repeat("a", 81), 80, 2},
		{strings.Repeat("日", 40), 80, 1},       // 80 columns exactly
		{strings.Repeat("日", 41), 80, 2},       // 82
		{"a" + strings.Repeat("日", 40), 80, 2}, // the last wide character does not fit in column 80
		{strings.Repeat("日", 45), 9, 12},       // four a row: a wide character never straddles two rows
		{"\x1b[1m" + strings.Repeat("a", 80) + "\x1b[0m", 80, 1},
	} {
		if got := rows(tc.text, tc.width); got != tc.want {
			t.Errorf("rows(%q, %d) = %d, want %d", tc.text, tc.width, got, tc.want)
		}
	}
}
