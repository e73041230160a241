package redact

import "strings"

// Most strings a walk of tool results meets are short and of a few shapes: field names and
// enumerations ("country", "NL", "ConsoleLogin"), timestamps, and IPv4 and e-mail addresses
// written alone (a key or a field). For these the scan's answer is known, so find gives it
// without scanning: nothing for a word or a timestamp, the whole string for an address.
// TestQuickShapes and FuzzQuickShapes hold find to the full scan's answer on these shapes.

// maxQuick is the length of the longest quick shape: a timestamp with nanoseconds and an offset.
const maxQuick = len("2006-01-02T15:04:05.999999999-07:00")

// quickWord is the length of the longest quick word: every vendor prefix made of word
// characters needs a longer token (TestQuickShapes checks the rules), and the other
// detectors need punctuation, spaces or 24 characters and more.
const quickWord = 12

// quick reports whether s (at most maxQuick bytes) has a quick shape, and appends to dst
// what the scan finds in it: nothing, or s as a whole for an IPv4 or e-mail address.
func quick(dst []match, s string) ([]match, bool) {
	if s == "" {
		return dst, false
	}
	switch c := s[0]; {
	case isAlpha(c) || c == '_':
		if at := strings.IndexByte(s, '@'); at >= 0 {
			if !emailShape(s[:at], s[at+1:]) {
				return dst, false
			}
			return append(dst, match{start: 0, end: len(s), typ: tEmail, prio: prioEmail}), true
		}
		return dst, quickWordShape(s)
	case isDigit(c):
		if textIPv4(s) {
			return append(dst, match{start: 0, end: len(s), typ: tIP, prio: prioIP}), true
		}
		return dst, timestampShape(s)
	}
	return dst, false
}

// quickWordShape reports a word of at most quickWord letters, digits and '_' that starts
// with a letter or '_'.
func quickWordShape(s string) bool {
	if len(s) > quickWord {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWord(s[i]) {
			return false
		}
	}
	return true
}

// emailShape reports an e-mail address local@domain whose local part is a quick word and
// whose domain is two or more labels of letters and digits, each a quick word led by a
// letter, the last of letters alone: "user1@example.com". With no '-', '+' or '%' no other
// detector starts inside it, and with no label led by "eyJ" no JWT does.
func emailShape(local, domain string) bool {
	if !quickWordShape(local) {
		return false
	}
	labels := 0
	for domain != "" {
		label := domain
		if k := strings.IndexByte(domain, '.'); k >= 0 {
			label, domain = domain[:k], domain[k+1:]
			if domain == "" {
				return false // a trailing dot
			}
		} else {
			domain = ""
		}
		if label == "" || len(label) > quickWord || !isAlpha(label[0]) || strings.HasPrefix(label, "eyJ") || !allClass(label, cDigit|cUpper|cLower) {
			return false
		}
		labels++
		if domain == "" && (len(label) < 2 || !allClass(label, cUpper|cLower)) {
			return false
		}
	}
	return labels >= 2
}

// timestampShape reports an RFC 3339 date and time with a 'T', seconds, up to nine digits of
// fraction, and an optional 'Z' or numeric offset: "2025-11-26T10:04:05.123Z". Only the
// layout is checked (every digit is a digit); the digits' values do not matter to detection.
func timestampShape(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout) || !digitsAt(s, layout) {
		return false
	}
	rest := s[len(layout):]
	if len(rest) > 1 && rest[0] == '.' {
		k := 1
		for k < len(rest) && isDigit(rest[k]) && k <= 9 {
			k++
		}
		if k == 1 {
			return false
		}
		rest = rest[k:]
	}
	switch {
	case rest == "" || rest == "Z":
		return true
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-'):
		return digitsAt(rest[1:], "dd:dd")
	}
	return false
}

// digitsAt reports whether s begins with layout, where 'd' in layout stands for any digit.
func digitsAt(s, layout string) bool {
	if len(s) < len(layout) {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' {
			if !isDigit(s[i]) {
				return false
			}
		} else if s[i] != layout[i] {
			return false
		}
	}
	return true
}
