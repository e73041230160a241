package redact

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Values: where a value starts and ends, and whether it can be a credential (placeholders,
// references, weak values and identifiers are left; random tokens are recognised).

// parseValue extracts the value starting at v: a quoted string on the same
// line (plain, JSON-escaped \"…\", or ObjC @"…"), or an unquoted run.
func parseValue(s string, v int, xml, query bool) (vs, ve int, quoted, ok bool) {
	n := len(s)
	if v >= n {
		return
	}
	if s[v] == '@' && v+1 < n && (s[v+1] == '"' || escapedQuoteAt(s, v+1) >= 0) {
		v++ // C#'s verbatim string, @"…" (@\"…\" in JSON-escaped text)
	}
	c := s[v]
	switch {
	case !xml && (c == '"' || c == '\''):
		vs, ve, ok = quotedValue(s, v)
		return vs, ve, ok, ok
	case !xml && c == '\\':
		if r := escapedQuoteAt(s, v); r >= 0 {
			vs, ve, ok = escapedQuotedValue(s, v, r)
			return vs, ve, ok, ok
		}
	case c == '`':
		vs, ve, ok = backtickValue(s, v)
		return vs, ve, ok, ok
	}
	vs, ve, ok = unquotedValue(s, v, xml, query)
	return vs, ve, false, ok
}

// quotedValue reads a value in plain quotes, s[v] being the opening quote;
// it does not cross a line.
func quotedValue(s string, v int) (vs, ve int, ok bool) {
	c := s[v]
	for e := v + 1; e < len(s) && e-v < 2048; e++ {
		switch s[e] {
		case '\n':
			return
		case '\\':
			if e+1 < len(s) && s[e+1] == c {
				// an escaped quote ends a value inside JSON-escaped text
				// only when the value itself started escaped; here it is
				// part of the value
				e++
			}
		case c:
			return v + 1, e, true
		}
	}
	return
}

// escapedQuoteAt returns the index of the quote after the run of
// backslashes at v (\" escaped once, \\\" twice, …), or -1 when no quote
// follows them.
func escapedQuoteAt(s string, v int) int {
	r := v
	for r < len(s) && s[r] == '\\' && r-v < 8 {
		r++
	}
	if r >= len(s) || (s[r] != '"' && s[r] != '\'') {
		return -1
	}
	return r
}

// quoteAt reports whether a quote opens at v, plain or JSON-escaped (\", \\\", …).
func quoteAt(s string, v int) bool {
	return v < len(s) && (s[v] == '"' || s[v] == '\'' || escapedQuoteAt(s, v) >= 0)
}

// afterClose returns the index after the quote that closes a value ending at ve: the quote
// itself, or its escaping backslashes and the quote.
func afterClose(s string, ve int) int {
	if r := escapedQuoteAt(s, ve); ve < len(s) && s[ve] == '\\' && r >= 0 {
		return r + 1
	}
	return ve + 1
}

// escapedQuotedValue reads a value quoted inside JSON-escaped text, opened
// by s[v:r+1]; it ends at the same escaped quote.
func escapedQuotedValue(s string, v, r int) (vs, ve int, ok bool) {
	delim := s[v : r+1]
	for e := r + 1; e+len(delim) <= len(s) && e-v < 2048; e++ {
		if s[e] == '\n' {
			return
		}
		if s[e] == '\\' && strings.HasPrefix(s[e:], delim) {
			return r + 1, e, true
		}
	}
	return
}

// backtickValue reads a Go raw string or JS template literal holding one
// token; a command substitution (`cat /run/secret`) has spaces and is left.
func backtickValue(s string, v int) (vs, ve int, ok bool) {
	for e := v + 1; e < len(s) && e-v < 2048; e++ {
		switch b := s[e]; {
		case b == '`':
			if e == v+1 || hasInterpolation(s[v+1:e]) {
				return
			}
			return v + 1, e, true
		case b <= ' ':
			return
		}
	}
	return
}

// unquotedValue reads an unquoted run up to a space, a quote, a separator
// or an escape; in a query string & and # end it too, in XML a tag.
func unquotedValue(s string, v int, xml, query bool) (vs, ve int, ok bool) {
	e := v
	for e < len(s) && e-v < 256 {
		if !endsUnquoted(s, e, xml, query) {
			e++
		} else if w := valueGoesOn(s, v, e); w > 0 {
			e += w
		} else {
			break
		}
	}
	e = trimUnbalanced(s, v, e)
	if e <= v {
		return
	}
	return v, e, true
}

func endsUnquoted(s string, e int, xml, query bool) bool {
	switch b := s[e]; {
	case b <= ' ' || b >= 0x80 || b == '"' || b == '\'' || b == '`' || b == ',' || b == ';':
		return true
	case query && (b == '&' || b == '#'), xml && b == '<':
		return true
	case b == '\\':
		// an escape, as many times escaped as the text is: \n once, \\n twice, \\\" a quote twice
		k := e + 1
		for k < len(s) && s[k] == '\\' && k-e < 8 {
			k++
		}
		return k < len(s) && strings.IndexByte("ntr\"'", s[k]) >= 0
	}
	return false
}

// valueGoesOn returns how many bytes at e, where an unquoted value [v,e) would end, belong to
// it after all (0 when none). A password is any run of printable characters: "A,.:-¨@*¿?!"
// and "Ab,cd;ef!" are one value each. So a ',' or ';' glued on both sides goes on, unless
// what follows it is the next pair (a key and its '=' or ':'), and so does a Latin letter or
// symbol beyond ASCII (¨, ¿, ñ); other scripts still end the value, since Japanese text
// glues to what it mentions ("パスワードはabc123です").
func valueGoesOn(s string, v, e int) int {
	switch b := s[e]; {
	case e == v:
		return 0
	case b == ',' || b == ';':
		if e+1 >= len(s) || s[e+1] <= ' ' || s[e+1] == '"' || s[e+1] == '\'' || s[e+1] == '`' || s[e+1] == ',' || s[e+1] == ';' || pairAt(s, e+1) {
			return 0
		}
		return 1
	case b >= 0xa0:
		if r, w := utf8.DecodeRuneInString(s[e:]); r > 0xa0 && r <= 0x24f {
			return w
		}
	}
	return 0
}

// pairAt reports whether a key and its operator start at i: "host=", "user:".
func pairAt(s string, i int) bool {
	j := i
	for j < len(s) && j-i < 64 && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-' || s[j] == '.') {
		j++
	}
	return j > i && isAlpha(s[i]) && j < len(s) && (s[j] == '=' || s[j] == ':')
}

// trimUnbalanced drops trailing closing brackets without an opener and a
// trailing full stop from an unquoted value.
func trimUnbalanced(s string, v, e int) int {
	for e > v {
		c := s[e-1]
		var open byte
		switch c {
		case ')':
			open = '('
		case ']':
			open = '['
		case '}':
			open = '{'
		case '.':
			e--
			continue
		default:
			return e
		}
		if strings.Count(s[v:e], string(open)) >= strings.Count(s[v:e], string(c)) {
			return e
		}
		e--
	}
	return e
}

var stopValues = []string{"password", "passwd", "pass", "secret", "token", "key", "apikey", "api_key", "changeme",
	"null", "nil", "none", "true", "false", "undefined", "empty", "string", "hidden", "masked", "required", "optional",
	"example", "test", "dummy", "sample", "default", "unknown", "n/a", "tbd", "todo", "value", "bearer", "basic",
	"username", "user", "str", "bool", "int", "object", "any", "omitted", "removed", "redacted", "secret_value"}

// valueType decides whether val, assigned to key, is a credential and of which type.
func valueType(ki keyInfo, key, val string, quoted bool) (uint8, bool) {
	if len(val) == 0 || strings.Contains(val, phPrefix) || !hasAlnum(val) {
		return 0, false
	}
	if typ, ok, decided := keyedVendorValue(ki, val); decided {
		return typ, ok
	}
	cls := ki.cls
	if cls == keyNone {
		// a quoted random token under a key naming an API
		// ("apiMetrics := \"5po8…\""); names, URLs and versions
		// are not random
		if ki.api && quoted && strongToken(val) {
			return apiKeyType(key, val), true
		}
		return 0, false
	}
	if cls == keyAPI && ki.cloudant {
		cls = keySecret // Cloudant API keys are account passwords
	}
	if placeholderValue(val) || (!quoted && referenceValue(val)) || isStopValue(val) || eqFold(val, key) {
		return 0, false
	}
	switch cls {
	case keySecret:
		if secretLiteral(val, quoted) {
			return tSecret, true
		}
	case keyAPI:
		if awsSecretValue(val) {
			// "aws_access_key = wJalr…/K7…": the secret of an access key pair, whatever
			// the label calls it, as the same value without a label is
			return tSecret, true
		}
		if basicDecodes(val) && b64Text(val) {
			// base64 of user:password under an auth key (a Docker config's
			// "auth", npm's _auth) is the pair a Basic header carries
			return tSecret, true
		}
		if apiKeyLiteral(val, quoted) {
			return apiKeyType(key, val), true
		}
	}
	return 0, false
}

// awsSecretValue: a value with a cloud secret access key's shape (40 base64 characters with a
// '/' or '+', upper and lower case and digits).
func awsSecretValue(val string) bool {
	return len(val) == 40 && allClass(val, cB64) && strings.ContainsAny(val, "/+") && awsSecretShape(val, 0, len(val))
}

// keyedVendorValue applies the vendor rules that depend on the key (Sumo
// Logic access ID, Facebook app secret, cloud access key IDs); decided is
// false when none of them applies.
func keyedVendorValue(ki keyInfo, val string) (typ uint8, ok, decided bool) {
	switch {
	case ki.sumo && len(val) == 14 && strings.HasPrefix(val, "su") && allClass(val, cDigit|cUpper|cLower) && mixedClasses(val, 2):
		return tAPIKey, true, true
	case ki.facebook && len(val) == 32 && isLowerHex(val) && hasLetter(val):
		return tSecret, true, true
	case ki.accessKeyID:
		return tAPIKey, accessKeyIDValue(val), true
	}
	return 0, false, false
}

// accessKeyIDValue: cloud access key IDs are upper-case letters and digits
// (AWS), or random mixed-case and hex IDs of other clouds (LTAI…, AKID…).
func accessKeyIDValue(val string) bool {
	if len(val) >= 16 && len(val) <= 128 && allClass(val, cUpper|cDigit) && hasLetter(val) &&
		strings.ContainsAny(val, "0123456789") && !placeholderBody(val) {
		return true
	}
	return strongToken(val)
}

// isStopValue reports whether val is a word that stands for a value
// (null, changeme, redacted, …) rather than being one.
func isStopValue(val string) bool {
	if len(val) > 16 {
		return false
	}
	var buf [16]byte
	for i := 0; i < len(val); i++ {
		buf[i] = lower(val[i])
	}
	return lookupWord(buf[:len(val)])&wStopValue != 0
}

// secretLiteral: a password-like value is long enough and not an
// identifier (a variable, not a literal).
func secretLiteral(val string, quoted bool) bool {
	if len(val) < 4 || (len(val) < 6 && allClass(val, cUpper|cLower)) || identifierLike(val) {
		return false
	}
	return quoted || !allClass(val, cUpper|cLower|cUnder)
}

// apiKeyLiteral: an API-key value is a literal with digits and letters, a
// long numeric token, or a long mixed token; not an identifier, an
// alphabet run or a version.
func apiKeyLiteral(val string, quoted bool) bool {
	if !quoted && allClass(val, cUpper|cLower|cUnder) {
		return false // an identifier: a variable, not a literal
	}
	if len(val) < 8 || (!quoted && strings.IndexByte(val, ' ') >= 0) || identifierLike(val) || alphabetRun(val) || versionSuffix(val) {
		return false
	}
	if len(val) >= 16 && allClass(val, cDigit) && distinctBytes(val) >= 5 {
		return true // numeric tokens
	}
	digit := strings.ContainsAny(val, "0123456789")
	return (digit && hasLetter(val)) || (len(val) >= 16 && (mixedClasses(val, 2) || hasSymbol(val)) && !allClass(val, cLower|cUnder|cDigit))
}

// placeholderValue recognises templates, environment references, masks and
// example text: ${X}, {{ x }}, <your-key>, %s, $(cmd), ****, xxxx, YOUR_KEY_HERE.
func placeholderValue(v string) bool {
	switch v[0] {
	case '!':
		// YAML tags and template functions (!Ref, !vault, !ENV) are
		// references; "!W9Pl^3N0" is a literal
		w := 1
		for w < len(v) && isAlpha(v[w]) {
			w++
		}
		return w == len(v) || v[w] == ' ' || v[w] == '\t'
	case '#':
		// #{var} templates, #fff colours, "#" comments; "#0IOIQK7V…" is a literal
		return len(v) < 4 || v[1] == '{' || (len(v) <= 9 && allClass(v[1:], cHex))
	case '$', '<', '*', '[':
		return true
	case '{':
		return true
	case '%':
		return len(v) <= 3 || v[1] == '(' || v[1] == 's' || v[1] == '{'
	case '@':
		return len(v) > 1 && v[1] == '{'
	}
	if placeholderBody(v) {
		return true
	}
	if prefixedPlaceholder(v) {
		return true
	}
	// constant names such as ACCESS_TOKEN or IBM_IAM_API_KEY_ENV
	if allClass(v, cUpper|cDigit|cUnder) && strings.IndexByte(v, '_') >= 0 && !strings.ContainsAny(v, "0123456789") {
		return true
	}
	var buf [64]byte
	lv := buf[:0]
	var p0, p1 uint64 // the bytes present below 64 and below 128 (in registers, not an array)
	for i := 0; i < len(v) && i < len(buf); i++ {
		c := lower(v[i])
		lv = append(lv, c)
		if c < 64 {
			p0 |= 1 << c
		} else if c < 128 {
			p1 |= 1 << (c & 63)
		}
	}
	for k := range placeholderWords {
		w := &placeholderWords[k]
		if w.short && len(v) > 24 && !bytes.HasPrefix(lv, w.word) {
			continue // "fake" inside a long random value is chance, not a marker
		}
		if p0&w.need[0] == w.need[0] && p1&w.need[1] == w.need[1] && bytes.Contains(lv, w.word) {
			return true
		}
	}
	return false
}

// prefixedPlaceholder recognises a vendor prefix with a placeholder body:
// glc_1111…, duffel_test_bbbb…; the same after the first separator
// (xoxb-0000000000-0000000000-0000…); a body too short for the vendor
// (xoxb-123456); a body left to a template or a fixture (prefixedTemplate).
func prefixedPlaceholder(v string) bool {
	first, last := -1, -1 // the first and the last '_' or '-'
	for k := 0; k < len(v); k++ {
		if v[k] == '_' || v[k] == '-' {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	if k := last; k > 0 && k <= 16 && len(v)-k-1 >= 12 && placeholderBody(v[k+1:]) {
		return true
	}
	if k := first; k != last && k > 0 && k <= 16 && len(v)-k-1 >= 12 && placeholderBody(v[k+1:]) {
		return true
	}
	return truncatedVendor(v) || prefixedTemplate(v)
}

// prefixedTemplate recognises a vendor prefix or an id whose body is left to
// a template or a fixture: shpat_${SHOPIFY_TOKEN}, xoxb-<token>,
// 123456789:AAAA… (a Telegram bot id with a body of one letter).
func prefixedTemplate(v string) bool {
	k := 0 // the first '_', '-' or ':' (strings.IndexAny builds its byte set on every call)
	for k < len(v) && v[k] != '_' && v[k] != '-' && v[k] != ':' {
		k++
	}
	if k == len(v) || k == 0 || k > 16 || k+2 >= len(v) {
		return false
	}
	body, last := v[k+1:], v[len(v)-1]
	switch {
	case (strings.HasPrefix(body, "${") || strings.HasPrefix(body, "{{")) && last == '}':
		return true
	case strings.HasPrefix(body, "$(") && last == ')', body[0] == '<' && last == '>':
		return true
	}
	return v[k] == ':' && len(body) >= 12 && placeholderBody(body)
}

// placeholderWords are example-text fragments; need is the set of their
// bytes, a cheap test before the substring search. Short words (fake,
// dummy) mark a placeholder only in short values or at the start: in a long
// random value they occur by chance.
var placeholderWords = func() []struct {
	word  []byte
	need  [2]uint64
	short bool
} {
	var out []struct {
		word  []byte
		need  [2]uint64
		short bool
	}
	for _, x := range []string{"your", "insert", "changeme", "change_me", "placeholder", "redacted", "dummy", "_here",
		"-here", "replace_me", "replaceme", "example.com", "xxx", "fake"} {
		var need [2]uint64
		for i := 0; i < len(x); i++ {
			need[x[i]>>6] |= 1 << (x[i] & 63)
		}
		out = append(out, struct {
			word  []byte
			need  [2]uint64
			short bool
		}{[]byte(x), need, x == "fake" || x == "dummy" || x == "your"})
	}
	return out
}()

// referenceValue recognises unquoted code references: a.b.c, f(...), m[...].
// A dotted value with upper case, lower case and digits ("summer.Monkey53")
// is a literal.
func referenceValue(v string) bool {
	if strings.IndexByte(v, '(') < 0 && strings.IndexByte(v, '[') < 0 && mixedClasses(v, 3) {
		return false
	}
	i := 0
	idents := 0
	for {
		start := i
		for i < len(v) && (isWord(v[i]) || v[i] == '$') {
			i++
		}
		if i == start || isDigit(v[start]) || (i-start >= 16 && mixedClasses(v[start:i], 3)) {
			return false // a random segment: "s.ZC9Ecf4M5g9o34Q6RkzGsj0z" is a token
		}
		idents++
		if i < len(v) && v[i] == '.' {
			i++
			continue
		}
		break
	}
	if i == len(v) {
		return idents >= 2
	}
	return v[i] == '(' || v[i] == '['
}

// credValueOK checks the password part of user:pass credentials.
func credValueOK(p string) bool {
	if len(p) < 3 || len(p) > 256 {
		return false
	}
	if placeholderValue(p) {
		return false
	}
	var buf [16]byte
	if len(p) <= 16 {
		for i := 0; i < len(p); i++ {
			buf[i] = lower(p[i])
		}
		if lookupWord(buf[:len(p)])&wStopValue != 0 {
			return false
		}
	}
	return true
}

// strongToken reports a value that can only be a random token: 20 to 200
// letters and digits (and '_', '-') with upper case, lower case and digits,
// or 32 or more hex digits with letters, and no spaces, dots, slashes or
// colons.
func strongToken(v string) bool {
	if len(v) < 20 || len(v) > 200 || !allClass(v, cDigit|cUpper|cLower|cUnder) && !allClass(v, cB64URL) {
		return false
	}
	if placeholderBody(v) || identifierLike(v) {
		return false
	}
	digits := 0
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			digits++
		}
	}
	return (mixedClasses(v, 3) && digits >= 3) || (len(v) >= 32 && isLowerHex(v) && hasLetter(v))
}

// hasSymbol reports a character other than letters, digits, '_', '-' and '.'.
func hasSymbol(v string) bool {
	for i := 0; i < len(v); i++ {
		if ctab[v[i]]&cKey == 0 {
			return true
		}
	}
	return false
}

// identifierLike recognises names rather than random tokens: dotted names
// (com.example.app, jetbrains.mps.v8_elimination) and snake_case made of
// short words and numbers (DOC_Vector_5_32).
func identifierLike(v string) bool {
	if strings.IndexByte(v, '.') > 0 && !mixedClasses(v, 3) {
		// (upper case, lower case and digits together: "maple.Hunter14"
		// is a password, not a package or member name)
		dotted := true
		for seg := range strings.SplitSeq(v, ".") {
			if seg == "" || !isAlpha(seg[0]) || !allClass(seg, cDigit|cUpper|cLower|cUnder) {
				dotted = false
				break
			}
			if len(seg) >= 16 && mixedClasses(seg, 3) {
				dotted = false // a random segment: a token with dots, not a name
				break
			}
		}
		if dotted {
			return true
		}
	}
	if strings.IndexByte(v, '_') < 0 || !allClass(v, cDigit|cUpper|cLower|cUnder) {
		return false
	}
	for seg := range strings.SplitSeq(v, "_") {
		if len(seg) > 8 {
			return false
		}
		if !allClass(seg, cUpper|cLower) && !allClass(seg, cDigit) {
			return false
		}
	}
	return true
}

// alphabetRun recognises character-set definitions such as
// "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef…": 20 or more consecutive ascending letters.
func alphabetRun(v string) bool {
	run := 1
	for i := 1; i < len(v); i++ {
		if isAlpha(v[i]) && v[i] == v[i-1]+1 {
			run++
			if run >= 20 {
				return true
			}
		} else {
			run = 1
		}
	}
	return false
}

// versionSuffix recognises artifact names that end in a version number:
// "jjwt-jackson-0.11.2", "SalesResults-1.2".
func versionSuffix(v string) bool {
	i := len(v)
	dots := 0
	for i > 0 && (isDigit(v[i-1]) || v[i-1] == '.') {
		if v[i-1] == '.' {
			dots++
		}
		i--
	}
	if dots == 0 || i == len(v) || i == 0 || !isDigit(v[i]) || v[len(v)-1] == '.' {
		return false
	}
	c := v[i-1]
	return c == '-' || c == '_' || c == 'v' || c == 'V' || c == '@'
}

func hasAlnum(v string) bool {
	for i := 0; i < len(v); i++ {
		if isAlnum(v[i]) {
			return true
		}
	}
	return false
}

// hasInterpolation reports a ${name} interpolation.
func hasInterpolation(v string) bool {
	for k := strings.Index(v, "${"); k >= 0; {
		e := k + 2
		for e < len(v) && (isWord(v[e]) || v[e] == '.') {
			e++
		}
		if e > k+2 && e < len(v) && v[e] == '}' {
			return true
		}
		n := strings.Index(v[k+2:], "${")
		if n < 0 {
			break
		}
		k += 2 + n
	}
	return false
}

// keyBigrams holds the first two letters of every key word that can make a
// key interesting (pass, pwd, secret, key, token, auth, ...): a key without
// any of these letter pairs is skipped before it is split into words.
var keyBigrams = func() (t [26 * 26]bool) {
	for _, w := range []string{"pass", "pwd", "pw", "psw", "secret", "private", "priv", "cred", "contrase", "passwort",
		"motdepasse", "key", "token", "auth", "bearer", "webhook", "sumo", "facebook", "cloudant"} {
		t[int(w[0]-'a')*26+int(w[1]-'a')] = true
	}
	return
}()

// keySpan returns the end of the key starting at i (A-Z a-z 0-9 _ . -, at
// most 128 bytes) and whether it holds one of the keyBigrams.
func keySpan(s string, i int) (int, bool) {
	end := min(len(s), i+128)
	// letters as five bits, looked up in pairs in keyPairs; after a byte that is no
	// letter, prev is 31, which pairs with nothing
	prev, prev2 := uint(31), uint(31)
	for ; i < end; i++ {
		c := s[i]
		f := ctab[c]
		if f&cKey == 0 {
			break
		}
		if f&(cUpper|cLower) == 0 {
			prev, prev2 = 31, 31
			continue
		}
		x := uint(c|0x20) - 'a'
		if p := keyPairs[prev<<5|x]; p&1 != 0 || (p&2 != 0 && prev2 == 'a'-'a') {
			// a key word's first letters, or "api": the rest is only read to its end
			i++
			for i < end && ctab[s[i]]&cKey != 0 {
				i++
			}
			return i, true
		}
		prev2, prev = prev, x
	}
	return i, false
}

func distinctBytes(v string) int {
	var seen [4]uint64
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if bit := uint64(1) << (c & 63); seen[c>>6]&bit == 0 {
			seen[c>>6] |= bit
			n++
		}
	}
	return n
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
