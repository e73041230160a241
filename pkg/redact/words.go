package redact

import (
	"encoding/base64"
	"strings"
)

// scanWords is the single pass over the words of the text. At every word
// start it dispatches on the first byte: digits go to the numeric parser
// (phones, cards, SSNs, IPv4) and a few digit-led token formats; letters go to
// the vendor token table, JWTs, Authorization schemes and key=value
// assignments. Bytes that cannot start anything are skipped one by one with a
// single table lookup.
func (sc *scanner) scanWords(s string) {
	n := len(s)
	const word = cDigit | cUpper | cLower | cUnder
	for i := 0; i < n; {
		c := s[i]
		f := ctab[c]
		if f&word == 0 {
			switch {
			case c >= 0x80:
				i = sc.nonASCIIAt(s, i)
			case c == '+' || c == '(' || c == '-' || c == '/' || c == '*':
				i = sc.punctAt(s, i)
			default:
				i++
			}
			continue
		}
		if !leftBoundary(s, i) {
			i = spanClass(s, i, word, 0)
			continue
		}
		if isEscapeLetterAt(s, i) && i+1 < n && isWord(s[i+1]) {
			i++ // "\nTOKEN" in JSON-escaped text: the word starts after the escape
			continue
		}
		var j, next int
		if f&cDigit != 0 {
			j = spanClass(s, i, word, 0)
			next = sc.digitWord(s, i, j)
		} else if f&cUnder != 0 {
			j = spanClass(s, i, word, 0)
			next = sc.alphaDetectors(s, i, j)
		} else {
			var quiet bool
			if i, j, quiet = sc.quietRun(s, i); quiet {
				i = j
				continue
			}
			next = sc.alphaDetectors(s, i, j)
		}
		if next <= i {
			next = j
		}
		i = next
	}
}

// nonASCIIAt looks at a byte >= 0x80 at i: a Japanese keyword (パスワード,
// 電話) starts the rules it names; ideographic spaces, fullwidth forms and
// Unicode dashes mark the text for the folded pass. It returns where the
// scan continues.
func (sc *scanner) nonASCIIAt(s string, i int) int {
	n := len(s)
	switch c := s[i]; c {
	case 0xE3, 0xE6, 0xC3:
		if e := sc.cjkKeywordAt(s, i); e > i {
			return e
		}
		if c == 0xE3 && i+2 < n && s[i+1] == 0x80 && s[i+2] == 0x80 {
			sc.fold = true // U+3000 ideographic space
		}
	case 0xEF:
		if i+1 < n && (s[i+1] == 0xBC || s[i+1] == 0xBD) {
			sc.fold = true // fullwidth forms
		}
	case 0xE2:
		if i+2 < n && ((s[i+1] == 0x80 && s[i+2] >= 0x90 && s[i+2] <= 0x95) || (s[i+1] == 0x88 && s[i+2] == 0x92)) {
			sc.fold = true // dashes
		}
	}
	return i + 1
}

// punctAt looks at punctuation that can start a value: '+' or '(' before a
// phone number, a command-line option (" -p "), a login pair (" / ") and a
// .pgpass wildcard (":*:"). It returns where the scan continues.
func (sc *scanner) punctAt(s string, i int) int {
	n := len(s)
	switch c := s[i]; {
	case (c == '+' || c == '(') && i+1 < n && isDigit(s[i+1]) && leftBoundary(s, i):
		return sc.numeric(s, i)
	case c == '-' && i > 0 && s[i-1] == ' ' && i+2 < n && s[i+2] == ' ':
		if e := sc.cliOptionAt(s, i); e > 0 {
			return e // sshpass -p …, redis-cli -a …
		}
	case c == '/' && i > 0 && s[i-1] == ' ' && i+1 < n && s[i+1] == ' ':
		sc.loginPairAt(s, i) // login as root / W1nter!Sky
	case c == '*' && i > 0 && s[i-1] == ':' && i+1 < n && s[i+1] == ':':
		if e := sc.pgpassAt(s, i-1); e > 0 {
			return e // host:*:db:user:password
		}
	}
	return i + 1
}

// digitWord handles a word starting with a digit; [i,j) is its word run.
func (sc *scanner) digitWord(s string, i, j int) int {
	n := len(s)
	if e, typ, ok := matchVendor(s, i); ok {
		sc.add(i, e, typ, prioVendor)
		return e
	}
	if e := sc.atlasToken(s, i, j); e > 0 {
		return e
	}
	if e := sc.labelledUUIDAt(s, i, j); e > 0 {
		return e
	}
	d := spanClass(s, i, cDigit, 0)
	if d == j && d < n && s[d] == ':' && i > 0 && s[i-1] == ':' && d-i <= 5 {
		if e := sc.pgpassAt(s, i-1); e > 0 {
			return e // host:5432:db:user:password
		}
	}
	if d < j {
		// digits glued to letters: a phone extension ("5272x565") or a token
		if (s[d] == 'x' || s[d] == 'X') && d+1 < j && spanClass(s, d+1, cDigit, 0) == j {
			return sc.numeric(s, i)
		}
		return sc.tokenShapes(s, i, j)
	}
	nd := d - i
	if d < n {
		switch s[d] {
		case '|':
			// Facebook app access token: app id | secret
			if nd >= 15 && nd <= 16 {
				e := spanClass(s, d+1, cB64URL, 41)
				if l := e - d - 1; l >= 27 && l <= 40 && rightBoundary(s, e) {
					sc.add(i, e, tAPIKey, prioVendor)
					return e
				}
			}
		case ':':
			// Telegram bot token: bot id : AA...
			if nd >= 5 && nd <= 16 && d+1 < n && s[d+1] == 'A' {
				e := spanClass(s, d+1, cB64URL, 40)
				if e-d-1 == 35 && rightBoundary(s, e) && !placeholderBody(s[d+2:e]) {
					sc.add(i, e, tAPIKey, prioVendor)
					return e
				}
			}
		}
	}
	return sc.numeric(s, i)
}

// atlasToken matches a HashiCorp Terraform Cloud/Enterprise API token at
// the word [i,j): 14 alphanumerics, ".atlasv1.", 60-70 of [A-Za-z0-9_=-].
func (sc *scanner) atlasToken(s string, i, j int) int {
	n := len(s)
	if j-i != 14 || j+9 >= n || s[j] != '.' || !strings.HasPrefix(s[j:], ".atlasv1.") {
		return -1
	}
	e := spanClass(s, j+9, cB64URL, 71)
	for e < n && s[e] == '=' && e-j < 90 {
		e++
	}
	if l := e - j - 9; l < 60 || l > 70 || !rightBoundary(s, e) || !allClass(s[i:j], cDigit|cUpper|cLower) ||
		placeholderBody(s[i:j]) || placeholderBody(s[j+9:e]) {
		return -1
	}
	sc.add(i, e, tAPIKey, prioVendor)
	return e
}

// alphaDetectors offers the word [i,j), which starts with a letter or '_', to every
// detector that may start at it; scanWords skips the words quietWord calls quiet.
func (sc *scanner) alphaDetectors(s string, i, j int) int {
	if j-i == 9 && j < len(s) && s[j] == '-' && eqFold(s[i:j], "convertto") {
		if e := sc.secureStringAt(s, j); e > 0 {
			return e
		}
	}
	if e := sc.atlasToken(s, i, j); e > 0 {
		return e
	}
	if j-i == 4 && s[i] == 'A' {
		if e := sc.smtpAuthAt(s, i, j); e > 0 {
			return e // AUTH PLAIN <base64>
		}
	}
	if j < len(s) && (s[j] == ',' || s[j] == '\n' || s[j] == '\r') {
		if e := sc.csvHeaderAt(s, i, j); e > 0 {
			return e // user,password\n…
		}
	}
	if j-i == 3 && j+6 < len(s) && s[j] == ' ' && eqFold(s[i:j], "net") && hasPrefixFold(s[j+1:], "user ") {
		if e := sc.netUserAt(s, j+6); e > 0 {
			return e
		}
	}
	if e, typ, ok := matchVendor(s, i); ok {
		sc.add(i, e, typ, prioVendor)
		return e
	}
	if e := sc.labelledUUIDAt(s, i, j); e > 0 {
		return e
	}
	if j-i == 5 && j < len(s) && s[j] == '.' && hasPrefixFold(s[i:], "hooks.slack.com/") && !(i >= 3 && s[i-3:i] == "://") {
		// a Slack webhook written without its scheme, as config files and chat
		// messages often do: the host is the URL's
		sc.webhookURL(s, i, i, i+len("hooks.slack.com"))
	}
	if j-i == 4 && eqFold(s[i:j], "pass") {
		if e := sc.userPassAt(s, i, j); e > 0 {
			return e
		}
	}
	if s[i] == 'e' && strings.HasPrefix(s[i:], "eyJ") {
		if e := jwtEnd(s, i); e > 0 {
			sc.add(i, e, tAPIKey, prioVendor)
			return e
		}
	}
	if w := j - i; w >= 5 && w <= 6 {
		if e := sc.authScheme(s, i, j); e > 0 {
			return e
		}
	}
	if mayAssign(s, i, j) {
		if e := sc.assignment(s, i); e > 0 {
			return e
		}
	}
	return sc.tokenShapes(s, i, j)
}

// mayAssign is a cheap test of what follows the word [i,j) before the key
// is examined: an operator, a quote, a key continuation ('.', '-'), or after
// spaces an operator, a quote or the first letter of a type name.
func mayAssign(s string, i, j int) bool {
	if j >= len(s) {
		return false
	}
	switch s[j] {
	case '.', '-', '"', '\'', '\\', ':', '=', '!', '?', '+', '|', '>', '[', ']', '(':
		return true
	case ' ', '\t':
		if i >= 2 && s[i-1] == '-' && s[i-2] == '-' {
			return true // --token VALUE
		}
		k := j + 1
		for k < len(s) && k-j < 16 && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k >= len(s) {
			return false
		}
		if passwordKey(s[i:j]) {
			return true // "password Tr0mbone!77", "passphrase \"…\""
		}
		switch c := s[k]; {
		case isAlpha(c):
			switch c | 0x20 {
			case 's', 'c', 't', 'b', 'a', 'f', 'p':
				return true // string, char, text, bytes, As, final, password, ...
			}
			switch c | 0x20 {
			case 'i', 'w', 'n': // is, was, now: "password was …"
				return proseKey(s[i:j])
			}
			return tokenWord(s[i:j]) // "token wf8Y…"
		case isDigit(c):
			return tokenWord(s[i:j]) // "token 9f8a…"
		}
		return true
	}
	return false
}

// proseKey is a cheap test for a word that may name a credential in a
// sentence ("the admin password was …"): its last letters.
func proseKey(w string) bool {
	if len(w) < 3 {
		return false
	}
	switch w[len(w)-1] | 0x20 {
	case 'd':
		return hasSuffixFold(w, "pwd") || hasSuffixFold(w, "passwd") || hasSuffixFold(w, "password")
	case 'e':
		return hasSuffixFold(w, "passphrase") || hasSuffixFold(w, "passcode")
	case 'n':
		return hasSuffixFold(w, "token")
	case 't':
		return hasSuffixFold(w, "secret")
	case 'y':
		return hasSuffixFold(w, "key")
	}
	return false
}

// passwordKey is a cheap test for a word naming a password itself, whose
// value may follow with no copula: its last letter first.
func passwordKey(w string) bool {
	if len(w) < 3 {
		return false
	}
	switch w[len(w)-1] | 0x20 {
	case 'd':
		return hasSuffixFold(w, "pwd") || hasSuffixFold(w, "passwd") || hasSuffixFold(w, "password")
	case 'e':
		return hasSuffixFold(w, "passphrase") || hasSuffixFold(w, "passcode")
	case 's', 'h':
		return eqFold(w, "requirepass") || eqFold(w, "masterauth") // redis.conf
	}
	return false
}

// tokenWord is a cheap test for a word ending in "token".
func tokenWord(w string) bool {
	return len(w) >= 5 && w[len(w)-1]|0x20 == 'n' && hasSuffixFold(w, "token")
}

// jwtEnd matches header.payload[.signature] with base64url JSON segments.
func jwtEnd(s string, i int) int {
	n := len(s)
	a := spanClass(s, i, cB64URL, 0)
	if a-i < 10 || a >= n || s[a] != '.' || !strings.HasPrefix(s[a+1:], "eyJ") {
		return -1
	}
	b := spanClass(s, a+1, cB64URL, 0)
	if b-a-1 < 10 {
		return -1
	}
	e := b
	if b+1 < n && s[b] == '.' && ctab[s[b+1]]&cB64URL != 0 {
		e = spanClass(s, b+1, cB64URL|cB64, 0)
	}
	for e < n && s[e] == '=' && e-b < 400 {
		e++
	}
	if e < n && (isWord(s[e]) || s[e] == '.' && e+1 < n && isAlnum(s[e+1])) {
		return -1
	}
	if placeholderBody(s[i+3 : a]) {
		return -1
	}
	return e
}

// authScheme handles "Bearer <token>", "Basic <base64>" and, after an
// Authorization header name, "Token <token>".
func (sc *scanner) authScheme(s string, i, j int) int {
	n := len(s)
	w := s[i:j]
	var kind int
	switch {
	case w == "Bearer" || w == "bearer" || w == "BEARER":
		kind = 1
	case w == "Basic" || w == "basic" || w == "BASIC":
		kind = 2
	case w == "Token" || w == "token":
		kind = 3
	default:
		return -1
	}
	if j >= n || s[j] != ' ' {
		return -1
	}
	v := j
	for v < n && s[v] == ' ' && v-j < 4 {
		v++
	}
	switch kind {
	case 1, 3:
		e := spanClass(s, v, cB64URL|cB64, 4096)
		if e < n && s[e] == '.' { // JWT-like dotted tokens
			e = spanClass(s, v, cTokBody, 4096)
		}
		for e > v && (s[e-1] == '.') {
			e--
		}
		for e < n && s[e] == '=' && e-v < 4096 {
			e++
		}
		tok := s[v:e]
		if len(tok) < 16 || !rightBoundary(s, e) || placeholderBody(tok) || !mixedClasses(tok, 2) {
			return -1
		}
		if kind == 3 && !lineHasFold(s, i, "authorization") {
			return -1
		}
		sc.add(v, e, tAPIKey, prioCred)
		return e
	case 2:
		e := spanClass(s, v, cB64, 4096)
		for e < n && s[e] == '=' && e-v < 4096 {
			e++
		}
		tok := s[v:e]
		if len(tok) < 8 || !rightBoundary(s, e) || placeholderBody(tok) {
			return -1
		}
		if !lineHasFold(s, i, "authorization") && !basicDecodes(tok) {
			return -1
		}
		sc.add(v, e, tSecret, prioCred)
		return e
	}
	return -1
}

// basicDecodes reports whether tok is base64 of "user:password".
func basicDecodes(tok string) bool {
	if len(tok) > 1024 {
		return false
	}
	var buf [768]byte
	n, err := base64.StdEncoding.Decode(buf[:], []byte(tok))
	if err != nil {
		return false
	}
	c := strings.IndexByte(string(buf[:n]), ':')
	return c > 0 && c < n-1
}

// b64Text reports whether tok is standard base64 of printable ASCII text
// ("V2VsY29tZSB0byB0aGU…" is "Welcome to the…"): encoded data, not a random
// key, whose 30 bytes are all printable about once in 10^13.
func b64Text(tok string) bool {
	if len(tok) > 1024 || len(tok)%4 != 0 {
		return false
	}
	var buf [768]byte
	n, err := base64.StdEncoding.Decode(buf[:], []byte(tok))
	if err != nil || n == 0 {
		return false
	}
	for _, c := range buf[:n] {
		if (c < ' ' || c > '~') && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// lineHasFold reports whether the line holding position i contains word
// (lower-case) before i, case-insensitively.
func lineHasFold(s string, i int, word string) bool {
	a := i
	for a > 0 && s[a-1] != '\n' && i-a < 200 {
		a--
	}
	return containsFold(s[a:i], word)
}

// mixedClasses reports whether tok has at least k of: upper, lower, digit.
func mixedClasses(tok string, k int) bool {
	var up, lo, di bool
	for i := 0; i < len(tok); i++ {
		f := ctab[tok[i]]
		up = up || f&cUpper != 0
		lo = lo || f&cLower != 0
		di = di || f&cDigit != 0
	}
	c := 0
	for _, b := range [3]bool{up, lo, di} {
		if b {
			c++
		}
	}
	return c >= k
}

// tokenShapes checks context-free token layouts that have no vendor prefix:
// Discord bot tokens, Mailchimp keys, Azure's annotated keys and 40-character
// AWS secret access keys.
func (sc *scanner) tokenShapes(s string, i, j int) int {
	n := len(s)
	c := s[i]
	// Discord bot token: [MNO]x{23,25}.x{6}.x{27,38}
	if (c == 'M' || c == 'N' || c == 'O') && j-i >= 24 {
		a := spanClass(s, i, cB64URL, 27)
		if l := a - i; l >= 24 && l <= 26 && a+8 < n && s[a] == '.' {
			b := spanClass(s, a+1, cB64URL, 7)
			if b-a-1 == 6 && b < n && s[b] == '.' {
				e := spanClass(s, b+1, cB64URL, 39)
				if l := e - b - 1; l >= 27 && l <= 38 && rightBoundary(s, e) && mixedClasses(s[i:a], 3) {
					sc.add(i, e, tAPIKey, prioVendor)
					return e
				}
			}
		}
	}
	if e := sc.mailgunKeyAt(s, i, j); e > 0 {
		return e
	}
	if j-i == 84 && azureAnnotatedKey(s, i, j) {
		sc.add(i, j, tAPIKey, prioVendor)
		return j
	}
	// Mailchimp: 32 lower-case hex + "-us" + datacenter number
	if j-i == 32 && j+3 < n && s[j] == '-' && s[j+1] == 'u' && s[j+2] == 's' && isDigit(s[j+3]) {
		if allClass(s[i:j], cDigit) || !isLowerHex(s[i:j]) {
			return j
		}
		e := spanClass(s, j+3, cDigit, 3)
		if e-j-3 <= 2 && rightBoundary(s, e) {
			sc.add(i, e, tAPIKey, prioVendor)
			return e
		}
	}
	// AWS secret access key: exactly 40 base64 characters
	if j-i == 40 || (j-i < 40 && j < n && (s[j] == '/' || s[j] == '+')) {
		e := spanClass(s, i, cB64, 41)
		if e-i == 40 && (e >= n || (ctab[s[e]]&cB64 == 0 && s[e] != '=')) && awsSecretShape(s, i, e) {
			sc.add(i, e, tSecret, prioShape)
			return e
		}
	}
	return j
}

// azureAnnotatedKey reports one of Azure's annotated keys at the word
// [i,j) (the newer Azure DevOps PAT): 84 letters and digits with the fixed
// "JQQJ" at 52 and the service's signature at 76.
func azureAnnotatedKey(s string, i, j int) bool {
	return j-i == 84 && s[i+52:i+56] == "JQQJ" && allClass(s[i:j], cDigit|cUpper|cLower) && rightBoundary(s, j)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allClass(s string, f uint16) bool {
	for i := 0; i < len(s); i++ {
		if ctab[s[i]]&f == 0 {
			return false
		}
	}
	return true
}

// awsSecretShape checks the 40-byte base64 run s[i:e]: upper, lower and digit
// present, at most 4 '/' or '+', not preceded by '/', '.', '+' (a path or a
// longer blob), not part of a URL, and not one line of a base64 block.
func awsSecretShape(s string, i, e int) bool {
	tok := s[i:e]
	if !mixedClasses(tok, 3) || strings.Contains(tok, "//") {
		return false
	}
	sl := strings.Count(tok, "/") + strings.Count(tok, "+")
	if sl > 4 || tok[0] == '/' || tok[len(tok)-1] == '/' {
		return false
	}
	if i > 0 && strings.IndexByte("/.+-%&", s[i-1]) >= 0 {
		return false
	}
	// inside a URL?
	a := i
	for a > 0 && s[a-1] > ' ' && s[a-1] != '"' && s[a-1] != '\'' && i-a < 256 {
		a--
	}
	if strings.Contains(s[a:i], "://") || strings.Contains(s[a:i], phPrefix) {
		return false // in a URL, or glued to a redacted value that may have been one
	}
	// one line of a base64 block (PEM/PGP armour, certificates)?
	lineStart := i == 0 || s[i-1] == '\n'
	lineEnd := e == len(s) || s[e] == '\n' || s[e] == '\r'
	if lineStart && lineEnd {
		if longB64Line(s, i-1, -1) || longB64Line(s, e, 1) {
			return false
		}
	}
	if placeholderBody(tok) || b64Text(tok) {
		return false
	}
	return true
}

// longB64Line reports whether the line before (dir=-1, p = index of the
// newline ending it) or after (dir=1, p = index of the newline starting it)
// is a run of 40 or more base64 characters.
func longB64Line(s string, p, dir int) bool {
	if dir < 0 {
		if p <= 0 {
			return false
		}
		q := p
		for q > 0 && ctab[s[q-1]]&cB64 != 0 {
			q--
		}
		return p-q >= 40
	}
	q := p
	if q < len(s) && s[q] == '\r' {
		q++
	}
	if q < len(s) && s[q] == '\n' {
		q++
	}
	r := spanClass(s, q, cB64, 0)
	return r-q >= 40
}
