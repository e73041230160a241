package redact

import (
	"strings"
)

// Key/value assignments: `password = "…"`, `"api_key": "…"`, `token: …`,
// `--token=…`, `<password>…</password>`, `if (db_pass !== "…")`. The key is
// split into words (snake_case, kebab-case, dotted and camelCase); a key
// whose words name a password or secret gives SECRET, one naming a key or a
// token gives API_KEY, unless its last word says the value is metadata
// (…_id, …_name, …_length, …_file, …). Values that are placeholders,
// environment or code references, or too weak to be credentials are left.

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
	ke := assignKeyEnd(s, i)
	if ke < 0 {
		return -1
	}
	p, xml, callArg := keyClose(s, i, ke)
	q := p
	for q < len(s) && (s[q] == ' ' || s[q] == '\t') && q-p < 16 {
		q++
	}
	if !xml && q < len(s) && s[q] != '=' && s[q] != ':' {
		q = skipTypeAnnotation(s, q)
	} else if !xml && q+1 < len(s) && s[q] == ':' && s[q+1] == ' ' {
		// Kotlin/TypeScript "token: String = …"
		if t := skipTypeAnnotation(s, q); t > q {
			q = t
		}
	}
	v, done := sc.valueStart(s, i, ke, p, q, xml, callArg)
	if v < 0 {
		return done
	}
	return sc.assignedValue(s, i, ke, q, v, xml)
}

// assignKeyEnd returns the end of a key at i that may name a value (its
// letters hold a key word's), or -1 when the word is no key.
func assignKeyEnd(s string, i int) int {
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
	if !may || ke-i < 2 || ke >= len(s) {
		return -1
	}
	// quick reject: the byte after the key must be able to lead to an operator
	switch s[ke] {
	case '"', '\'', '\\', ' ', '\t', ':', '=', '!', '?', '.', '+', '|', '>', '[', ']', '(':
		return ke
	}
	return -1
}

// keyClose reads past what closes the key [i,ke): its quote (escaped once
// or more in JSON), the '>' of an XML element, the ["…"] of an index or the
// [25] of a C array. It returns where the operator may start, whether the
// key is an XML element name, and whether it is the first argument of a call.
func keyClose(s string, i, ke int) (p int, xml, callArg bool) {
	n := len(s)
	p = ke
	// define('DB_PASSWORD', 'value') / setenv("TOKEN", "value")
	callArg = (s[ke] == '"' || s[ke] == '\'') && i >= 2 && s[i-1] == s[ke] && s[i-2] == '('
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
		xml = true // an element when its closing tag follows the value (closingTagAhead)
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
	return p, xml, callArg
}

// valueStart finds where the value of the key [i,ke) starts: after an
// operator at q, after the comma of a call's first argument, after an XML
// element's '>', or for prose ("the admin password was …") in
// proseStatement. It returns the start, or -1 and what assignment returns.
func (sc *scanner) valueStart(s string, i, ke, p, q int, xml, callArg bool) (int, int) {
	n := len(s)
	var v int
	switch {
	case xml:
		v = p + 1
		for v < n && (s[v] == ' ' || s[v] == '\t' || s[v] == '\n' || s[v] == '\r') && v-p < 64 {
			v++
		}
	case callArg && q < n && s[q] == ',':
		v = q + 1
	case q == ke && q+1 < n && s[q] == '(' && quoteAt(s, q+1):
		// std::string secret("…"); secret.assign("…", 17)
		if classifyKey(s[i:ke]).lookup {
			return -1, -1
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
			case quoteAt(s, q):
				// `private_key "value";`, `(def api-token "value")`
				_, ve, _, ok := parseValue(s, q, false, false)
				if c := afterClose(s, ve); !ok || c >= n || (s[c] != ';' && s[c] != ')') {
					if q > p && !xml {
						return -1, sc.proseStatement(s, i, ke, q) // passphrase "red-Otter-19"
					}
					return -1, -1
				}
				v = q
			case q > p && !xml:
				// prose: "the admin password was …", "the leaked token …"
				return -1, sc.proseStatement(s, i, ke, q)
			default:
				return -1, -1
			}
		}
	}
	return v, 0
}

// assignedValue classifies the key [i,ke) and records the value at v.
func (sc *scanner) assignedValue(s string, i, ke, q, v int, xml bool) int {
	n := len(s)
	key := s[i:ke]
	if len(key) <= 4 && (eqFold(key, "name") || eqFold(key, "key")) {
		if sc.namedValue(s, v, xml) || len(key) == 4 {
			return ke
		}
		// key = "…" with no sibling value: the key word itself
	}
	ki := sc.keyInfos.classify(key)
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
	vs, ve, quoted, ok := literalAt(s, v, xml, query)
	if !ok || sc.schemeCredential(s, key, vs, ve) || (xml && !closingTagAhead(s, ve)) {
		return ke
	}
	if ki.cls == keySecret && !quoted && appPassword(s, vs, ve) {
		sc.add(vs, ve+15, tSecret, prioAssign)
		return ve + 15
	}
	if typ, ok := valueType(ki, key, s[vs:ve], quoted); ok {
		sc.add(vs, ve, typ, prioAssign)
	}
	return ke
}

// appPassword reports an app password as Google shows it, four groups of
// four lower-case letters with a space between them ("abcd efgh ijkl
// mnop"), whose first group is the unquoted value [vs,ve).
func appPassword(s string, vs, ve int) bool {
	if ve-vs != 4 || ve+15 > len(s) || !allClass(s[vs:ve], cLower) || !rightBoundary(s, ve+15) {
		return false
	}
	for g := ve; g < ve+15; g += 5 {
		if s[g] != ' ' || !allClass(s[g+1:g+5], cLower) {
			return false
		}
	}
	return true
}

// literalAt reads the value at v ([vs,ve), and whether it was quoted) and
// reports whether it is a literal: not a command's result, and of a
// conversion cmdlet, its argument.
func literalAt(s string, v int, xml, query bool) (vs, ve int, quoted, ok bool) {
	n := len(s)
	vs, ve, quoted, ok = parseValue(s, v, xml, query)
	if !ok {
		return
	}
	if !quoted && s[vs] == '(' && commandExpr(s[vs+1:ve]) {
		// $secret = (Get-AzKeyVaultSecret -VaultName kv).SecretValue: a
		// command's result, not a literal
		return vs, ve, quoted, false
	}
	if !quoted && cmdletShape(s[vs:ve]) && (ve == n || s[ve] <= ' ' || s[ve] == ';' || s[ve] == ')' || psVerb(s[vs:ve])) {
		// $password = ConvertTo-SecureString "…" -AsPlainText: the literal
		// is the argument of a conversion cmdlet; other commands
		// (Read-Host "prompt", Get-Credential) take prompts and names or
		// nothing at all
		if !convertCmdlet(s[vs:ve]) || ve+1 >= n || s[ve] != ' ' || (s[ve+1] != '"' && s[ve+1] != '\'') {
			return vs, ve, quoted, false
		}
		if a, b, q2, ok2 := parseValue(s, ve+1, false, false); ok2 {
			vs, ve, quoted = a, b, q2
		}
	}
	return vs, ve, quoted, true
}

// namedValue handles a value named by a sibling field: the environment
// lists of container definitions and manifests ({"name": "DB_PASSWORD",
// "value": "…"}, "- name: API_TOKEN⏎  value: …") and configuration
// attributes (<add key="ClientSecret" value="…"/>). The name at v is
// classified like a key; the value follows within a short distance. It
// reports whether a sibling value field was found.
func (sc *scanner) namedValue(s string, v int, xml bool) bool {
	name, ne, ok := siblingName(s, v, xml)
	if !ok {
		return false
	}
	ki := sc.keyInfos.classify(name)
	if ki.cls == keyNone && !ki.accessKeyID {
		return false
	}
	q := siblingValueStart(s, ne)
	var vs, ve int
	var quoted bool
	if q >= 0 {
		vs, ve, quoted, ok = parseValue(s, q, false, false)
	} else {
		vs, ve, ok = namedElementText(s, ne)
	}
	if !ok {
		return false
	}
	if typ, ok := valueType(ki, name, s[vs:ve], quoted); ok {
		sc.add(vs, ve, typ, prioAssign)
	}
	return true
}

// namedElementText reads the text of an XML element whose name attribute
// ends at ne: <Data Name="Password">value</Data>, as Windows event XML and
// .NET settings files write a named value. The text runs to the next tag.
func namedElementText(s string, ne int) (vs, ve int, ok bool) {
	if ne+2 >= len(s) || (s[ne] != '"' && s[ne] != '\'') || s[ne+1] != '>' {
		return 0, 0, false
	}
	vs = ne + 2
	k := strings.IndexByte(s[vs:min(len(s), vs+257)], '<')
	if k <= 0 || strings.ContainsAny(s[vs:vs+k], "\n\r") {
		return 0, 0, false
	}
	return vs, vs + k, true
}

// siblingName reads the name at v (after spaces): a key-shaped value of 3
// to 64 bytes; it returns the name and where it ends.
func siblingName(s string, v int, xml bool) (name string, ne int, ok bool) {
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	ns, ne, _, ok := parseValue(s, v, xml, false)
	if !ok || ne-ns < 3 || ne-ns > 64 || !allClass(s[ns:ne], cKey) {
		return "", 0, false
	}
	return s[ns:ne], ne, true
}

// siblingValueStart finds the value field after a name ending at ne:
// closing quotes, separators and the indentation of the next line, then
// "value", an optional quote, ':' or '='. It returns where the value
// starts, or -1.
func siblingValueStart(s string, ne int) int {
	n := len(s)
	p := skipSiblingGap(s, ne)
	if p+5 > n || !hasPrefixFold(s[p:], "value") || (p+5 < n && isWord(s[p+5])) {
		return -1
	}
	q := p + 5
	for q < n && (s[q] == '"' || s[q] == '\'' || s[q] == '\\') && q-p < 12 {
		q++
	}
	for q < n && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	if q >= n || (s[q] != ':' && s[q] != '=') {
		return -1
	}
	q++
	for q < n && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	return q
}

// skipSiblingGap skips, for at most 48 bytes, what may separate a name
// from its value field: quotes, commas, spaces, newlines (escaped too),
// list dashes, slashes.
func skipSiblingGap(s string, p int) int {
	n := len(s)
	start := p
	for p < n && p-start < 48 {
		switch c := s[p]; c {
		case '"', '\'', ',', ' ', '\t', '\r', '\n', '-', '/':
			p++
		case '\\':
			if p+1 < n && (s[p+1] == 'n' || s[p+1] == 't' || s[p+1] == 'r') {
				p++ // an escaped newline
			}
			p++
		default:
			return p
		}
	}
	return p
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

// schemeCredential reads the value [vs,ve) of an Authorization header whose
// scheme the word walk does not know (Okta's "SSWS", Opsgenie's "GenieKey",
// "Api-Token", "Key"): a scheme word, one space and a credential, which is
// recorded as an API key when it is token-like. It reports whether the value
// was such a pair.
func (sc *scanner) schemeCredential(s, key string, vs, ve int) bool {
	if len(key) < 13 || !hasSuffixFold(key, "authorization") {
		return false
	}
	w := vs
	for w < ve && (isAlnum(s[w]) || s[w] == '-') && w-vs < 32 {
		w++
	}
	if w-vs < 2 || !isAlpha(s[vs]) || w+1 >= len(s) || s[w] != ' ' || authWord(s[vs:w]) {
		return false
	}
	t := w + 1
	e := spanClass(s, t, cTokBody, 4096)
	for e > t && s[e-1] == '.' {
		e--
	}
	tok := s[t:e]
	if len(tok) < 16 || !rightBoundary(s, e) || !mixedClasses(tok, 2) || placeholderValue(tok) || placeholderBody(tok) {
		return false
	}
	sc.add(t, e, tAPIKey, prioCred)
	return true
}

// closingTagAhead reports whether an element's closing tag follows the value that ends at e,
// after white space (JSON-escaped too): "<password>s3cr3t</password>" holds a value,
// "https://u:<password>@host" a placeholder.
func closingTagAhead(s string, e int) bool {
	for k := e; k < len(s) && k-e < 64; k++ {
		switch {
		case s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n':
		case s[k] == '\\' && k+1 < len(s) && (s[k+1] == 'n' || s[k+1] == 't' || s[k+1] == 'r'):
			k++
		default:
			return strings.HasPrefix(s[k:], "</") || strings.HasPrefix(s[k:], "<\\/")
		}
	}
	return false
}
