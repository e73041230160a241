package redact

import (
	"strings"
)

// Command lines: credentials in comparisons written value-first, curl -u, mysql -p, password
// options of common tools, PowerShell SecureString literals and command expressions.

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

// scanCurlUser handles curl's -u/--user option: the password of user:pass,
// or a key given as the user with an empty password.
func (sc *scanner) scanCurlUser(s string) {
	for from := 0; ; {
		k := strings.Index(s[from:], "-u")
		if k < 0 {
			return
		}
		p := from + k
		from = p + 2
		q := curlUserArg(s, p)
		if q < 0 {
			continue
		}
		c, ok := readCurlCredential(s, q)
		if !ok || !sc.addCurlCredential(c) {
			continue
		}
		if c.pe > from {
			from = c.pe
		}
	}
}

// curlUserArg returns where the argument of the "-u" at p starts: after
// "-u " or "--user" followed by '=' or spaces; -1 when p is no such
// option or nothing follows it.
func curlUserArg(s string, p int) int {
	n := len(s)
	q := p + 2
	switch {
	case p > 0 && s[p-1] == '-' && strings.HasPrefix(s[p+1:], "user"):
		// --user
		if p > 1 && s[p-2] != ' ' && s[p-2] != '\t' {
			return -1
		}
		q = p + 5
		if q < n && s[q] == '=' {
			q++
		} else if q < n && s[q] != ' ' {
			return -1
		}
	case p == 0 || s[p-1] == ' ' || s[p-1] == '\t':
		if q >= n || s[q] != ' ' {
			return -1
		}
	default:
		return -1
	}
	for q < n && s[q] == ' ' && q-p < 12 {
		q++
	}
	if q >= n {
		return -1
	}
	return q
}

// curlCredential is the argument of curl -u: the user at us, the password
// at [ps,pe) (-1 when there is none).
type curlCredential struct {
	user, pass string
	us, ps, pe int
}

// readCurlCredential reads user:pass at q, with the password quoted on its
// own (user:'pass') or the two quoted apart ("user":"pass").
func readCurlCredential(s string, q int) (curlCredential, bool) {
	n := len(s)
	first, fs, fe, ok := curlPart(s, q)
	if !ok {
		return curlCredential{}, false
	}
	quoted := quoteAt(s, q)
	c := curlCredential{us: fs, ps: -1, pe: -1}
	if i := strings.IndexByte(first, ':'); i >= 0 {
		c.user, c.pass = first[:i], first[i+1:]
		c.ps, c.pe = fs+i+1, fe
		if c.pass == "" && !quoted && quoteAt(s, fe) {
			// user:'pass' — the password quoted on its own
			if p2, a, b, ok2 := curlPart(s, fe); ok2 && p2 != "" {
				c.pass, c.ps, c.pe = p2, a, b
			}
		}
		return c, true
	}
	if ac := afterClose(s, fe); quoted && ac < n && s[ac] == ':' {
		// "user":"pass" written as two quoted strings
		p2, a, b, ok2 := curlPart(s, ac+1)
		if !ok2 {
			return curlCredential{}, false
		}
		c.user, c.pass, c.ps, c.pe = first, p2, a, b
		return c, true
	}
	return curlCredential{}, false
}

// addCurlCredential proposes the password, or a key-like user with an
// empty password ("-u KEY:"); it returns false when the credential is a
// placeholder, and the scan goes on inside it.
func (sc *scanner) addCurlCredential(c curlCredential) bool {
	// {…}-wrapped literals (IBM Cloud examples) are checked without the
	// braces but replaced with them
	if u := unwrapBraces(c.user); c.user != "" && placeholderValue(u) {
		return false
	}
	if c.pass != "" && !credValueOK(unwrapBraces(c.pass)) {
		return false
	}
	switch {
	case c.pass != "":
		sc.add(c.ps, c.pe, tSecret, prioCred)
	case len(c.user) >= 8 && !placeholderValue(c.user) && mixedClasses(c.user, 2):
		sc.add(c.us, c.us+len(c.user), tSecret, prioCred)
	}
	return true
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
			sc.addCommandCred(s, vs, e)
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
		sc.addCommandCred(s, vs, ve)
		return ve
	}
	return -1
}

// addCommandCred records the password given to a command's option: a value
// with a vendor's token shape (docker login -p dckr_pat_…) keeps the
// vendor's type, as the type rule says; anything else is a password.
func (sc *scanner) addCommandCred(s string, vs, ve int) {
	if e, typ, ok := matchVendor(s, vs); ok && e == ve {
		sc.add(vs, ve, typ, prioVendor)
		return
	}
	sc.add(vs, ve, tSecret, prioCred)
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
	if !quoteAt(s, p) {
		return -1
	}
	vs, ve, _, ok := parseValue(s, p, false, false)
	if !ok || !credValueOK(s[vs:ve]) {
		return -1
	}
	sc.add(vs, ve, tSecret, prioCred)
	return ve
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
	if r := escapedQuoteAt(s, q); s[q] == '\\' && r >= 0 {
		// \"user:pass\" in JSON-escaped text: the same escaped quote closes it
		vs, ve, ok := escapedQuotedValue(s, q, r)
		return s[vs:ve], vs, ve, ok
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

// netUserAt handles Windows' "net user NAME PASSWORD [/add|/domain|…]" with
// p just after "net user ": the second positional argument is the
// password. "*" (prompt), options and variables are not passwords. It
// returns where scanning continues, or -1.
func (sc *scanner) netUserAt(s string, p int) int {
	n := len(s)
	var args [2][2]int
	k := 0
	for k < 2 {
		for p < n && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
		if p >= n || s[p] == '\n' || s[p] == '\r' {
			return -1
		}
		if s[p] == '/' {
			for p < n && !isSpace(s[p]) {
				p++ // an option before the arguments
			}
			continue
		}
		vs, ve, quoted, ok := parseValue(s, p, false, false)
		if !ok || ve <= vs {
			return -1
		}
		args[k] = [2]int{vs, ve}
		k++
		p = ve
		if quoted {
			p++
		}
	}
	vs, ve := args[1][0], args[1][1]
	for ve > vs && (s[ve-1] == ';' || s[ve-1] == ',') {
		ve--
	}
	// what follows must end the command: an option, the end of the line or
	// of a quoted command string
	q := p
	for q < n && (s[q] == ' ' || s[q] == '\t') {
		q++
	}
	if q < n && s[q] != '/' && s[q] != '\n' && s[q] != '\r' && s[q] != '"' && s[q] != '\'' && s[q] != '`' && s[q] != '&' && s[q] != '|' && s[q] != ';' {
		return -1
	}
	val := s[vs:ve]
	if len(val) < 3 || val == "*" || placeholderValue(val) || val[0] == '%' || strings.HasPrefix(val, "[REDACTED_") {
		return -1
	}
	sc.add(vs, ve, tSecret, prioAssign)
	return ve
}

// loginPairAt handles "user / password" written after a login word: "login
// as root / W1nter!Sky", "credentials: admin / P@ssw0rd1". slash is the
// index of a '/' with a space on each side. The password must have a letter
// and a digit, as a password named in a sentence must.
func (sc *scanner) loginPairAt(s string, slash int) {
	us, ue := loginUser(s, slash)
	if us < 0 || !afterLoginWord(s, us) {
		return
	}
	vs, ve, quoted, okv := parseValue(s, slash+2, false, false)
	if !okv {
		return
	}
	for !quoted && ve > vs && strings.IndexByte(".,;:)", s[ve-1]) >= 0 {
		ve--
	}
	redacted := strings.HasPrefix(s[vs:], phPrefix) // the pair as redaction left it
	if !redacted && (!proseSecretOK(s[vs:ve], quoted) || describes(s[vs:ve])) {
		return
	}
	if !redacted {
		sc.add(vs, ve, tSecret, prioAssign)
	}
	// "creds: ops-bot / …": the key word took the user name as its
	// value; the pair says it is the user
	for k := len(sc.cands) - 1; k >= 0 && sc.cands[k].start >= us-2; k-- {
		if c := sc.cands[k]; c.start == us && c.end == ue && c.typ == tSecret {
			sc.cands = append(sc.cands[:k], sc.cands[k+1:]...)
			break
		}
	}
}

// loginUser returns the user name before the " / " at slash, or -1.
func loginUser(s string, slash int) (us, ue int) {
	ue = slash - 1
	us = ue
	for us > 0 && (ctab[s[us-1]]&cKey != 0 || s[us-1] == '@' || s[us-1] == '\\') && ue-us < 64 {
		us--
	}
	if us == ue || !isAlnum(s[us]) {
		return -1, -1
	}
	return us, ue
}

// afterLoginWord reports a login word before us, with at most "as",
// "with", "is", "pass" and colons between: "login as", "log in as",
// "credentials:".
func afterLoginWord(s string, us int) bool {
	j := us
	for step := 0; step < 3; step++ {
		for j > 0 && (s[j-1] == ' ' || s[j-1] == ':' || s[j-1] == '\t') {
			j--
		}
		w := j
		for w > 0 && isAlpha(s[w-1]) && j-w < 16 {
			w--
		}
		if w == j {
			return false
		}
		switch loginWord(s, w, j) {
		case loginNamed:
			return true
		case loginFiller:
			j = w
		default:
			return false
		}
	}
	return false
}

const (
	loginOther  = iota
	loginNamed  // login, credentials, user, ...
	loginFiller // as, with, is, pass
)

// loginWord tells what the word s[w:j] is to a login pair.
func loginWord(s string, w, j int) int {
	word := s[w:j]
	switch {
	case eqFold(word, "login") || eqFold(word, "logon") || eqFold(word, "credentials") || eqFold(word, "creds") ||
		eqFold(word, "username") || eqFold(word, "user") || eqFold(word, "account") || eqFold(word, "signin"):
		return loginNamed
	case eqFold(word, "in") && w >= 4 && (hasSuffixFold(s[:w-1], "log") || hasSuffixFold(s[:w-1], "sign")):
		return loginNamed // log in as …, sign in as …
	case eqFold(word, "as") || eqFold(word, "with") || eqFold(word, "is") || eqFold(word, "pass"):
		return loginFiller
	}
	return loginOther
}
