package redact

import "strings"

// Password files: the password field of PostgreSQL password-file lines
// (host:port:database:user:password).

// pgpassAt handles lines of PostgreSQL password files,
// host:port:database:user:password, where any of the first four may be '*'
// and the port is digits: the last field is the password. A line starts at
// the start of the text, a newline, an escaped \n (the file inside JSON) or
// a quote, and ends the same way; a password with an unescaped colon, or
// of lower-case letters only ("session:1:user:profile:avatar" is a cache
// key), is not taken. The word walk calls it at the colon before a port
// (digits or '*') followed by a colon; it returns the end of the password,
// or -1.
func (sc *scanner) pgpassAt(s string, c int) int {
	e := pgpassPortEnd(s, c)
	if e < 0 {
		return -1
	}
	hs := pgpassHostStart(s, c)
	if !pgpassHost(s, hs, c, e) {
		return -1
	}
	f := pgpassPasswordStart(s, e+1)
	if f < 0 {
		return -1
	}
	ve := pgpassPasswordEnd(s, f)
	if ve-f < 3 || !pgpassLineEnd(s, ve) || allClass(s[f:ve], cLower) || placeholderValue(s[f:ve]) {
		return -1
	}
	sc.add(f, ve, tSecret, prioCred)
	return ve
}

// pgpassPortEnd reads the port field after the colon at c: '*' or 1-5
// digits, then a colon; it returns that colon's index, or -1.
func pgpassPortEnd(s string, c int) int {
	e := c + 1
	if e < len(s) && s[e] == '*' {
		e++
	} else {
		e = spanClass(s, c+1, cDigit, 6)
		if e-c-1 < 1 || e-c-1 > 5 {
			return -1
		}
	}
	if e >= len(s) || s[e] != ':' {
		return -1
	}
	return e
}

// pgpassHostStart walks back from the colon at c over the host field; an
// escaped newline or tab starts the line.
func pgpassHostStart(s string, c int) int {
	hs := c
	for hs > 0 && pgpassField(s[hs-1]) && c-hs < 256 {
		if hs >= 2 && s[hs-2] == '\\' && (s[hs-1] == 'n' || s[hs-1] == 't') {
			break
		}
		hs--
	}
	return hs
}

// pgpassHost reports whether s[hs:c] is the host of a password-file line
// whose port field ends at e. A host is a name, '*' or an address; a line
// quoted in prose ("the line 10.2.3.4:6432:*:billing:…") starts after a
// space, which is taken only when the database field is the wildcard '*'
// and the host an address or a dotted name.
func pgpassHost(s string, hs, c, e int) bool {
	host := s[hs:c]
	if host == "" || (host != "*" && !hasLetter(host) && !validIPv4(host)) {
		return false
	}
	if pgpassLineStart(s, hs) {
		return true
	}
	dbStar := e+2 < len(s) && s[e+1] == '*' && s[e+2] == ':'
	return dbStar && hs > 0 && s[hs-1] == ' ' && (validIPv4(host) || strings.IndexByte(host, '.') > 0)
}

// pgpassPasswordStart skips the database and user fields from f, each
// ended by a colon; it returns where the password starts, or -1.
func pgpassPasswordStart(s string, f int) int {
	for j := 0; j < 2; j++ {
		g := f
		for g < len(s) && pgpassField(s[g]) && g-f < 128 {
			g++
		}
		if g == f || g >= len(s) || s[g] != ':' {
			return -1
		}
		f = g + 1
	}
	return f
}

// pgpassPasswordEnd returns the end of the password at f: it stops at an
// unescaped colon, a quote, a space, or an escaped newline or quote; \: and
// \\ are escapes inside the password.
func pgpassPasswordEnd(s string, f int) int {
	n := len(s)
	ve := f
	for ve < n && s[ve] > ' ' && s[ve] < 0x7f && s[ve] != '"' && s[ve] != ':' && ve-f < 256 {
		if s[ve] != '\\' {
			ve++
			continue
		}
		r := ve
		for r < n && s[r] == '\\' {
			r++
		}
		if r >= n || s[r] == 'n' || s[r] == 'r' || s[r] == '"' {
			break
		}
		ve = r + 1
	}
	return ve
}

func pgpassField(b byte) bool {
	return isAlnum(b) || b == '.' || b == '-' || b == '_' || b == '*'
}

func pgpassLineStart(s string, i int) bool {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return i == 0 || s[i-1] == '\n' || s[i-1] == '"' || (i >= 2 && s[i-2] == '\\' && s[i-1] == 'n')
}

func pgpassLineEnd(s string, e int) bool {
	if e >= len(s) {
		return true
	}
	switch s[e] {
	case '\n', '\r', '"', ' ', '\t':
		return true
	case '\\':
		for e < len(s) && s[e] == '\\' {
			e++
		}
		return e < len(s) && (s[e] == 'n' || s[e] == 'r' || s[e] == '"')
	}
	return false
}
