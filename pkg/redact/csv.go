package redact

import "strings"

// A CSV export (an identity store dump, a credential list attached to a
// phishing kit's report) names its password column once, in the header; the
// rows under it hold the values. The word walk offers csvHeaderAt a password
// word followed by ',' or the end of its line; a header line whose field it
// is gives that field of the rows that follow with the header's number of
// fields.

// csvMaxRows bounds how far under a header the column is read, and
// csvMaxHeader the length of a header line.
const (
	csvMaxRows   = 200
	csvMaxHeader = 512
)

// csvField reports a byte that may end a header's field: ',' or the line's end.
func csvField(s string, j int) bool {
	return j >= len(s) || s[j] == ',' || s[j] == '\n' || s[j] == '\r'
}

// csvHeaderAt reads the line of the password word [i,j) as a CSV header
// and takes its column in the rows under it; it returns where the rows
// end, or -1 when the line is no such header.
func (sc *scanner) csvHeaderAt(s string, i, j int) int {
	if !csvField(s, j) || (i > 0 && s[i-1] != ',' && s[i-1] != '\n') || !passwordKey(s[i:j]) {
		return -1
	}
	a := max(0, i-csvMaxHeader)
	ls := strings.LastIndexByte(s[a:i], '\n') + 1 + a
	e := strings.IndexByte(s[j:min(len(s), j+csvMaxHeader)], '\n')
	if (ls == a && a > 0) || e < 0 {
		return -1 // a line too long for a header, or no row under it
	}
	le := j + e
	col, nf := csvPasswordColumn(s[ls:le])
	if col < 0 {
		return -1
	}
	return sc.csvRows(s, le, col, nf)
}

func lineEnd(s string, p int) int {
	if e := strings.IndexByte(s[p:], '\n'); e >= 0 {
		return p + e
	}
	return len(s)
}

// csvPasswordColumn returns the index of the password field of a header
// line and its number of fields, or -1: two or more comma-separated names,
// one of them a password word ("password", "Password", "user_password").
func csvPasswordColumn(line string) (col, nf int) {
	line = strings.TrimSuffix(line, "\r")
	if len(line) > csvMaxHeader || strings.Count(line, ",") == 0 {
		return -1, 0
	}
	col = -1
	for f := range strings.SplitSeq(line, ",") {
		name := strings.Trim(strings.TrimSpace(f), `"`)
		if name == "" || len(name) > 40 || !allClass(name, cKey) {
			return -1, 0
		}
		if passwordKey(name) && classifyKey(name).cls == keySecret {
			col = nf
		}
		nf++
	}
	return col, nf
}

// csvRows takes the field col of the rows from the newline at p on while
// they have nf fields; it returns where the rows end.
func (sc *scanner) csvRows(s string, p, col, nf int) int {
	for r := 0; r < csvMaxRows && p < len(s); r++ {
		ls := p + 1
		le := lineEnd(s, ls)
		row := strings.TrimSuffix(s[ls:le], "\r")
		if strings.Count(row, ",") != nf-1 || strings.IndexByte(row, '"') >= 0 {
			return ls // a quoted or ragged row: not read as fields
		}
		re := ls + len(row)
		fs := ls
		for k := 0; k < col; k++ {
			fs += strings.IndexByte(s[fs:re], ',') + 1
		}
		fe := re
		if c := strings.IndexByte(s[fs:re], ','); c >= 0 {
			fe = fs + c
		}
		if v := s[fs:fe]; credValueOK(v) && !referenceValue(v) {
			sc.add(fs, fe, tSecret, prioAssign)
		}
		p = le
	}
	return p
}
