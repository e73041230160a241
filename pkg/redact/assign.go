package redact

import "strings"

// Key/value assignments: `password = "…"`, `"api_key": "…"`, `token: …`,
// `--token=…`, `<password>…</password>`, `if (db_pass !== "…")`. The key is
// split into words (snake_case, kebab-case, dotted and camelCase); a key
// whose words name a password or secret gives SECRET, one naming a key or a
// token gives API_KEY, unless its last word says the value is metadata
// (…_id, …_name, …_length, …_file, …). Values that are placeholders,
// environment or code references, or too weak to be credentials are left.

const (
	keyNone uint8 = iota
	keyAPI
	keySecret
)

var (
	secretWords = []string{"password", "passwd", "pass", "pwd", "pw", "passphrase", "passcode", "secret", "secrets",
		"private", "privatekey", "clientsecret", "secretkey", "credential", "credentials", "creds", "cred", "pswd", "psw"}
	secretSuffixes = []string{"password", "passwd", "pwd", "secret", "passphrase"}
	apiWords       = []string{"token", "apikey", "key", "auth", "authtoken", "accesstoken", "accesskey", "apitoken", "bearer",
		"sessiontoken", "authkey", "webhook"}
	apiSuffixes = []string{"token", "apikey", "accesskey", "authkey"}
	stopTail    = []string{"id", "ids", "name", "names", "length", "len", "size", "type", "types", "file", "filename", "files",
		"path", "paths", "dir", "url", "uri", "endpoint", "host", "chars", "charset", "count", "format", "field", "fields",
		"label", "env", "var", "version", "prefix", "suffix", "pattern", "regex", "policy", "mode", "store", "vault",
		"manager", "provider", "ref", "arn", "location", "expiry", "expires", "expiration", "ttl", "timeout", "required",
		"enabled", "disabled", "hint", "rotation", "algorithm", "alg", "method", "scope", "scopes", "option", "options",
		"bytes", "bits", "index", "idx", "column", "header", "headers", "param", "params", "list", "set", "kind", "hash",
		"fingerprint", "digest", "sha", "md5", "checksum", "usage", "used", "limit", "max", "min", "input", "output",
		"num", "number", "status", "state", "reset", "policy", "strength", "rule", "rules", "check", "valid", "validation",
		"updated", "created", "changed", "age", "last", "field", "placeholder", "prompt", "label", "text", "desc",
		"description", "title", "button", "form", "input", "class", "style", "template", "example", "sample", "test"}
	stopAny = []string{"public", "pub", "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup",
		"next", "page", "continuation", "pagination", "cursor", "max", "min", "total", "prompt", "completion", "input",
		"output", "sync", "hotkey", "shortcut", "keyboard", "keys"}
)

func inList(w string, list []string) bool {
	for _, x := range list {
		if w == x {
			return true
		}
	}
	return false
}

func hasSuffixIn(w string, list []string) bool {
	for _, x := range list {
		if len(w) > len(x) && strings.HasSuffix(w, x) {
			return true
		}
	}
	return false
}

// keyWords splits a key into lower-case words (digits dropped) and calls fn
// for each; it stops early when fn returns false.
func keyWords(key string, fn func(w string) bool) {
	var buf [40]byte
	n := 0
	flush := func() bool {
		if n == 0 {
			return true
		}
		w := string(buf[:n])
		n = 0
		return fn(w)
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		f := ctab[c]
		switch {
		case f&(cUpper|cLower) == 0:
			if !flush() {
				return
			}
			continue
		case f&cUpper != 0 && n > 0:
			prevLower := i > 0 && ctab[key[i-1]]&cLower != 0
			nextLower := i+1 < len(key) && ctab[key[i+1]]&cLower != 0
			prevUpper := i > 0 && ctab[key[i-1]]&cUpper != 0
			if prevLower || (prevUpper && nextLower) {
				if !flush() {
					return
				}
			}
		}
		if n < len(buf) {
			buf[n] = lower(c)
			n++
		}
	}
	flush()
}

// classifyKey returns keyNone, keyAPI or keySecret for an assignment key.
func classifyKey(key string) uint8 {
	if len(key) > 96 {
		key = key[len(key)-96:]
	}
	secret, api, account, stop := false, false, false, false
	last := ""
	keyWords(key, func(w string) bool {
		last = w
		switch {
		case inList(w, stopAny):
			stop = true
			return false
		case inList(w, secretWords) || hasSuffixIn(w, secretSuffixes):
			secret = true
		case w == "account" || w == "accountkey" || w == "storagekey":
			account = true
			if w != "account" {
				api = true
			}
		case inList(w, apiWords) || hasSuffixIn(w, apiSuffixes):
			api = true
		}
		return true
	})
	if stop || inList(last, stopTail) {
		return keyNone
	}
	switch {
	case secret:
		return keySecret
	case account && api:
		return keySecret
	case api:
		return keyAPI
	}
	return keyNone
}

// keyMentions reports whether one of the key's words is w.
func keyMentions(key, w string) bool {
	found := false
	keyWords(key, func(x string) bool {
		if x == w || strings.HasPrefix(x, w) {
			found = true
			return false
		}
		return true
	})
	return found
}

// parseOp recognises an assignment or comparison operator at q and returns
// the index after it, or -1.
func parseOp(s string, q int) int {
	n := len(s)
	if q >= n {
		return -1
	}
	switch s[q] {
	case '=':
		e := q + 1
		for e < n && e-q < 3 && s[e] == '=' {
			e++
		}
		if e < n && s[e] == '>' {
			e++
		}
		return e
	case ':':
		e := q + 1
		for e < n && e-q < 3 && s[e] == ':' {
			e++
		}
		if e < n && s[e] == '=' {
			return e + 1
		}
		if e-q > 1 {
			return -1 // "::" scope operator
		}
		if e+1 < n && s[e] == '/' && s[e+1] == '/' {
			return -1 // a URL, not a value
		}
		return e
	case '!':
		if q+1 < n && s[q+1] == '=' {
			e := q + 2
			if e < n && s[e] == '=' {
				e++
			}
			return e
		}
	case '?', '.', '+', '|':
		e := q + 1
		if s[q] == '|' && e < n && s[e] == '|' {
			e++
		}
		if e < n && s[e] == '=' {
			return e + 1
		}
	}
	return -1
}

// assignment checks for "key <op> value" at word start i; it records the
// value and returns the end of the key, or -1.
func (sc *scanner) assignment(s string, i int) int {
	n := len(s)
	ke := spanClass(s, i, cKey, 128)
	for ke > i && (s[ke-1] == '.' || s[ke-1] == '-') {
		ke--
	}
	if ke-i < 2 || ke >= n {
		return -1
	}
	// quick reject: the byte after the key must be able to lead to an operator
	switch s[ke] {
	case '"', '\'', '\\', ' ', '\t', ':', '=', '!', '?', '.', '+', '|', '>':
	default:
		return -1
	}
	p := ke
	xml := false
	switch {
	case s[p] == '"' || s[p] == '\'':
		p++
	case s[p] == '\\' && p+1 < n && (s[p+1] == '"' || s[p+1] == '\''):
		p += 2
	case s[p] == '>' && i > 0 && s[i-1] == '<':
		xml = true
	}
	q := p
	for q < n && (s[q] == ' ' || s[q] == '\t') && q-p < 16 {
		q++
	}
	var v int
	switch {
	case xml:
		v = p + 1
	default:
		v = parseOp(s, q)
		if v < 0 {
			// CLI flag "--token VALUE"
			if q > p && i >= 2 && s[i-1] == '-' && s[i-2] == '-' {
				v = q
			} else {
				return -1
			}
		}
	}
	key := s[i:ke]
	cls := classifyKey(key)
	vendorKW := cls == keyNone && (keyMentions(key, "sumo") || keyMentions(key, "facebook"))
	if cls == keyNone && !vendorKW {
		return ke
	}
	for v < n && (s[v] == ' ' || s[v] == '\t') && v-q < 32 {
		v++
	}
	vs, ve, quoted, ok := parseValue(s, v, xml)
	if !ok {
		return ke
	}
	val := s[vs:ve]
	typ, ok := valueType(cls, key, val, quoted)
	if ok {
		sc.add(vs, ve, typ, prioAssign)
	}
	return ke
}

// parseValue extracts the value starting at v: a quoted string on the same
// line (plain, JSON-escaped \"…\", or ObjC @"…"), or an unquoted run.
func parseValue(s string, v int, xml bool) (vs, ve int, quoted, ok bool) {
	n := len(s)
	if v >= n {
		return
	}
	if s[v] == '@' && v+1 < n && s[v+1] == '"' {
		v++
	}
	c := s[v]
	switch {
	case !xml && (c == '"' || c == '\''):
		for e := v + 1; e < n && e-v < 2048; e++ {
			switch s[e] {
			case '\n':
				return
			case '\\':
				if e+1 < n && s[e+1] == c {
					// an escaped quote ends a value inside JSON-escaped text
					// only when the value itself started escaped; here it is
					// part of the value
					e++
				}
			case c:
				return v + 1, e, true, true
			}
		}
		return
	case !xml && c == '\\' && v+1 < n && (s[v+1] == '"' || s[v+1] == '\''):
		q := s[v+1]
		for e := v + 2; e+1 < n && e-v < 2048; e++ {
			if s[e] == '\n' {
				return
			}
			if s[e] == '\\' && s[e+1] == q {
				return v + 2, e, true, true
			}
		}
		return
	case c == '`':
		return // command substitution or template literal
	}
	e := v
	for e < n && e-v < 1024 {
		b := s[e]
		if b <= ' ' || b >= 0x80 || b == '"' || b == '\'' || b == '`' || b == ',' || b == ';' || b == '&' || (xml && b == '<') {
			break
		}
		if b == '\\' && e+1 < n && strings.IndexByte("ntr\"'", s[e+1]) >= 0 {
			break
		}
		e++
	}
	e = trimUnbalanced(s, v, e)
	if e <= v {
		return
	}
	return v, e, false, true
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
func valueType(cls uint8, key, val string, quoted bool) (uint8, bool) {
	if len(val) == 0 || strings.HasPrefix(val, phPrefix) || strings.Contains(val, phPrefix) {
		return 0, false
	}
	// vendor rules that depend on the key (Sumo Logic access ID, Facebook app secret)
	if keyMentions(key, "sumo") && len(val) == 14 && strings.HasPrefix(val, "su") && allClass(val, cDigit|cUpper|cLower) && mixedClasses(val, 2) {
		return tAPIKey, true
	}
	if keyMentions(key, "facebook") && len(val) == 32 && isLowerHex(val) && hasLetter(val) {
		return tSecret, true
	}
	if cls == keyNone {
		return 0, false
	}
	if placeholderValue(val) || (!quoted && referenceValue(val)) {
		return 0, false
	}
	lv := val
	if len(lv) <= 16 {
		var buf [16]byte
		for i := 0; i < len(lv); i++ {
			buf[i] = lower(lv[i])
		}
		if inList(string(buf[:len(lv)]), stopValues) {
			return 0, false
		}
	}
	if eqFold(val, key) {
		return 0, false
	}
	switch cls {
	case keySecret:
		if len(val) < 6 {
			return 0, false
		}
		if !quoted && allClass(val, cUpper|cLower|cUnder) {
			return 0, false // an identifier: a variable, not a literal
		}
		return tSecret, true
	case keyAPI:
		if len(val) < 8 || strings.IndexByte(val, ' ') >= 0 {
			return 0, false
		}
		digit := strings.ContainsAny(val, "0123456789")
		if (digit && hasLetter(val)) || (len(val) >= 16 && (mixedClasses(val, 2) || hasSymbol(val)) && !allClass(val, cLower|cUnder|cDigit)) {
			return tAPIKey, true
		}
	}
	return 0, false
}

// placeholderValue recognises templates, environment references, masks and
// example text: ${X}, {{ x }}, <your-key>, %s, $(cmd), ****, xxxx, YOUR_KEY_HERE.
func placeholderValue(v string) bool {
	switch v[0] {
	case '$', '<', '!', '*', '#', '[':
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
	// constant names such as ACCESS_TOKEN or IBM_IAM_API_KEY_ENV
	if allClass(v, cUpper|cDigit|cUnder) && strings.IndexByte(v, '_') >= 0 && !strings.ContainsAny(v, "0123456789") {
		return true
	}
	var buf [64]byte
	lv := buf[:0]
	for i := 0; i < len(v) && i < len(buf); i++ {
		lv = append(lv, lower(v[i]))
	}
	for _, x := range [...]string{"your", "insert", "changeme", "change_me", "placeholder", "redacted", "dummy", "_here", "-here", "replace_me", "replaceme", "example.com", "xxx"} {
		if strings.Contains(string(lv), x) {
			return true
		}
	}
	return false
}

// referenceValue recognises unquoted code references: a.b.c, f(...), m[...].
func referenceValue(v string) bool {
	i := 0
	idents := 0
	for {
		start := i
		for i < len(v) && (isWord(v[i]) || v[i] == '$') {
			i++
		}
		if i == start || isDigit(v[start]) {
			return false
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
		if inList(string(buf[:len(p)]), stopValues) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------- "value" == key

// scanReversedCompare handles comparisons written value-first:
// if ("hunter2" == password).
func (sc *scanner) scanReversedCompare(s string) {
	n := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], "==")
		if k < 0 {
			return
		}
		p := from + k
		from = p + 2
		op := p
		if op > 0 && s[op-1] == '!' {
			op--
		}
		r := p + 2
		for r < n && s[r] == '=' {
			r++
		}
		from = r
		// left: "value" before the operator
		q := op
		for q > 0 && s[q-1] == ' ' && op-q < 4 {
			q--
		}
		if q == 0 || (s[q-1] != '"' && s[q-1] != '\'') {
			continue
		}
		quote := s[q-1]
		o := q - 2
		for o >= 0 && s[o] != quote && s[o] != '\n' && q-o < 512 {
			o--
		}
		if o < 0 || s[o] != quote {
			continue
		}
		vs, ve := o+1, q-1
		// right: the key
		for r < n && s[r] == ' ' && r-p < 8 {
			r++
		}
		ke := spanClass(s, r, cKey, 96)
		if ke == r {
			continue
		}
		key := s[r:ke]
		cls := classifyKey(key)
		if cls == keyNone {
			continue
		}
		if typ, ok := valueType(cls, key, s[vs:ve], true); ok {
			sc.add(vs, ve, typ, prioAssign)
		}
	}
}

// ---------------------------------------------------------------- curl -u user:pass

func (sc *scanner) scanCurlUser(s string) {
	n := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], "-u")
		if k < 0 {
			return
		}
		p := from + k
		from = p + 2
		q := p + 2
		switch {
		case p > 0 && s[p-1] == '-' && strings.HasPrefix(s[p+1:], "user"):
			// --user
			if p > 1 && s[p-2] != ' ' && s[p-2] != '\t' {
				continue
			}
			q = p + 5
			if q < n && s[q] == '=' {
				q++
			} else if q < n && s[q] != ' ' {
				continue
			}
		case p == 0 || s[p-1] == ' ' || s[p-1] == '\t':
			if q >= n || s[q] != ' ' {
				continue
			}
		default:
			continue
		}
		for q < n && s[q] == ' ' && q-p < 12 {
			q++
		}
		if q >= n {
			return
		}
		var cs, ce int
		if s[q] == '"' || s[q] == '\'' {
			qc := s[q]
			cs = q + 1
			ce = cs
			for ce < n && s[ce] != qc && s[ce] != '\n' && ce-cs < 512 {
				ce++
			}
			if ce >= n || s[ce] != qc {
				continue
			}
		} else {
			cs = q
			ce = cs
			for ce < n && s[ce] > ' ' && s[ce] < 0x7f && s[ce] != '"' && s[ce] != '\'' && s[ce] != '`' && ce-cs < 512 {
				ce++
			}
		}
		cred := s[cs:ce]
		c := strings.IndexByte(cred, ':')
		if c < 0 || placeholderValue(cred) {
			continue
		}
		user, pass := cred[:c], cred[c+1:]
		switch {
		case pass != "":
			if credValueOK(pass) {
				sc.add(cs+c+1, ce, tSecret, prioCred)
			}
		case len(user) >= 8 && !placeholderValue(user) && mixedClasses(user, 2):
			// "-u KEY:" — an API key used as the user name, empty password
			sc.add(cs, cs+c, tSecret, prioCred)
		}
		from = ce
	}
}

// ---------------------------------------------------------------- Japanese keywords

var cjkKeywords = []struct {
	kw  string
	typ uint8
}{
	{"パスワード", tSecret},
	{"暗証番号", tSecret},
	{"シークレット", tSecret},
	{"APIキー", tAPIKey},
	{"アクセスキー", tAPIKey},
	{"トークン", tAPIKey},
}

// scanCJKKeywords handles "パスワード: hunter2", "パスワードはhunter2です": the
// value is the ASCII run after the keyword and an optional separator.
func (sc *scanner) scanCJKKeywords(s string) {
	n := len(s)
	for _, kw := range cjkKeywords {
		for from := 0; ; {
			k := strings.Index(s[from:], kw.kw)
			if k < 0 {
				break
			}
			p := from + k + len(kw.kw)
			from = p
			for p < n && p-from < 8 {
				switch {
				case s[p] == ' ' || s[p] == ':' || s[p] == '=' || s[p] == '\t':
					p++
					continue
				case strings.HasPrefix(s[p:], "は"), strings.HasPrefix(s[p:], "「"), strings.HasPrefix(s[p:], "："):
					p += 3
					continue
				}
				break
			}
			e := p
			for e < n && s[e] > ' ' && s[e] < 0x7f && e-p < 256 {
				e++
			}
			e = trimUnbalanced(s, p, e)
			val := s[p:e]
			if len(val) < 4 || placeholderValue(val) || strings.Contains(val, "://") {
				continue
			}
			if kw.typ == tAPIKey && !(mixedClasses(val, 2) && len(val) >= 8) {
				continue
			}
			sc.add(p, e, kw.typ, prioAssign)
			from = e
		}
	}
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
