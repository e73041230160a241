package redact

import (
	"strings"
)

// Prose: a key word in a sentence followed by its value ("the admin password was ...").

// proseStatement handles a key word in a sentence followed by its value:
// "the admin password was Dragon4036!", "password is now hunter2", "the
// leaked token wf8Y… was revoked". The key ends at ke and q is the next
// word. A secret word needs a copula (is, was, set to, changed to) and a
// value with a letter and a digit ("password was reset" is not a value); a
// token word takes a random token, with or without a copula. It returns
// ke when it found a value, or -1.
func (sc *scanner) proseStatement(s string, i, ke, q int) int {
	n := len(s)
	v, copula := proseCopula(s, q)
	if v >= n || (!copula && !isAlnum(s[v])) {
		return -1
	}
	if !copula {
		if _, _, ok := matchVendor(s, v); ok {
			return -1 // "token ghp_…": the vendor format is found on its own
		}
	}
	vs, ve, quoted, ok := parseValue(s, v, false, false)
	if !ok {
		return -1
	}
	for !quoted && ve > vs && strings.IndexByte(".,;:)", s[ve-1]) >= 0 {
		ve--
	}
	val := s[vs:ve]
	if len(val) < 6 {
		return -1
	}
	key := s[i:ke]
	ki := classifyKey(key)
	if ki.cls == keyNone || ki.accessKeyID {
		return -1
	}
	switch {
	case ki.cls == keySecret && copula && proseSecretOK(val, quoted):
		sc.add(vs, ve, tSecret, prioAssign)
	case ki.cls == keyAPI && (copula || hasSuffixFold(key, "token")) && strongToken(val):
		sc.add(vs, ve, tAPIKey, prioAssign)
	default:
		return -1 // not a statement: the word is scanned as before ("Api-Token …" headers)
	}
	return ke
}

// proseCopula skips "is", "was", "is now", "was set to", "set to",
// "changed to" (and "は" is handled with the Japanese keywords) at q; it
// returns where the value starts and whether a copula was there.
func proseCopula(s string, q int) (int, bool) {
	p := q
	found := false
	for k := 0; k < 3; k++ {
		w := p
		for w < len(s) && isAlpha(s[w]) && w-p < 8 {
			w++
		}
		if w == p || w >= len(s) || s[w] != ' ' {
			break
		}
		word := s[p:w]
		if !(eqFold(word, "is") || eqFold(word, "was") || eqFold(word, "now") || eqFold(word, "set") ||
			eqFold(word, "changed") || eqFold(word, "to")) {
			break
		}
		found = true
		p = w + 1
		for p < len(s) && s[p] == ' ' {
			p++
		}
	}
	return p, found
}

// proseSecretOK checks a password named in a sentence: 6 to 64 bytes with a
// letter and a digit, not a placeholder, a reference, a URL or a short
// upper-case name such as SHA256.
func proseSecretOK(v string, quoted bool) bool {
	if len(v) < 6 || len(v) > 64 || !hasLetter(v) || !strings.ContainsAny(v, "0123456789") {
		return false
	}
	if !quoted && strings.IndexByte(v, ' ') >= 0 {
		return false
	}
	if len(v) <= 8 && allClass(v, cUpper|cDigit) {
		return false
	}
	return !placeholderValue(v) && !referenceValue(v) && !strings.Contains(v, "://") && !identifierLike(v)
}
