package tool

import "unicode/utf8"

// CutText returns the longest start of s of at most n bytes that ends at a character boundary
// and not inside a token-like run (a JWT, a "ghp_" token, a key): a run the cut falls in is
// left out whole, so no first part of a secret, too short for redaction to recognise, is kept.
func CutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := max(n, 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i > 0 && tokenByte(s[i-1]) && tokenByte(s[i]) {
		for i > 0 && tokenByte(s[i-1]) {
			i--
		}
	}
	return s[:i]
}

// tokenByte reports whether c can be part of a token: base64 (standard and URL), hex, and the
// separators of JWTs and prefixed tokens.
func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == '+' || c == '/' || c == '=' || c == '~' || c == '%'
}
