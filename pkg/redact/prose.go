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
	if !copula {
		// "the admin password for web02 is …": a short qualifier between
		// the word and its copula
		if r := proseQualifier(s, q); r > q {
			v, copula = proseCopula(s, r)
		}
	}
	if v >= n || (!copula && !isAlnum(s[v]) && !quoteAt(s, v)) {
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
	ki := sc.keyInfos.classify(key)
	if ki.cls == keyNone || ki.accessKeyID {
		return -1
	}
	switch {
	case ki.cls == keySecret && copula && proseSecretOK(val, quoted):
		sc.add(vs, ve, tSecret, prioAssign)
	case ki.cls == keySecret && hasSuffixFold(key, "passphrase") && passphraseOK(val, quoted):
		// `passphrase "correct horse battery staple"`, "the passphrase was
		// correct-horse-battery-staple": words, no digit needed
		sc.add(vs, ve, tSecret, prioAssign)
	case ki.cls == keySecret && !copula && passwordWord(key) &&
		(quoted && proseSecretOK(val, true) || !quoted && strongPassword(val)):
		// "password Tr0mbone!77 for the db", `passphrase "red-Otter-19"`:
		// without a copula the value must look like a password on its own
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

// proseQualifier skips a short qualifier after a key word up to its copula:
// "for web02", "for the db", "of user bob", "on the new host". It returns
// where the copula starts, or -1 when no copula follows within four words.
func proseQualifier(s string, q int) int {
	p := q
	for k := 0; k < 5; k++ {
		w := p
		for w < len(s) && (ctab[s[w]]&cKey != 0 || s[w] == '@') && w-p < 40 {
			w++
		}
		if w == p || w >= len(s) || s[w] != ' ' {
			return -1
		}
		word := s[p:w]
		if k == 0 {
			if !(eqFold(word, "for") || eqFold(word, "of") || eqFold(word, "on") || eqFold(word, "to") ||
				eqFold(word, "at") || eqFold(word, "in")) {
				return -1
			}
		} else if eqFold(word, "is") || eqFold(word, "was") {
			return p
		}
		p = w + 1
		for p < len(s) && s[p] == ' ' {
			p++
		}
	}
	return -1
}

// passwordWord reports a key that names a password itself (not any
// secret): password, passwd, pwd, passphrase, passcode.
func passwordWord(key string) bool {
	return hasSuffixFold(key, "password") || hasSuffixFold(key, "passwd") || hasSuffixFold(key, "pwd") ||
		hasSuffixFold(key, "passphrase") || hasSuffixFold(key, "passcode") ||
		eqFold(key, "requirepass") || eqFold(key, "masterauth") // redis.conf's directives
}

// strongPassword checks an unquoted value written right after a password
// word with no copula ("password Tr0mbone!77"): 8 to 64 bytes with a letter,
// a digit and either a symbol or both cases, and not a name, a path, a
// reference, a hash or a description such as "SHA256-hashed".
func strongPassword(v string) bool {
	if len(v) < 8 || len(v) > 64 || !proseSecretOK(v, false) {
		return false
	}
	var up, lo, sym bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			lo = true
		case isDigit(c):
		case c == '/' || c == '\\' || c == '=' || c == '(' || c == '`':
			return false // a path, an assignment or code, not a password
		default:
			sym = true
		}
	}
	if !sym && !(up && lo) {
		return false
	}
	if allClass(v, cHex) {
		return false
	}
	return !describes(v)
}

// describes reports a value that reads as a description, not a password:
// "SHA256-hashed", "2FA-protected", "AES-256-encrypted".
func describes(v string) bool {
	k := strings.LastIndexByte(v, '-')
	return k > 0 && len(v)-k-1 >= 4 && allClass(v[k+1:], cLower)
}

// passphraseOK checks a passphrase of words: quoted, 12 to 100 bytes with a
// space or dash between three or more words; unquoted, three or more words
// joined by dashes. Placeholders and references are not passphrases.
func passphraseOK(v string, quoted bool) bool {
	if len(v) < 12 || len(v) > 100 || !hasLetter(v) || placeholderValue(v) || referenceValue(v) ||
		strings.Contains(v, "://") {
		return false
	}
	sep := " -"
	if !quoted {
		sep = "-"
		if strings.IndexByte(v, ' ') >= 0 {
			return false
		}
	}
	words := 0
	for w := range strings.FieldsFuncSeq(v, func(r rune) bool { return strings.ContainsRune(sep, r) }) {
		if len(w) < 2 {
			return false
		}
		words++
	}
	return words >= 3
}
