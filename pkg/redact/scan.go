package redact

import (
	"strings"
)

// scanner holds the per-call state of one detection run. Scanners are pooled;
// all detection tables are package-level and built once.
type scanner struct {
	cands []match
	out   []match
	merge []match // scratch for sortCands
	spare []match // the other candidate buffer of sortCands
	norm  []byte
	nmap  []int32
	dec   []byte // a percent-encoded run decoded (scanEncodedEmails)
	dmap  []int  // for each byte of dec, its offset in the run
	fold  bool   // a foldable (fullwidth) character was seen by scanWords
	depth int    // rescan nesting
	// wordsFrom is where the candidates of the word pass begin in cands:
	// the rare-literal detectors before it add a few sorted runs, the word
	// pass one long sorted run
	wordsFrom int
	units     [maxUnits]numUnit
	seps      [maxUnits]string
	keys      keyMemo     // noKey of the plain words seen last (quietAfter)
	keyInfos  keyInfoMemo // classifyKey of the assignment keys seen last
}

func (sc *scanner) add(start, end int, typ, prio uint8) {
	if end > start {
		sc.cands = append(sc.cands, match{start: start, end: end, typ: typ, prio: prio})
	}
}

// Trigger bytes: a detector that needs a rare literal runs only when its
// first byte occurs in the text. One pass computes the set.
const (
	tgBracket uint16 = 1 << iota // '[': existing placeholders
	tgDash                       // '-': PEM blocks, curl -u, mysql -p
	tgAt                         // '@': e-mail
	tgColon                      // ':': URLs, IPv6
	tgTilde                      // '~': Azure client secrets
	tgEq                         // '=': value-first comparisons, SAS signatures
	tgPct                        // '%': percent-encoded e-mail
	tgHigh                       // bytes >= 0x80: Japanese keywords, fullwidth forms
)

var trigTable = func() (t [256]uint16) {
	t['['] = tgBracket
	t['-'] = tgDash
	t['@'] = tgAt
	t[':'] = tgColon
	t['~'] = tgTilde
	t['='] = tgEq
	t['%'] = tgPct
	for c := 0x80; c < 256; c++ {
		t[c] = tgHigh
	}
	return
}()

func triggers(s string) uint16 {
	var a, b, c, d uint16
	i := 0
	for ; i+4 <= len(s); i += 4 {
		a |= trigTable[s[i]]
		b |= trigTable[s[i+1]]
		c |= trigTable[s[i+2]]
		d |= trigTable[s[i+3]]
	}
	for ; i < len(s); i++ {
		a |= trigTable[s[i]]
	}
	return a | b | c | d
}

// scan runs every detector over s and collects candidates. Detectors that
// hang off a rare literal ("://", "-----BEGIN ", '@', ...) find it with
// strings.Index, and only when its first byte occurs at all; everything
// else is one pass over the words of the text.
func (sc *scanner) scan(s string, m uint16) {
	if m&tgBracket != 0 {
		sc.scanPlaceholders(s)
	}
	if m&tgDash != 0 {
		sc.scanPEM(s)
		sc.scanCurlUser(s)
		sc.scanMySQLPassword(s)
	}
	if m&tgAt != 0 {
		sc.scanEmails(s)
		sc.scanOracleLogins(s)
	}
	if m&tgPct != 0 {
		sc.scanEncodedEmails(s)
	}
	if m&tgColon != 0 {
		sc.scanURLs(s)
		sc.scanIPv6(s)
	}
	if m&tgTilde != 0 {
		sc.scanAzureSecret(s)
	}
	if m&tgEq != 0 {
		sc.scanReversedCompare(s)
		sc.scanSASSig(s)
	}
	sc.wordsFrom = len(sc.cands)
	sc.scanWords(s)
}

// ---------------------------------------------------------------- placeholders

const phPrefix = "[REDACTED_"

func (sc *scanner) scanPlaceholders(s string) {
	for from := 0; ; {
		k := strings.Index(s[from:], phPrefix)
		if k < 0 {
			return
		}
		p := from + k
		q := p + len(phPrefix)
		for q < len(s) && phChar(s[q]) {
			q++
		}
		if q > p+len(phPrefix) && q < len(s) && s[q] == ']' {
			sc.add(p, q+1, tKeep, prioKeep)
			from = q + 1
		} else {
			from = p + 1
		}
	}
}

// ---------------------------------------------------------------- PEM

func (sc *scanner) scanPEM(s string) {
	const begin = "-----BEGIN "
	noEnd := false // no END marker after the current position: do not search again
	for from := 0; ; {
		k := strings.Index(s[from:], begin)
		if k < 0 {
			return
		}
		b := from + k
		lbl := b + len(begin)
		lim := min(lbl+64, len(s))
		e := strings.Index(s[lbl:lim], "-----")
		if e < 0 {
			from = lbl
			continue
		}
		label := s[lbl : lbl+e]
		if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
			from = lbl
			continue
		}
		body := lbl + e + 5
		end := -1
		if noEnd {
			// already known
		} else if j := strings.Index(s[body:], "-----END "); j < 0 {
			noEnd = true
		} else {
			q := body + j + len("-----END ")
			lim := min(q+64, len(s))
			if t := strings.Index(s[q:lim], "-----"); t >= 0 {
				end = q + t + 5
			}
		}
		if end < 0 {
			// no END marker (truncated): up to the end of the enclosing
			// JSON string, else to the end of the text
			end = len(s)
			for q := body; q < len(s); q++ {
				if s[q] == '"' && s[q-1] != '\\' {
					end = q
					break
				}
			}
		}
		if pemBodyChars(s[body:end]) >= 10 {
			sc.add(b, end, tSecret, prioPEM)
		}
		from = end
	}
}

// ---------------------------------------------------------------- e-mail

func (sc *scanner) scanEmails(s string) {
	n := len(s)
	for from := 0; ; {
		k := strings.IndexByte(s[from:], '@')
		if k < 0 {
			return
		}
		at := from + k
		from = at + 1
		ls := at
		for ls > 0 && localByte(s, ls-1, at) && at-ls <= 64 {
			ls--
		}
		if ls > 0 && localByte(s, ls-1, at) {
			continue // local part too long
		}
		if ls > 0 && s[ls-1] == '\\' && ls+1 < at && (s[ls] == 'n' || s[ls] == 't' || s[ls] == 'r') {
			ls++ // "\nuser@host" inside JSON-escaped text
		}
		for ls < at && (s[ls] == '.' || s[ls] == '-' || s[ls] == '+') {
			ls++
		}
		if ls == at || s[at-1] == '.' {
			continue
		}
		end := emailDomainEnd(s, at+1)
		if ls >= 3 && s[ls-3:ls] == "://" && !userinfoAddress(s, end) {
			continue // the user name of a URL (postgres://app@db.internal): a login, not an address
		}
		if ls >= 1 && s[ls-1] == ':' && urlUserBefore(s, ls-1) {
			continue // the password of a URL (https://bob:changeme@host): never an address
		}
		if end < 0 || (end < n && (isWord(s[end]) || s[end] == '@' || s[end] == '-')) {
			continue
		}
		sc.add(ls, end, tEmail, prioEmail)
		from = end
	}
}

// urlUserBefore reports whether the ':' at c ends the user name of a URL's user information:
// "://" and a user name before it.
func urlUserBefore(s string, c int) bool {
	u := c
	for u > 0 && c-u < 128 && ctab[s[u-1]]&cLocal != 0 {
		u--
	}
	return u < c && u >= 3 && s[u-3:u] == "://"
}

// userinfoAddress reports an address that is a URL's user name, its domain
// ending at end before the password and the host's '@'
// (smtp://alerts@example.com:pass@smtp.example.com).
func userinfoAddress(s string, end int) bool {
	if end < 0 || end+1 >= len(s) || s[end] != ':' {
		return false
	}
	e := authorityRun(s, end+1, end+1)
	return strings.IndexByte(s[end+1:e], '@') > 0
}

// localByte reports whether s[k] belongs to the local part of an address
// whose '@' is at: the usual characters, and an apostrophe between two
// letters or digits (o'neill@…), which RFC 5322 allows and Irish names use;
// a quote that opens or closes the address ('bob@…') is not part of it.
func localByte(s string, k, at int) bool {
	c := s[k]
	if ctab[c]&cLocal != 0 {
		return true
	}
	return c == '\'' && k > 0 && k+1 < at && isAlnum(s[k-1]) && isAlnum(s[k+1])
}

// scanEncodedEmails finds e-mail addresses written percent-encoded, as URLs, proxy logs and
// phishing links carry them ("?email=alice%40corp.example.com"): each URL-like run holding
// "%40" is decoded once (every %XX escape, and '+' as the space it is in a query string), the
// decoded run is read as scanEmails reads text, and an address found there replaces its
// encoded span. An address with no escape in it is the plain scan's.
func (sc *scanner) scanEncodedEmails(s string) {
	for from := 0; ; {
		k := strings.Index(s[from:], "%40")
		if k < 0 {
			return
		}
		a := from + k
		for a > 0 && urlRunByte(s[a-1]) {
			a--
		}
		b := from + k + 3
		for b < len(s) && urlRunByte(s[b]) {
			b++
		}
		sc.encodedEmailsIn(s[a:b], a)
		from = b
	}
}

// urlRunByte reports a byte of a URL-like run: printable ASCII but for quotes, angle
// brackets and the backslash, which end a URL in text, markup and JSON.
func urlRunByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '"' && c != '\'' && c != '<' && c != '>' && c != '\\' && c != '`'
}

// encodedEmailsIn adds the encoded e-mail addresses of run, which starts at offset off.
func (sc *scanner) encodedEmailsIn(run string, off int) {
	d, dm := sc.dec[:0], sc.dmap[:0]
	for i := 0; i < len(run); i++ {
		c := run[i]
		dm = append(dm, i)
		switch {
		case c == '%' && i+2 < len(run) && isHexDigit(run[i+1]) && isHexDigit(run[i+2]):
			c = hexVal(run[i+1])<<4 | hexVal(run[i+2])
			i += 2
		case c == '+':
			c = ' '
		}
		d = append(d, c)
	}
	dm = append(dm, len(run))
	sc.dec, sc.dmap = d, dm
	first := len(sc.cands)
	sc.scanEmails(string(d))
	k := first
	for _, m := range sc.cands[first:] {
		start, end := dm[m.start], dm[m.end]
		if end-start == m.end-m.start {
			continue // nothing encoded in it: the plain scan's
		}
		if end < len(run) && run[end] == '%' && (end+2 >= len(run) || !isHexDigit(run[end+1]) || !isHexDigit(run[end+2])) {
			// a '%' that escapes nothing after it: the run is not plainly encoded there (a
			// placeholder may stand where an escape was), so the address is not read as ending
			continue
		}
		m.start, m.end = off+start, off+end
		sc.cands[k] = m
		k++
	}
	sc.cands = sc.cands[:k]
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// emailDomainEnd returns the end of a host name with at least one dot and an
// alphabetic (or xn--) top-level label starting at p, or -1.
func emailDomainEnd(s string, p int) int {
	n := len(s)
	dots := 0
	for {
		q := p
		for q < n && (ctab[s[q]]&cDomain != 0 || s[q] == '_') && q-p < 63 {
			q++
		}
		if q == p {
			return -1
		}
		if q+1 < n && s[q] == '.' && isAlnum(s[q+1]) {
			dots++
			p = q + 1
			continue
		}
		if dots == 0 {
			return -1
		}
		label := s[p:q]
		if strings.HasPrefix(label, "xn--") && len(label) > 4 {
			return q
		}
		if len(label) < 2 {
			return -1
		}
		for i := 0; i < len(label); i++ {
			if !isAlpha(label[i]) {
				return -1
			}
		}
		return q
	}
}

// ---------------------------------------------------------------- URLs

// scanURLs looks at every "://": the password of the URL's user
// information, and a webhook URL as a whole.
func (sc *scanner) scanURLs(s string) {
	for from := 0; ; {
		k := strings.Index(s[from:], "://")
		if k < 0 {
			return
		}
		p := from + k
		from = p + 3
		a := schemeStart(s, p)
		if a < 0 {
			continue
		}
		h := p + 3
		e := authorityEnd(s, h)
		hostStart := h
		if at := strings.LastIndexByte(s[h:e], '@'); at >= 0 {
			sc.urlPassword(s, h, h+at)
			hostStart = h + at + 1
		}
		sc.webhookURL(s, a, hostStart, e)
		if e > from {
			from = e
		}
	}
}

// schemeStart returns where the scheme before the "://" at p begins (its
// first letter), or -1 when no scheme is there.
func schemeStart(s string, p int) int {
	a := p
	for a > 0 && p-a < 32 && (isAlnum(s[a-1]) || s[a-1] == '+' || s[a-1] == '.' || s[a-1] == '-') {
		a--
	}
	for a < p && !isAlpha(s[a]) {
		a++
	}
	if a == p {
		return -1
	}
	return a
}

// authorityEnd returns the end of the authority starting at h; a password
// holding '/', '?' or '#' makes it end after the '@' further on.
func authorityEnd(s string, h int) int {
	e := authorityRun(s, h, h)
	if e < len(s) && (s[e] == '/' || s[e] == '?' || s[e] == '#') && strings.IndexByte(s[h:e], '@') < 0 {
		if at := userinfoEnd(s, h); at > 0 {
			e = authorityRun(s, at, h)
		}
	}
	return e
}

// authorityRun scans URL bytes from e up to a '/', '?' or '#', at most 512
// bytes past h.
func authorityRun(s string, e, h int) int {
	for e < len(s) && ctab[s[e]]&cURL != 0 && s[e] != '/' && s[e] != '?' && s[e] != '#' && e-h < 512 {
		e++
	}
	return e
}

// urlPassword proposes the password of the user information s[h:at]
// ("user:pass").
func (sc *scanner) urlPassword(s string, h, at int) {
	ui := s[h:at]
	if c := strings.IndexByte(ui, ':'); c >= 0 && urlPasswordOK(ui[c+1:]) {
		sc.add(h+c+1, at, tSecret, prioCred)
	}
}

// urlPasswordOK: whatever stands in a URL's password place is the password ("password" and
// "changeme" too, which an assignment's value would not be taken for: a URL is the credential
// itself, not a statement about one), unless it is a placeholder (${DB_PASS}, <password>, ****).
func urlPasswordOK(p string) bool {
	return len(p) >= 3 && len(p) <= 256 && !placeholderValue(p)
}

// userinfoEnd finds "user:pass@host" at h whose password holds '/', '?' or
// '#' (which otherwise end the authority): it returns the index of the '@',
// or -1. The user part is plain, the password has no spaces, quotes or
// "://", and is not a port ("host:8080/@scope/pkg" is a path).
func userinfoEnd(s string, h int) int {
	n := len(s)
	c := h
	for c < n && c-h < 128 && (ctab[s[c]]&cLocal != 0) {
		c++
	}
	if c >= n || s[c] != ':' {
		return -1
	}
	p := c + 1
	if p+1 < n && s[p] == '/' && s[p+1] == '/' {
		return -1 // "http://": a scheme, not a user
	}
	d := spanClass(s, p, cDigit, 6)
	if d > p && d < n && (s[d] == '/' || s[d] == '?' || s[d] == '#') {
		return -1 // a port
	}
	for q := p; q < n && q-p < 128; q++ {
		switch b := s[q]; {
		case b == ':' && q+2 < n && s[q+1] == '/' && s[q+2] == '/':
			return -1 // the next URL begins
		case b == '@':
			if q == p || strings.Contains(s[p:q], "://") {
				return -1
			}
			e := q + 1
			for e < n && ctab[s[e]]&cDomain != 0 {
				e++
			}
			if e == q+1 || (e < n && ctab[s[e]]&cURL != 0 && s[e] != ':' && s[e] != '/' && s[e] != '.' && s[e] != '?' && s[e] != '#') {
				return -1
			}
			return q
		case b <= ' ' || b >= 0x7f || b == '"' || b == '\'' || b == '<' || b == '>' || b == '`':
			return -1
		}
	}
	return -1
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && eqFold(s[len(s)-len(suffix):], suffix)
}

// ---------------------------------------------------------------- IPv6

func (sc *scanner) scanIPv6(s string) {
	n := len(s)
	for from := 0; ; {
		k := strings.IndexByte(s[from:], ':')
		if k < 0 {
			return
		}
		c := from + k
		from = c + 1
		// cheap filter: a colon next to a hex digit or another colon
		left := c > 0 && ctab[s[c-1]]&(cHex) != 0 || c > 0 && s[c-1] == ':'
		right := c+1 < n && (ctab[s[c+1]]&cHex != 0 || s[c+1] == ':')
		if !left && !right {
			continue
		}
		a := c
		for a > 0 && ctab[s[a-1]]&cV6 != 0 && c-a < 48 {
			a--
		}
		b := c
		for b < n && ctab[s[b]]&cV6 != 0 && b-a < 64 {
			b++
		}
		from = b
		if (a > 0 && ctab[s[a-1]]&cV6 != 0) || (b < n && ctab[s[b]]&cV6 != 0) {
			continue // too long to be an address
		}
		if s[a] == '.' || !leftBoundary(s, a) || !rightBoundary(s, b) {
			continue // "1.::1" is not an address, and neither is any part of it
		}
		if end, ok := ipv6At(s[a:b]); ok {
			sc.add(a, a+end, tIP, prioIP)
		} else if b-a == 2 && unspecifiedAt(s, a) {
			sc.add(a, b, tIP, prioIP)
		}
	}
}

// ipv6At validates an IPv6 address candidate (a run of hex digits, ':' and
// '.'), trimming a trailing '.' or ':'. It returns the length of the address.
func ipv6At(run string) (int, bool) {
	for len(run) > 0 && run[len(run)-1] == '.' {
		run = run[:len(run)-1]
	}
	for try := 0; try < 2; try++ {
		if validIPv6(run) {
			return len(run), true
		}
		if len(run) > 1 && run[len(run)-1] == ':' && run[len(run)-2] != ':' {
			run = run[:len(run)-1]
			continue
		}
		break
	}
	return 0, false
}

// validIPv6 is a strict parser for the textual forms of RFC 4291 section 2.2
// (no zone, no brackets), with extra plausibility rules: the unspecified
// address "::" alone is rejected, and short forms need at least four hex
// digits in total or an embedded IPv4 or to be ::1.
func validIPv6(s string) bool {
	if len(s) < 3 || len(s) > 45 {
		return false
	}
	groups := 0
	double := false
	hexDigits := 0
	i := 0
	if strings.HasPrefix(s, "::") {
		double = true
		i = 2
		if i == len(s) {
			return false
		}
	} else if s[0] == ':' {
		return false
	}
	v4 := false
	for i < len(s) {
		j := i
		for j < len(s) && j-i <= 4 && ctab[s[j]]&cHex != 0 {
			j++
		}
		if j == i {
			return false
		}
		if j < len(s) && s[j] == '.' {
			// embedded IPv4 must be last
			if !validIPv4(s[i:]) {
				return false
			}
			groups += 2
			v4 = true
			break
		}
		if j-i > 4 {
			return false
		}
		groups++
		hexDigits += j - i
		i = j
		if i == len(s) {
			break
		}
		if s[i] != ':' {
			return false
		}
		i++
		if i < len(s) && s[i] == ':' {
			if double {
				return false
			}
			double = true
			i++
			if i == len(s) {
				break
			}
		} else if i == len(s) {
			return false
		}
	}
	if double {
		if groups > 7 {
			return false
		}
	} else if groups != 8 {
		return false
	}
	if !v4 && hexDigits < 4 && s != "::1" {
		return false
	}
	return true
}

// unspecifiedAt reports a standalone "::" at c: the unspecified address,
// written alone or as a prefix ("::/0"), not a scope operator.
func unspecifiedAt(s string, c int) bool {
	n := len(s)
	if c+1 >= n || s[c] != ':' || s[c+1] != ':' || (c > 0 && (isWord(s[c-1]) || s[c-1] == ':')) {
		return false
	}
	e := c + 2
	if e < n && s[e] == '/' {
		return e+1 < n && isDigit(s[e+1])
	}
	if c > 0 && s[c-1] != ' ' && s[c-1] != '\t' && s[c-1] != '"' && s[c-1] != '\'' && s[c-1] != '[' && s[c-1] != '(' {
		return false
	}
	return e == n || s[e] == '\n' || s[e] == '"' || s[e] == '\'' || s[e] == ']' || s[e] == ')' ||
		((s[e] == '.' || s[e] == ',' || s[e] == ';') && (e+1 == n || s[e+1] == ' ' || s[e+1] == '\n'))
}

func validIPv4(s string) bool {
	parts := 0
	for i := 0; i <= len(s); {
		j := i
		v := 0
		for j < len(s) && isDigit(s[j]) && j-i < 4 {
			v = v*10 + int(s[j]-'0')
			j++
		}
		if j == i || j-i > 3 || v > 255 {
			return false
		}
		parts++
		if j == len(s) {
			return parts == 4
		}
		if s[j] != '.' {
			return false
		}
		i = j + 1
	}
	return false
}

// ---------------------------------------------------------------- Azure AD client secret

// scanAzureSecret finds Azure AD application client secrets:
// [A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}.
func (sc *scanner) scanAzureSecret(s string) {
	n := len(s)
	isc := func(b byte) bool { return isAlnum(b) || b == '_' || b == '~' || b == '.' }
	for from := 0; ; {
		k := strings.Index(s[from:], "Q~")
		if k < 0 {
			return
		}
		q := from + k
		from = q + 2
		a := q - 4
		if a < 0 || !isDigit(s[q-1]) || !isc(s[a]) || !isc(s[a+1]) || !isc(s[a+2]) {
			continue
		}
		if a > 0 && (isc(s[a-1]) || s[a-1] == '-') && !isEscapeLetterAt(s, a-1) {
			continue // glued to a word, not to a "\n" escape
		}
		e := q + 2
		for e < n && (isc(s[e]) || s[e] == '-') && e-q-2 <= 34 {
			e++
		}
		if l := e - q - 2; l < 31 || l > 34 {
			continue
		}
		if e < n && (isc(s[e]) || s[e] == '-') {
			continue
		}
		sc.add(a, e, tSecret, prioVendor)
		from = e
	}
}

// pemBodyChars counts the characters of a PEM block between the markers,
// leaving out whitespace, escaped newlines and the END marker.
func pemBodyChars(b string) int {
	if k := strings.Index(b, "-----END "); k >= 0 {
		b = b[:k]
	}
	n := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c <= ' ':
		case c == '\\' && i+1 < len(b) && (b[i+1] == 'n' || b[i+1] == 'r'):
			i++
		default:
			n++
		}
	}
	return n
}
