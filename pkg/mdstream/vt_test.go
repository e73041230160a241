package mdstream_test

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// vt is a small terminal for tests: it keeps the screen's rows and follows the sequences the
// renderer uses (CR, LF, cursor up/left, erase line/display, colours), with automatic wrap.
type vt struct {
	width int
	lines [][]rune
	row   int
	col   int
}

func newVT(width int) *vt { return &vt{width: width, lines: [][]rune{nil}} }

func (v *vt) Write(p []byte) (int, error) {
	s := string(p)
	for len(s) > 0 {
		if strings.HasPrefix(s, "\x1b[") {
			end := 2
			for end < len(s) && (s[end] < '@' || s[end] > '~') {
				end++
			}
			if end == len(s) {
				return len(p), nil
			}
			v.csi(s[2:end], s[end])
			s = s[end+1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		switch r {
		case '\r':
			v.col = 0
		case '\n': // the terminal's output processing (onlcr) makes it CR LF
			v.down()
			v.col = 0
		default:
			w := runewidth.RuneWidth(r)
			if w == 0 {
				continue // a combining or zero-width character: nothing to place
			}
			if v.col+w > v.width {
				v.down()
				v.col = 0
			}
			line := v.line()
			for len(line) < v.col+w {
				line = append(line, ' ')
			}
			line[v.col] = r
			if w == 2 {
				line[v.col+1] = 0
			}
			v.lines[v.row] = line
			v.col += w
		}
	}
	return len(p), nil
}

func (v *vt) line() []rune { return v.lines[v.row] }

func (v *vt) down() {
	v.row++
	if v.row == len(v.lines) {
		v.lines = append(v.lines, nil)
	}
}

func (v *vt) csi(params string, final byte) {
	n, err := strconv.Atoi(params)
	if err != nil || n == 0 {
		n = 1
	}
	switch final {
	case 'A':
		v.row = max(0, v.row-n)
	case 'D':
		v.col = max(0, v.col-n)
	case 'K':
		if v.col < len(v.line()) {
			v.lines[v.row] = v.line()[:v.col]
		}
	case 'J':
		if v.col < len(v.line()) {
			v.lines[v.row] = v.line()[:v.col]
		}
		v.lines = v.lines[:v.row+1]
	}
}

// text is the screen, trailing spaces removed from each row.
func (v *vt) text() string {
	rows := make([]string, len(v.lines))
	for i, l := range v.lines {
		rows[i] = strings.TrimRight(strings.ReplaceAll(string(l), "\x00", ""), " ")
	}
	return strings.TrimRight(strings.Join(rows, "\n"), "\n")
}
