package redact

import "strings"

// A CSV export (an identity store dump, a credential list attached to a
// phishing kit's report) names its password column once, in the header; the
// rows under it hold the values. scanCSVPasswords reads a header line whose
// field is a password word and takes that field of the rows that follow
// with the header's number of fields.

// csvMaxRows bounds how far under a header the column is read.
const csvMaxRows = 200

func (sc *scanner) scanCSVPasswords(s string) {
	for from := 0; from < len(s); {
		k := indexFoldASSWORD(s[from:])
		if k < 0 {
			return
		}
		p := from + k
		ls := strings.LastIndexByte(s[:p], '\n') + 1
		le := lineEnd(s, p)
		from = le
		col, nf := csvPasswordColumn(s[ls:le])
		if col < 0 {
			continue
		}
		from = sc.csvRows(s, le, col, nf)
	}
}

// indexFoldASSWORD finds "assword" or "ASSWORD" (the rest of a password
// word in either case).
func indexFoldASSWORD(s string) int {
	a, b := strings.Index(s, "assword"), strings.Index(s, "ASSWORD")
	if a < 0 || (b >= 0 && b < a) {
		return b
	}
	return a
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
	if len(line) > 512 || strings.Count(line, ",") == 0 {
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
