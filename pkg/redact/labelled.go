package redact

import (
	"encoding/base64"
	"strings"
)

// Values known by the label written before them rather than by their own
// shape: a Heroku API key (a UUID, which alone is an identifier to keep), a
// Mailgun key in its 32-8-8 hex layout, the password of a "user NAME
// pass VALUE" line, and the credentials of an SMTP AUTH PLAIN command.

// labelledUUIDAt takes a UUID at i (the word [i,j) is its first group) when
// a Heroku credential label stands shortly before it on the same line
// ("heroku api key 0f1e…", "Heroku token: …"). Other UUIDs are identifiers
// and stay.
func (sc *scanner) labelledUUIDAt(s string, i, j int) int {
	e := i + 36
	if j-i != 8 || e > len(s) || s[j] != '-' || !uuidLayout(s[i:e]) || !allClass(strings.ReplaceAll(s[i:e], "-", ""), cHex) || !rightBoundary(s, e) {
		return -1
	}
	if !labelBefore(s, i, "heroku") {
		return -1
	}
	sc.add(i, e, tAPIKey, prioVendor)
	return e
}

// labelBefore reports the vendor's name shortly before i on the same line,
// followed somewhere before i by a credential word.
func labelBefore(s string, i int, vendor string) bool {
	a := max(0, i-40)
	if k := strings.LastIndexByte(s[a:i], '\n'); k >= 0 {
		a += k + 1
	}
	before := strings.ToLower(s[a:i])
	h := strings.LastIndex(before, vendor)
	return h >= 0 && containsAny(before[h:], "key", "token", "auth", "credential", "secret")
}

// mailgunKeyAt takes a Mailgun API or signing key in its newer layout, 32
// hex digits, '-', 8, '-', 8 ("…5de2-d4d0cd78-da75527e"), at the word [i,j)
// when a Mailgun credential label stands before it (the public rule sets ask
// for the vendor's name too: the layout alone is rare but not unique).
func (sc *scanner) mailgunKeyAt(s string, i, j int) int {
	e := j + 18
	if j-i != 32 || e > len(s) || s[j] != '-' || s[j+9] != '-' || !isLowerHex(s[i:j]) ||
		!isLowerHex(s[j+1:j+9]) || !isLowerHex(s[j+10:e]) || !rightBoundary(s, e) ||
		!(labelBefore(s, i, "mailgun") || mailgunAfter(s, e)) {
		return -1
	}
	sc.add(i, e, tAPIKey, prioVendor)
	return e
}

// mailgunAfter reports the vendor's host later on the line of a key ending
// at e, as its documentation writes a call: curl --user 'api:KEY'
// https://api.mailgun.net/v3/….
func mailgunAfter(s string, e int) bool {
	l := s[e:min(len(s), e+160)]
	if k := strings.IndexByte(l, '\n'); k >= 0 {
		l = l[:k]
	}
	return strings.Contains(strings.ToLower(l), "mailgun.net")
}

// userPassAt reads "user NAME pass VALUE" (also "user: NAME pass: VALUE",
// "username"/"login" for "user") at the word "pass" [i,j): the value is a
// password when it has a letter and a digit and is not a placeholder. "pass"
// alone is an ordinary word, so the user label and a name must come first.
func (sc *scanner) userPassAt(s string, i, j int) int {
	if !userLabelBefore(s, i) {
		return -1
	}
	n := len(s)
	v := j
	if v < n && (s[v] == ':' || s[v] == '=') {
		v++
	}
	if v >= n || s[v] != ' ' {
		return -1
	}
	for v < n && s[v] == ' ' {
		v++
	}
	e := v
	for e < n && s[e] > ' ' && s[e] != '"' && s[e] != '\'' && s[e] < 0x80 {
		e++
	}
	for e > v && strings.IndexByte(".,;)", s[e-1]) >= 0 {
		e-- // sentence punctuation after the value
	}
	val := s[v:e]
	if len(val) < 6 || !hasLetter(val) || !strings.ContainsAny(val, "0123456789") || placeholderValue(val) {
		return -1
	}
	sc.add(v, e, tSecret, prioCred)
	return e
}

// userLabelBefore reports "user NAME " (or "user: NAME ", "username NAME ",
// "login NAME ") ending at i.
func userLabelBefore(s string, i int) bool {
	b := i
	for b > 0 && s[b-1] == ' ' {
		b--
	}
	if b == i {
		return false
	}
	a := b
	for a > 0 && s[a-1] > ' ' && b-a < 64 {
		a--
	}
	if a == b || strings.ContainsAny(s[a:b], ":=/") {
		return false
	}
	l := a
	for l > 0 && s[l-1] == ' ' {
		l--
	}
	if l == a {
		return false
	}
	w := strings.TrimSuffix(s[max(0, l-9):l], ":")
	for _, lab := range []string{"username", "user", "login"} {
		if len(w) >= len(lab) && eqFold(w[len(w)-len(lab):], lab) {
			p := len(w) - len(lab)
			return p == 0 || !isWord(w[p-1])
		}
	}
	return false
}

// smtpAuthAt takes the initial response of an SMTP (or IMAP, POP3) "AUTH
// PLAIN" command at the word "AUTH" [i,j): base64 of "authzid NUL user NUL
// password" (RFC 4616), a password as plainly as Basic credentials are.
func (sc *scanner) smtpAuthAt(s string, i, j int) int {
	if j-i != 4 || s[i:j] != "AUTH" || !strings.HasPrefix(s[j:], " PLAIN ") {
		return -1
	}
	v := j + 7
	e := spanClass(s, v, cB64, 1024)
	for e < len(s) && s[e] == '=' && (e-v)%4 != 0 {
		e++
	}
	if e-v < 8 || !rightBoundary(s, e) {
		return -1
	}
	var buf [768]byte
	n, err := base64.StdEncoding.Decode(buf[:], []byte(s[v:e]))
	if err != nil || strings.Count(string(buf[:n]), "\x00") != 2 {
		return -1
	}
	sc.add(v, e, tSecret, prioCred)
	return e
}
