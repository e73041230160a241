package redact

// Byte classes. Detection works on ASCII structure only; every byte >= 0x80
// (UTF-8 lead and continuation bytes) is class 0, i.e. a separator, which is
// what lets values glued to Japanese text be found and keeps every match on
// character boundaries.
const (
	cDigit uint16 = 1 << iota
	cUpper
	cLower
	cUnder   // '_'
	cHex     // 0-9 a-f A-F
	cB64     // A-Z a-z 0-9 + /
	cKey     // A-Z a-z 0-9 _ . -   (characters of an assignment key)
	cLocal   // e-mail local part: A-Z a-z 0-9 . _ % + -
	cDomain  // A-Z a-z 0-9 -
	cV6      // 0-9 a-f A-F : .
	cURL     // characters that may appear in a URL
	cB64URL  // A-Z a-z 0-9 _ -
	cSpace   // ' ' '\t'
	cNumSep  // ' ' '-' '.' '(' ')' '\t'  (separators inside phone numbers)
	cTokBody // A-Z a-z 0-9 _ - . + / = ~  (generic token characters)
)

// ctab holds the classes of every byte, built once from classRules.
var ctab = buildClassTable()

// classRules says, class by class, which bytes belong to it; a byte's entry
// in ctab is the union of the classes whose test it passes.
var classRules = []struct {
	class uint16
	in    func(b byte) bool
}{
	{cDigit, isDigit},
	{cUpper, func(b byte) bool { return b >= 'A' && b <= 'Z' }},
	{cLower, func(b byte) bool { return b >= 'a' && b <= 'z' }},
	{cUnder, func(b byte) bool { return b == '_' }},
	{cHex, isHexByte},
	{cB64, func(b byte) bool { return asciiAlnum(b) || b == '+' || b == '/' }},
	{cKey, func(b byte) bool { return asciiAlnum(b) || b == '_' || b == '.' || b == '-' }},
	{cLocal, func(b byte) bool { return asciiAlnum(b) || b == '.' || b == '_' || b == '%' || b == '+' || b == '-' }},
	{cDomain, func(b byte) bool { return asciiAlnum(b) || b == '-' }},
	{cV6, func(b byte) bool { return isHexByte(b) || b == ':' || b == '.' }},
	{cURL, isURLByte},
	{cB64URL, func(b byte) bool { return asciiAlnum(b) || b == '_' || b == '-' }},
	{cSpace, func(b byte) bool { return b == ' ' || b == '\t' }},
	{cNumSep, func(b byte) bool { return b == ' ' || b == '\t' || b == '-' || b == '.' || b == '(' || b == ')' }},
	{cTokBody, func(b byte) bool {
		return asciiAlnum(b) || b == '_' || b == '-' || b == '.' || b == '+' || b == '/' || b == '=' || b == '~'
	}},
}

func buildClassTable() [256]uint16 {
	var t [256]uint16
	for c := range t {
		for _, r := range classRules {
			if r.in(byte(c)) {
				t[c] |= r.class
			}
		}
	}
	return t
}

// asciiAlnum is isAlnum without the table, for building the table.
func asciiAlnum(b byte) bool {
	return isDigit(b) || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z')
}

func isHexByte(b byte) bool {
	return isDigit(b) || (b >= 'A' && b <= 'F') || (b >= 'a' && b <= 'f')
}

// isURLByte: printable ASCII except quotes, angle brackets, braces, the
// backslash, the backtick and the pipe, which end a URL in text.
func isURLByte(b byte) bool {
	if asciiAlnum(b) {
		return true
	}
	if b <= 0x20 || b >= 0x7f {
		return false
	}
	switch b {
	case '"', '\'', '<', '>', '`', '\\', '{', '}', '|':
		return false
	}
	return true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isAlpha(b byte) bool { return ctab[b]&(cUpper|cLower) != 0 }
func isAlnum(b byte) bool { return ctab[b]&(cDigit|cUpper|cLower) != 0 }

// isWord reports whether b is an ASCII letter, digit or underscore.
func isWord(b byte) bool { return ctab[b]&(cDigit|cUpper|cLower|cUnder) != 0 }

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// leftBoundary reports whether a token may start at i: the previous byte is
// not a word byte, or it is the letter of a JSON/C escape such as "\n" (so a
// value right after an escaped newline inside JSON-escaped text is found).
//
// A placeholder right before i counts as a word: a value glued to a redacted
// value is not taken on its own, so that redacting twice changes nothing.
func leftBoundary(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	if c == ']' {
		return !phBefore(s, i)
	}
	if !isWord(c) {
		return true
	}
	return isEscapeLetterAt(s, i-1)
}

// isEscapeLetterAt reports whether s[j] is the n/t/r of a "\n", "\t", "\r" escape.
func isEscapeLetterAt(s string, j int) bool {
	c := s[j]
	if c != 'n' && c != 't' && c != 'r' {
		return false
	}
	if j < 1 || s[j-1] != '\\' {
		return false
	}
	if j < 2 || s[j-2] != '\\' {
		return true
	}
	// "\\n" is an escaped backslash before a letter in text escaped once ("C:\\nodejs"), and
	// an escaped newline in text escaped twice (a tool result inside a tool result): the
	// latter when a digit, a capital, '(' or '+' or a key word follows ("\\n110201543:AAH…",
	// "\\nAKIA…", "\\nsecret = …") or a vendor's token, which a path's folder names rarely
	// start with
	if j+1 < len(s) && (isDigit(s[j+1]) || isUpper(s[j+1]) || s[j+1] == '(' || s[j+1] == '+') {
		return true
	}
	if _, _, ok := matchVendor(s, j+1); ok {
		return true // "\\nsk-proj-…": a vendor's token
	}
	return keyWordAt(s, j+1)
}

// keyWordAt reports whether the identifier at k names a value (a password, secret or token
// key).
func keyWordAt(s string, k int) bool {
	e, may := keySpan(s, k)
	return may && isAlpha(s[k]) && classifyKey(s[k:e]).cls != keyNone
}

// rightBoundary reports whether a token may end at i (exclusive).
func rightBoundary(s string, i int) bool {
	return i >= len(s) || (!isWord(s[i]) && !phAfter(s, i))
}

// span scans forward from i while bytes have class f; it stops after max bytes.
func spanClass(s string, i int, f uint16, max int) int {
	end := len(s)
	if max > 0 && i+max < end {
		end = i + max
	}
	for i < end && ctab[s[i]]&f != 0 {
		i++
	}
	return i
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if lower(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

// containsFold reports whether s holds word (lower case) in any case.
func containsFold(s, word string) bool {
	for k := 0; k+len(word) <= len(s); k++ {
		if lower(s[k]) == word[0] && hasPrefixFold(s[k:], word) {
			return true
		}
	}
	return false
}

func eqFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	return hasPrefixFold(a, b)
}
