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
	n := len(s)
	e := c + 1
	if e < n && s[e] == '*' {
		e++
	} else {
		e = spanClass(s, c+1, cDigit, 6)
		if e-c-1 < 1 || e-c-1 > 5 {
			return -1
		}
	}
	if e >= n || s[e] != ':' {
		return -1
	}
	hs := c
	for hs > 0 && pgpassField(s[hs-1]) && c-hs < 256 {
		if hs >= 2 && s[hs-2] == '\\' && (s[hs-1] == 'n' || s[hs-1] == 't') {
			break // an escaped newline or tab starts the line
		}
		hs--
	}
	host := s[hs:c]
	// a host is a name, '*' or an address; a line quoted in prose
	// ("the line 10.2.3.4:6432:*:billing:…") starts after a space, which is
	// taken only when the database field is the wildcard '*' and the host an
	// address or a dotted name
	dbStar := e+2 < n && s[e+1] == '*' && s[e+2] == ':'
	if host == "" || (host != "*" && !hasLetter(host) && !validIPv4(host)) ||
		!(pgpassLineStart(s, hs) || dbStar && hs > 0 && s[hs-1] == ' ' && (validIPv4(host) || strings.IndexByte(host, '.') > 0)) {
		return -1
	}
	f := e + 1
	for j := 0; j < 2; j++ {
		g := f
		for g < n && pgpassField(s[g]) && g-f < 128 {
			g++
		}
		if g == f || g >= n || s[g] != ':' {
			return -1
		}
		f = g + 1
	}
	ve := f
	for ve < n && s[ve] > ' ' && s[ve] < 0x7f && s[ve] != '"' && ve-f < 256 {
		if s[ve] == '\\' {
			r := ve
			for r < n && s[r] == '\\' {
				r++
			}
			if r >= n || s[r] == 'n' || s[r] == 'r' || s[r] == '"' {
				break // an escaped newline or quote: the line ends
			}
			ve = r + 1 // \: and \\ are escapes inside the password
			continue
		}
		if s[ve] == ':' {
			break
		}
		ve++
	}
	if ve-f < 3 || !pgpassLineEnd(s, ve) || allClass(s[f:ve], cLower) || placeholderValue(s[f:ve]) {
		return -1
	}
	sc.add(f, ve, tSecret, prioCred)
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
