package redact

import (
	"bytes"
	"strings"
)

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
		"private", "privatekey", "priv", "clientsecret", "secretkey", "credential", "credentials", "creds", "cred",
		"pswd", "psw", "contrasena", "passwort", "motdepasse", "secrete",
		"contribsys"} // Sidekiq Enterprise credentials: BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:pass
	secretSuffixes = []string{"password", "passwd", "pwd", "secret", "passphrase"}
	// weak API words count only at the end of the key (key_down_event is not a key)
	weakAPIWords = []string{"key", "auth", "authorization", "bearer", "webhook"}
	apiWords     = []string{"token", "apikey", "authtoken", "accesstoken", "accesskey", "apitoken", "sessiontoken",
		"authkey", "privkey", "secretkey"}
	apiSuffixes = []string{"token", "apikey", "accesskey", "authkey"}
	// words that may follow the key word of an API key name: api_key_prod, slack_token_value
	allowedTail = []string{"value", "val", "string", "str", "data", "b64", "base64", "hex", "raw", "enc", "encoded",
		"encrypted", "secure", "prod", "production", "dev", "development", "staging", "stage", "test", "testing", "live",
		"sandbox", "new", "old", "main", "default", "local", "backup", "temp", "tmp", "current", "v"}
	stopTail = []string{"id", "ids", "name", "names", "length", "len", "size", "type", "types", "file", "filename", "files",
		"path", "paths", "dir", "url", "uri", "endpoint", "host", "chars", "charset", "count", "format", "field", "fields",
		"label", "env", "var", "version", "prefix", "suffix", "pattern", "regex", "policy", "mode", "store", "vault",
		"manager", "provider", "ref", "arn", "location", "expiry", "expires", "expiration", "ttl", "timeout", "required",
		"enabled", "disabled", "hint", "rotation", "algorithm", "alg", "method", "scope", "scopes", "option", "options",
		"bytes", "bits", "index", "idx", "column", "header", "headers", "param", "params", "list", "set", "kind", "hash",
		"fingerprint", "digest", "sha", "md5", "checksum", "usage", "used", "limit", "max", "min", "input", "output",
		"num", "number", "status", "state", "reset", "strength", "rule", "rules", "check", "valid", "validation",
		"updated", "created", "changed", "age", "last", "placeholder", "prompt", "text", "desc", "description", "title",
		"button", "form", "class", "style", "template", "example", "sample", "source", "variable", "variables", "event",
		"events", "selector", "pair", "policy", "info", "details", "meta", "metadata", "config", "settings", "lifetime",
		"duration", "at", "date", "time", "timestamp", "user", "username", "login", "email", "holder", "owner", "issuer",
		"audience", "endpoint", "server", "service", "region", "ns", "namespace"}
	stopAny = []string{"public", "pub", "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup",
		"next", "page", "continuation", "pagination", "cursor", "max", "min", "total", "prompt", "completion", "input",
		"output", "sync", "hotkey", "shortcut", "keyboard", "keys", "bucket", "object", "routing", "lookup", "map", "dict",
		"table", "column", "row", "attr", "attribute", "property", "tag", "schema", "sequence", "group", "csrf", "xsrf",
		"vault", "store", "keystore", "truststore", "forgot", "reset", "policy", "expiry", "length", "placeholder",
		"authenticity", // Rails' authenticity_token: a per-form CSRF token
		"label", "hint", "show", "hide", "toggle", "remember"}
)

// Word flags, looked up once per key word in wordFlags.
const (
	wSecret uint16 = 1 << iota
	wAPI
	wWeakAPI
	wAllowedTail
	wStopTail
	wStopAny
	wLookupVerb
	wTypeWord
	wStopValue
)

var wordFlags = func() map[string]uint16 {
	m := map[string]uint16{}
	for _, l := range []struct {
		words []string
		f     uint16
	}{
		{secretWords, wSecret}, {apiWords, wAPI}, {weakAPIWords, wWeakAPI}, {allowedTail, wAllowedTail},
		{stopTail, wStopTail}, {stopAny, wStopAny}, {lookupVerbs, wLookupVerb}, {typeWords, wTypeWord},
		{stopValues, wStopValue},
	} {
		for _, w := range l.words {
			m[w] |= l.f
		}
	}
	return m
}()

// lookupWord returns the flags of a lower-case word (no allocation).
func lookupWord(w []byte) uint16 { return wordFlags[string(w)] }

func hasSuffixIn(w []byte, list []string) bool {
	for _, x := range list {
		if len(w) > len(x) && string(w[len(w)-len(x):]) == x {
			return true
		}
	}
	return false
}

// wordIter splits a key into lower-case words (digits and punctuation
// separate words and are dropped; camelCase and ACRONYMWord boundaries split).
// The returned word is only valid until the next call.
type wordIter struct {
	key string
	i   int
	buf [40]byte
}

func (it *wordIter) next() ([]byte, bool) {
	key := it.key
	n := 0
	for it.i < len(key) {
		i := it.i
		c := key[i]
		f := ctab[c]
		if f&(cUpper|cLower) == 0 {
			it.i++
			if n > 0 {
				return it.buf[:n], true
			}
			continue
		}
		if f&cUpper != 0 && n > 0 {
			prevLower := ctab[key[i-1]]&cLower != 0
			nextLower := i+1 < len(key) && ctab[key[i+1]]&cLower != 0
			prevUpper := ctab[key[i-1]]&cUpper != 0
			if prevLower || (prevUpper && nextLower) {
				return it.buf[:n], true
			}
		}
		if n < len(it.buf) {
			it.buf[n] = lower(c)
			n++
		}
		it.i++
	}
	return it.buf[:n], n > 0
}

// keyInfo is what an assignment key says about its value.
type keyInfo struct {
	cls                      uint8 // keyNone, keyAPI, keySecret
	sumo, facebook, cloudant bool  // vendor names with key-dependent value rules
	lookup                   bool  // first word is a lookup verb: get_secret(...)
	accessKeyID              bool  // access_key_id, AccessKeyId: a cloud access key ID
	api                      bool  // a word "api" (apiMetrics, stripe_api): only strong tokens count
}

func hasPrefixB(w []byte, p string) bool { return len(w) >= len(p) && string(w[:len(p)]) == p }

// classifyKey classifies an assignment key. A password or secret word
// anywhere makes it a secret; a key or token word makes it an API key, the
// generic words (key, auth) only when they end the name or are followed by
// words such as "value" or "prod": key_down_event is not an API key.
func classifyKey(key string) keyInfo {
	if len(key) > 96 {
		key = key[len(key)-96:]
	}
	var ki keyInfo
	secret, account, stop, strong := false, false, false, false
	apiTail := false
	prevAPI := false
	first := true
	var lastFlags uint16
	var w1, w2, last [12]byte // the two words before the current one, and the current one (truncated)
	nLast := 0
	sonar := false
	n1, n2 := 0, 0
	it := wordIter{key: key}
	for {
		w, ok := it.next()
		if !ok {
			break
		}
		f := lookupWord(w)
		lastFlags = f
		if first {
			first = false
			ki.lookup = f&wLookupVerb != 0
		}
		if hasPrefixB(w, "sumo") {
			ki.sumo = true
		}
		if hasPrefixB(w, "facebook") {
			ki.facebook = true
		}
		if hasPrefixB(w, "cloudant") {
			ki.cloudant = true
		}
		if string(w) == "sonar" {
			sonar = true
		}
		nLast = copy(last[:], w)
		switch {
		case f&wStopAny != 0:
			stop = true
		case f&wSecret != 0 || hasSuffixIn(w, secretSuffixes):
			secret = true
			apiTail = false
		case string(w) == "account" || string(w) == "storage":
			account = true
		case string(w) == "accountkey" || string(w) == "storagekey":
			account = true
			apiTail = true
		case f&wAPI != 0 || hasSuffixIn(w, apiSuffixes) || (prevAPI && (string(w) == "key" || string(w) == "token")):
			strong = true
			apiTail = true
		case f&wWeakAPI != 0:
			apiTail = true
		case apiTail && f&wAllowedTail != 0:
		default:
			apiTail = false
		}
		prevAPI = string(w) == "api"
		if prevAPI {
			ki.api = true
		}
		if string(w) == "id" && ((string(w1[:n1]) == "key" && string(w2[:n2]) == "access") || string(w1[:n1]) == "accesskey") ||
			string(w) == "accesskeyid" {
			ki.accessKeyID = true
		}
		n2 = copy(w2[:], w1[:n1])
		n1 = copy(w1[:], w)
		if stop {
			break
		}
	}
	switch {
	case sonar && string(last[:nLast]) == "login":
		ki.cls = keyAPI // sonar.login holds a SonarQube token, not a user name
	case stop || lastFlags&wStopTail != 0:
		ki.cls = keyNone
		ki.api = false
	case secret:
		ki.cls = keySecret
	case account && apiTail:
		ki.cls = keySecret
	case apiTail || strong:
		ki.cls = keyAPI
	}
	return ki
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
	if i >= 2 && s[i-1] == ':' && isAlnum(s[i-2]) && !(i >= 5 && s[i-5] == '$' && eqFold(s[i-4:i], "env:")) {
		// "…:secret:prod/db" inside an ARN: a part of a name, not a key
		// (PowerShell's $env:API_KEY = "…" is a key)
		return -1
	}
	ke, may := keySpan(s, i)
	for ke > i && (s[ke-1] == '.' || s[ke-1] == '-') {
		ke--
	}
	if !may && (s[i]|0x20) == 's' && hasPrefixFold(s[i:ke], "sonar") {
		may = true // sonar.login, sonar_token
	}
	if !may && ke-i == 4 && eqFold(s[i:ke], "name") {
		may = true // name/value pairs: {"name": "DB_PASSWORD", "value": "…"}
	}
	if !may || ke-i < 2 || ke >= n {
		return -1
	}
	// quick reject: the byte after the key must be able to lead to an operator
	switch s[ke] {
	case '"', '\'', '\\', ' ', '\t', ':', '=', '!', '?', '.', '+', '|', '>', '[', ']', '(':
	default:
		return -1
	}
	p := ke
	xml := false
	// define('DB_PASSWORD', 'value') / setenv("TOKEN", "value")
	callArg := (s[ke] == '"' || s[ke] == '\'') && i >= 2 && s[i-1] == s[ke] && s[i-2] == '('
	switch {
	case s[p] == '"' || s[p] == '\'':
		p++
	case s[p] == '\\':
		// \" or \\\" after the key: JSON escaped once or more
		r := p
		for r < n && s[r] == '\\' && r-p < 8 {
			r++
		}
		if r < n && (s[r] == '"' || s[r] == '\'') {
			p = r + 1
		}
	case s[p] == '>' && i > 0 && s[i-1] == '<':
		xml = true
	}
	if !xml && p < n && s[p] == ']' && i >= 2 && s[i-2] == '[' {
		p++ // some_dict["secret"] = …
	}
	if !xml && p < n && s[p] == '[' {
		// char x_token[] = "…", char secret[25] = "…"
		d := spanClass(s, p+1, cDigit, 6)
		if d < n && s[d] == ']' {
			p = d + 1
		}
	}
	q := p
	for q < n && (s[q] == ' ' || s[q] == '\t') && q-p < 16 {
		q++
	}
	if !xml && q < n && s[q] != '=' && s[q] != ':' {
		q = skipTypeAnnotation(s, q)
	} else if !xml && q+1 < n && s[q] == ':' && s[q+1] == ' ' {
		// Kotlin/TypeScript "token: String = …"
		if t := skipTypeAnnotation(s, q); t > q {
			q = t
		}
	}
	var v int
	switch {
	case xml:
		v = p + 1
		for v < n && (s[v] == ' ' || s[v] == '\t' || s[v] == '\n' || s[v] == '\r') && v-p < 64 {
			v++
		}
	case callArg && q < n && s[q] == ',':
		v = q + 1
	case q == ke && q+1 < n && s[q] == '(' && (s[q+1] == '"' || s[q+1] == '\''):
		// std::string secret("…"); secret.assign("…", 17)
		if classifyKey(s[i:ke]).lookup {
			return -1
		}
		v = q + 1
	default:
		v = parseOp(s, q)
		if v < 0 {
			switch {
			case q > p && i >= 2 && s[i-1] == '-' && s[i-2] == '-':
				v = q // CLI flag "--token VALUE"
			case q > p && q+2 < n && s[q] == '-' && s[q+1] == ' ' && (s[q+2] == '"' || s[q+2] == '\''):
				v = q + 2 // "token - 'VALUE'": a dash between a key word and a quoted value
			case q < n && (s[q] == '"' || s[q] == '\''):
				// `private_key "value";`, `(def api-token "value")`
				_, ve, _, ok := parseValue(s, q, false, false)
				if !ok || ve+1 >= n || (s[ve+1] != ';' && s[ve+1] != ')') {
					return -1
				}
				v = q
			case q > p && !xml:
				// prose: "the admin password was …", "the leaked token …"
				return sc.proseStatement(s, i, ke, q)
			default:
				return -1
			}
		}
	}
	key := s[i:ke]
	if len(key) <= 4 && (eqFold(key, "name") || eqFold(key, "key")) {
		if sc.namedValue(s, v, xml) || len(key) == 4 {
			return ke
		}
		// key = "…" with no sibling value: the key word itself
	}
	ki := classifyKey(key)
	if ki.cls == keyNone && !ki.sumo && !ki.facebook && !ki.accessKeyID && !ki.api {
		return ke
	}
	if q == ke && s[q] == ':' && v == q+1 && v < n && s[v] != ' ' && s[v] != '"' && s[v] != '\'' {
		// "CredentialAccess:IAMUser/AnomalousBehavior", "secret:prod/db-1":
		// a colon glued on both sides joins the parts of a namespaced name
		// (finding types, ARNs, URNs); it is an assignment only when the
		// value is not path-like
		if e := spanClass(s, v, cTokBody, 256); strings.IndexByte(s[v:e], '/') >= 0 {
			return ke
		}
	}
	for v < n && (s[v] == ' ' || s[v] == '\t') && v-q < 32 {
		v++
	}
	query := i > 0 && (s[i-1] == '?' || s[i-1] == '&')
	vs, ve, quoted, ok := parseValue(s, v, xml, query)
	if !ok {
		return ke
	}
	if !quoted && s[vs] == '(' && commandExpr(s[vs+1:ve]) {
		// $secret = (Get-AzKeyVaultSecret -VaultName kv).SecretValue: a
		// command's result, not a literal
		return ke
	}
	if !quoted && cmdletShape(s[vs:ve]) && (ve == n || s[ve] <= ' ' || s[ve] == ';' || s[ve] == ')' || psVerb(s[vs:ve])) {
		// $password = ConvertTo-SecureString "…" -AsPlainText: the literal
		// is the argument of a conversion cmdlet; other commands
		// (Read-Host "prompt", Get-Credential) take prompts and names or
		// nothing at all
		if !convertCmdlet(s[vs:ve]) || ve+1 >= n || s[ve] != ' ' || (s[ve+1] != '"' && s[ve+1] != '\'') {
			return ke
		}
		if a, b, q2, ok2 := parseValue(s, ve+1, false, false); ok2 {
			vs, ve, quoted = a, b, q2
		}
	}
	val := s[vs:ve]
	typ, ok := valueType(ki, key, val, quoted)
	if ok {
		sc.add(vs, ve, typ, prioAssign)
	}
	return ke
}

// namedValue handles a value named by a sibling field: the environment
// lists of container definitions and manifests ({"name": "DB_PASSWORD",
// "value": "…"}, "- name: API_TOKEN⏎  value: …") and configuration
// attributes (<add key="ClientSecret" value="…"/>). The name at v is
// classified like a key; the value follows within a short distance. It
// reports whether a sibling value field was found.
func (sc *scanner) namedValue(s string, v int, xml bool) bool {
	n := len(s)
	for v < n && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	ns, ne, _, ok := parseValue(s, v, xml, false)
	if !ok || ne-ns < 3 || ne-ns > 64 || !allClass(s[ns:ne], cKey) {
		return false
	}
	name := s[ns:ne]
	ki := classifyKey(name)
	if ki.cls == keyNone && !ki.accessKeyID {
		return false
	}
	// skip the closing quote, separators and the indentation of the next line
	p := ne
	for p < n && p-ne < 48 {
		switch c := s[p]; {
		case c == '"' || c == '\'' || c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '-' || c == '/' || c == '\\':
			if c == '\\' && p+1 < n && (s[p+1] == 'n' || s[p+1] == 't' || s[p+1] == 'r') {
				p++ // an escaped newline
			}
			p++
			continue
		}
		break
	}
	if p+5 > n || !hasPrefixFold(s[p:], "value") || (p+5 < n && isWord(s[p+5])) {
		return false
	}
	q := p + 5
	for q < n && (s[q] == '"' || s[q] == '\'' || s[q] == '\\') && q-p < 12 {
		q++
	}
	for q < n && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	if q >= n || (s[q] != ':' && s[q] != '=') {
		return false
	}
	q++
	for q < n && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	vs, ve, quoted, ok := parseValue(s, q, false, false)
	if !ok {
		return false
	}
	if typ, ok := valueType(ki, name, s[vs:ve], quoted); ok {
		sc.add(vs, ve, typ, prioAssign)
	}
	return true
}

var lookupVerbs = []string{"get", "load", "read", "fetch", "find", "lookup", "resolve", "retrieve", "request", "has",
	"is", "check", "validate", "verify", "remove", "delete", "del", "create", "generate", "gen", "rotate", "update",
	"decrypt", "encrypt", "hash", "compare", "print", "log", "show", "list", "describe", "new", "make", "parse"}

// typeWords are declared types that may sit between a key and its operator:
// "var token string = …", "Dim token As String = …", "token: String = …".
var typeWords = []string{"string", "str", "&str", "char", "text", "bytes", "[]byte", "as", "const", "final", "static", "secret", "securestring", "password", "any"}

// skipTypeAnnotation skips ": Type" or up to two type words at q when an
// assignment operator follows them; it returns q unchanged otherwise.
func skipTypeAnnotation(s string, q int) int {
	n := len(s)
	p := q
	if p < n && s[p] == ':' {
		p++
		for p < n && s[p] == ' ' {
			p++
		}
	}
	words := 0
	for words < 2 {
		e := p
		for e < n && (isWord(s[e]) || s[e] == '&' || s[e] == '[' || s[e] == ']' || s[e] == '?') && e-p < 16 {
			e++
		}
		if e == p {
			break
		}
		var buf [16]byte
		w := buf[:0]
		for k := p; k < e; k++ {
			if s[k] != '?' {
				w = append(w, lower(s[k]))
			}
		}
		if lookupWord(w)&wTypeWord == 0 {
			break
		}
		words++
		p = e
		for p < n && s[p] == ' ' {
			p++
		}
	}
	if words == 0 || p >= n || s[p] != '=' || (p+1 < n && s[p+1] == '=') {
		return q
	}
	return p
}

// parseValue extracts the value starting at v: a quoted string on the same
// line (plain, JSON-escaped \"…\", or ObjC @"…"), or an unquoted run.
func parseValue(s string, v int, xml, query bool) (vs, ve int, quoted, ok bool) {
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
	case !xml && c == '\\':
		// a value quoted inside JSON-escaped text: \"…\" (escaped once),
		// \\\"…\\\" (twice), …; it ends at the same escaped quote
		r := v
		for r < n && s[r] == '\\' && r-v < 8 {
			r++
		}
		if r >= n || (s[r] != '"' && s[r] != '\'') {
			break
		}
		delim := s[v : r+1]
		for e := r + 1; e+len(delim) <= n && e-v < 2048; e++ {
			if s[e] == '\n' {
				return
			}
			if s[e] == '\\' && strings.HasPrefix(s[e:], delim) {
				return r + 1, e, true, true
			}
		}
		return
	case c == '`':
		// a Go raw string or JS template literal holding one token; a
		// command substitution (`cat /run/secret`) has spaces and is left
		for e := v + 1; e < n && e-v < 2048; e++ {
			switch b := s[e]; {
			case b == '`':
				if e == v+1 || hasInterpolation(s[v+1:e]) {
					return
				}
				return v + 1, e, true, true
			case b <= ' ':
				return
			}
		}
		return
	}
	e := v
	for e < n && e-v < 256 {
		b := s[e]
		if b <= ' ' || b >= 0x80 || b == '"' || b == '\'' || b == '`' || b == ',' || b == ';' || (query && (b == '&' || b == '#')) || (xml && b == '<') {
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
func valueType(ki keyInfo, key, val string, quoted bool) (uint8, bool) {
	cls := ki.cls
	if len(val) == 0 || strings.Contains(val, phPrefix) || !hasAlnum(val) {
		return 0, false
	}
	// vendor rules that depend on the key (Sumo Logic access ID, Facebook app secret)
	if ki.sumo && len(val) == 14 && strings.HasPrefix(val, "su") && allClass(val, cDigit|cUpper|cLower) && mixedClasses(val, 2) {
		return tAPIKey, true
	}
	if ki.facebook && len(val) == 32 && isLowerHex(val) && hasLetter(val) {
		return tSecret, true
	}
	if ki.accessKeyID {
		// cloud access key IDs: upper-case letters and digits (AWS), or
		// random mixed-case and hex IDs of other clouds (LTAI…, AKID…)
		if len(val) >= 16 && len(val) <= 128 && allClass(val, cUpper|cDigit) && hasLetter(val) &&
			strings.ContainsAny(val, "0123456789") && !placeholderBody(val) {
			return tAPIKey, true
		}
		return tAPIKey, strongToken(val)
	}
	if cls == keyNone {
		if ki.api && !quoted {
			return 0, false
		}
		if ki.api && strongToken(val) {
			// a quoted random token under a key naming an API
			// ("apiMetrics := \"5po8…\""); names, URLs and versions
			// are not random
			return tAPIKey, true
		}
		return 0, false
	}
	if cls == keyAPI && ki.cloudant {
		cls = keySecret // Cloudant API keys are account passwords
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
		if lookupWord(buf[:len(lv)])&wStopValue != 0 {
			return 0, false
		}
	}
	if eqFold(val, key) {
		return 0, false
	}
	switch cls {
	case keySecret:
		if len(val) < 4 || (len(val) < 6 && allClass(val, cUpper|cLower)) || identifierLike(val) {
			return 0, false
		}
		if !quoted && allClass(val, cUpper|cLower|cUnder) {
			return 0, false // an identifier: a variable, not a literal
		}
		return tSecret, true
	case keyAPI:
		if !quoted && allClass(val, cUpper|cLower|cUnder) {
			return 0, false // an identifier: a variable, not a literal
		}
		if len(val) < 8 || (!quoted && strings.IndexByte(val, ' ') >= 0) || identifierLike(val) || alphabetRun(val) || versionSuffix(val) {
			return 0, false
		}
		digit := strings.ContainsAny(val, "0123456789")
		if len(val) >= 16 && allClass(val, cDigit) && distinctBytes(val) >= 5 {
			return tAPIKey, true // numeric tokens
		}
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
	// a vendor prefix with a placeholder body: glc_1111…, duffel_test_bbbb…
	if k := strings.LastIndexAny(v, "_-"); k > 0 && k <= 16 && len(v)-k-1 >= 12 && placeholderBody(v[k+1:]) {
		return true
	}
	// constant names such as ACCESS_TOKEN or IBM_IAM_API_KEY_ENV
	if allClass(v, cUpper|cDigit|cUnder) && strings.IndexByte(v, '_') >= 0 && !strings.ContainsAny(v, "0123456789") {
		return true
	}
	var buf [64]byte
	lv := buf[:0]
	var present [4]uint64
	for i := 0; i < len(v) && i < len(buf); i++ {
		c := lower(v[i])
		lv = append(lv, c)
		present[c>>6] |= 1 << (c & 63)
	}
	for k := range placeholderWords {
		w := &placeholderWords[k]
		if w.short && len(v) > 24 && !bytes.HasPrefix(lv, w.word) {
			continue // "fake" inside a long random value is chance, not a marker
		}
		if present[0]&w.need[0] == w.need[0] && present[1]&w.need[1] == w.need[1] && bytes.Contains(lv, w.word) {
			return true
		}
	}
	return false
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

// ---------------------------------------------------------------- "value" == key

// scanReversedCompare handles comparisons written value-first:
// if ("hunter2" == password).
func (sc *scanner) scanReversedCompare(s string) {
	sc.reversedCompare(s, "==")
	sc.reversedCompare(s, "!=")
}

func (sc *scanner) reversedCompare(s, opText string) {
	n := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], opText)
		if k < 0 {
			return
		}
		p := from + k
		from = p + 2
		op := p
		if opText == "==" && op > 0 && (s[op-1] == '!' || s[op-1] == '=') {
			continue // counted by the "!=" pass, or the tail of "==="
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
		ki := classifyKey(key)
		if ki.cls == keyNone {
			continue
		}
		if typ, ok := valueType(ki, key, s[vs:ve], true); ok {
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
		first, fs, fe, ok := curlPart(s, q)
		if !ok {
			continue
		}
		quoted := s[q] == '"' || s[q] == '\''
		var user, pass string
		us, ps, pe := fs, -1, -1
		if c := strings.IndexByte(first, ':'); c >= 0 {
			user, pass = first[:c], first[c+1:]
			ps, pe = fs+c+1, fe
			if pass == "" && !quoted && fe < n && (s[fe] == '"' || s[fe] == '\'') {
				// user:'pass' — the password quoted on its own
				if p2, a, b, ok2 := curlPart(s, fe); ok2 && p2 != "" {
					pass, ps, pe = p2, a, b
				}
			}
		} else if quoted && fe+1 < n && s[fe+1] == ':' {
			// "user":"pass" written as two quoted strings
			p2, a, b, ok2 := curlPart(s, fe+2)
			if !ok2 {
				continue
			}
			user, pass, ps, pe = first, p2, a, b
		} else {
			continue
		}
		// {…}-wrapped literals (IBM Cloud examples) are checked without the
		// braces but replaced with them
		if u := unwrapBraces(user); user != "" && placeholderValue(u) {
			continue
		}
		if pass != "" && !credValueOK(unwrapBraces(pass)) {
			continue
		}
		switch {
		case pass != "":
			sc.add(ps, pe, tSecret, prioCred)
		case len(user) >= 8 && !placeholderValue(user) && mixedClasses(user, 2):
			// "-u KEY:" — an API key used as the user name, empty password
			sc.add(us, us+len(user), tSecret, prioCred)
		}
		if pe > from {
			from = pe
		}
	}
}

// unwrapBraces strips {…} around a literal credential (IBM Cloud examples
// write "{apikey}"), keeping templates such as {{x}} and ${x} intact.
func unwrapBraces(v string) string {
	if len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' && v[1] != '{' && v[1] != '$' && !strings.ContainsAny(v[1:len(v)-1], "{}") {
		return v[1 : len(v)-1]
	}
	return v
}

// scanMySQLPassword handles "mysql -uroot -pS3cret": the value glued to -p on
// a mysql/mysqldump/mysqladmin command line.
func (sc *scanner) scanMySQLPassword(s string) {
	n := len(s)
	for from := 0; ; {
		k := strings.Index(s[from:], "-p")
		if k < 0 {
			return
		}
		p := from + k + 2
		from = p
		if p < 3 || s[p-3] != ' ' {
			continue
		}
		if p >= n || s[p] <= ' ' || s[p] == '-' || s[p] >= 0x7f {
			continue
		}
		if !lineHasFold(s, p, "mysql") {
			continue
		}
		vs := p
		if s[p] == '"' || s[p] == '\'' {
			vs++
		}
		e := vs
		for e < n && s[e] > ' ' && s[e] < 0x7f && s[e] != '"' && s[e] != '\'' && e-vs < 256 {
			e++
		}
		if e-vs >= 3 && !placeholderValue(s[vs:e]) {
			sc.add(vs, e, tSecret, prioCred)
		}
		from = e
	}
}

// cliPasswordFlags are the password options of common command-line tools:
// the flag letter after " -", and the commands (any one on the same line)
// that read it as a password.
var cliPasswordFlags = [...]struct {
	flag byte
	cmds []string
}{
	{'p', []string{"sshpass", "docker login", "podman login", "nerdctl login", "oras login", "helm registry login", "az login"}},
	{'w', []string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd"}},
	{'a', []string{"redis-cli"}},
	{'U', []string{"smbclient", "rpcclient", "smbmap"}}, // -U user%password
}

// cliOptionAt handles passwords given on a command line as the value of a
// tool's password option: sshpass -p '…', docker login -u u -p …, az login
// -u id -p …, ldapsearch -w …, redis-cli -a …, smbclient -U user%password.
// The word walk calls it at the '-' of " -x "; it returns the end of the
// value, or -1.
func (sc *scanner) cliOptionAt(s string, d int) int {
	n := len(s)
	o := d + 1
	fi := -1
	for j := range cliPasswordFlags {
		if cliPasswordFlags[j].flag == s[o] {
			fi = j
			break
		}
	}
	if fi < 0 {
		return -1
	}
	p := o + 2
	found := false
	for _, c := range cliPasswordFlags[fi].cmds {
		if lineHasFold(s, p, c) {
			found = true
			break
		}
	}
	if !found || p >= n || s[p] == '-' || s[p] == '$' {
		return -1
	}
	vs, ve, _, ok := parseValue(s, p, false, false)
	if !ok {
		return -1
	}
	if s[o] == 'U' {
		// user%password: the part after the first '%'
		pc := strings.IndexByte(s[vs:ve], '%')
		if pc <= 0 {
			return -1
		}
		vs += pc + 1
	}
	if v := s[vs:ve]; credValueOK(v) && !strings.Contains(v, "://") && !pathLike(v) {
		sc.add(vs, ve, tSecret, prioCred)
		return ve
	}
	return -1
}

// pathLike recognises a file path given where a password may be (az login
// -p takes a certificate file as well).
func pathLike(v string) bool {
	if v[0] == '/' || v[0] == '~' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	for _, ext := range []string{".pem", ".crt", ".pfx", ".p12", ".key", ".cer"} {
		if hasSuffixFold(v, ext) {
			return true
		}
	}
	return false
}

// secureStringAt handles the literal converted by PowerShell's
// ConvertTo-SecureString wherever the call is (in a parenthesised argument,
// with -String): the quoted argument is a password in plain text. The word
// walk calls it with e at the end of "ConvertTo"; it returns the end of the
// literal, or -1.
func (sc *scanner) secureStringAt(s string, e int) int {
	n := len(s)
	const conv = "-securestring"
	if e+len(conv) > n || !eqFold(s[e:e+len(conv)], conv) {
		return -1
	}
	p := e + len(conv)
	for p < n && s[p] == ' ' {
		p++
	}
	if p+8 < n && eqFold(s[p:p+8], "-string ") {
		p += 8
		for p < n && s[p] == ' ' {
			p++
		}
	}
	if p >= n || (s[p] != '"' && s[p] != '\'') {
		return -1
	}
	vs, ve, _, ok := parseValue(s, p, false, false)
	if !ok || !credValueOK(s[vs:ve]) {
		return -1
	}
	sc.add(vs, ve, tSecret, prioCred)
	return ve
}

// ---------------------------------------------------------------- password files

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
	if host == "" || (host != "*" && !hasLetter(host)) || !pgpassLineStart(s, hs) {
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

// ---------------------------------------------------------------- Japanese keywords

// cjkKeywords are matched at their first byte while scanWords walks the
// non-ASCII text; prefix, when set, must precede the needle (case-insensitive).
var cjkKeywords = []struct {
	needle, prefix string
	typ            uint8
}{
	{"パスワード", "", tSecret},
	{"暗証番号", "", tSecret},
	{"シークレット", "", tSecret},
	{"キー", "api", tAPIKey},
	{"アクセスキー", "", tAPIKey},
	{"トークン", "", tAPIKey},
	{"ña", "contrase", tSecret},
	{"ÑA", "contrase", tSecret},
}

// cjkKeywordAt handles "パスワード: hunter2", "パスワードはhunter2です" with the
// keyword at i: the value is the ASCII run (or quoted string) after the
// keyword and an optional separator. It returns where scanning continues,
// or -1 when there is no keyword at i.
func (sc *scanner) cjkKeywordAt(s string, i int) int {
	n := len(s)
	if i+2 >= n {
		return -1
	}
	// quick filter on the first character: パ シ キ ア ト (E3 8x xx), 暗 (E6 9A 97), ñ Ñ (C3 B1, C3 91)
	switch uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2]) {
	case 0xE38391, 0xE382B7, 0xE382AD, 0xE382A2, 0xE38388, 0xE69A97:
	default:
		if s[i] != 0xC3 || (s[i+1] != 0xB1 && s[i+1] != 0x91) {
			return -1
		}
	}
	for _, kw := range cjkKeywords {
		if s[i] != kw.needle[0] || !strings.HasPrefix(s[i:], kw.needle) {
			continue
		}
		if kw.prefix != "" {
			a := i - len(kw.prefix)
			if a < 0 || !hasPrefixFold(s[a:], kw.prefix) {
				continue
			}
		}
		from := i + len(kw.needle)
		p := from
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
		vs, e, quoted, ok := parseValue(s, p, false, false)
		if !ok {
			return from
		}
		if !quoted {
			e = trimUnbalanced(s, vs, e)
		}
		val := s[vs:e]
		if len(val) < 4 || placeholderValue(val) || strings.Contains(val, "://") {
			return from
		}
		if kw.typ == tAPIKey && !(mixedClasses(val, 2) && len(val) >= 8) {
			return from
		}
		sc.add(vs, e, kw.typ, prioAssign)
		return from
	}
	return -1
}

// cmdletShape recognises a PowerShell Verb-Noun command name (Read-Host,
// Get-Secret, ConvertTo-SecureString).
func cmdletShape(w string) bool {
	k := strings.IndexByte(w, '-')
	return k > 1 && k < len(w)-2 && isUpper(w[0]) && isUpper(w[k+1]) &&
		allClass(w[:k], cUpper|cLower) && allClass(w[k+1:], cUpper|cLower)
}

// convertCmdlet recognises a conversion cmdlet, whose argument is the
// literal itself.
func convertCmdlet(w string) bool {
	k := strings.IndexByte(w, '-')
	return k > 0 && (eqFold(w[:k], "convertto") || eqFold(w[:k], "convertfrom"))
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

// curlPart reads one curl credential word at q: a quoted string or a bare
// run; it returns the text and its bounds (without quotes).
func curlPart(s string, q int) (string, int, int, bool) {
	n := len(s)
	if q >= n {
		return "", 0, 0, false
	}
	if s[q] == '"' || s[q] == '\'' {
		qc := s[q]
		e := q + 1
		for e < n && s[e] != qc && s[e] != '\n' && e-q < 512 {
			e++
		}
		if e >= n || s[e] != qc {
			return "", 0, 0, false
		}
		return s[q+1 : e], q + 1, e, true
	}
	e := q
	for e < n && s[e] > ' ' && s[e] < 0x7f && s[e] != '"' && s[e] != '\'' && s[e] != '`' && e-q < 512 {
		e++
	}
	if e == q {
		return "", 0, 0, false
	}
	return s[q:e], q, e, true
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
	may := false
	prev, prev2 := -1, -1
	for ; i < end; i++ {
		c := s[i]
		f := ctab[c]
		if f&cKey == 0 {
			break
		}
		if f&(cUpper|cLower) == 0 {
			prev, prev2 = -1, -1
			continue
		}
		x := int(c|0x20) - 'a'
		if prev >= 0 && (keyBigrams[prev*26+x] || (x == 'i'-'a' && prev == 'p'-'a' && prev2 == 'a'-'a')) {
			may = true // a key word's first letters, or "api"
		}
		prev2, prev = prev, x
	}
	return i, may
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

// ---------------------------------------------------------------- prose

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

// psVerbs are PowerShell's approved verbs that commonly produce credentials
// or values (Get-Credential, Read-Host, Import-Clixml, Invoke-RestMethod).
var psVerbs = []string{"get", "read", "import", "export", "invoke", "new", "convertto", "convertfrom", "select",
	"unprotect", "protect", "find", "request", "receive", "resolve", "test", "set", "add", "join", "split", "format",
	"out", "write", "start"}

// psVerb reports a Verb-Noun command whose verb is an approved PowerShell verb.
func psVerb(w string) bool {
	k := strings.IndexByte(w, '-')
	if k <= 0 {
		return false
	}
	for _, vb := range psVerbs {
		if eqFold(w[:k], vb) {
			return true
		}
	}
	return false
}

// commandExpr recognises the start of a parenthesised expression: a
// PowerShell command ("Get-AzKeyVaultSecret"), a variable ("$cred.…") or
// a call or member access ("os.environ.get(…").
func commandExpr(v string) bool {
	v = strings.TrimRight(v, ")")
	if v == "" {
		return false
	}
	if v[0] == '$' {
		return true
	}
	if cmdletShape(v) && psVerb(v) {
		return true
	}
	return referenceValue(v)
}
