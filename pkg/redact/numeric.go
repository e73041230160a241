package redact

import "strings"

// Phone numbers, card numbers, SSNs and IPv4 addresses all start as a "numeric
// blob": digit groups separated by single spaces or dashes, optionally led by
// '+', with "(area)" groups, or one dotted run such as 192.168.0.1. The blob is
// parsed once and classified; a blob that classifies as nothing is skipped as
// a whole, so that no suffix of a date, a UUID or an invalid card is
// reconsidered on its own.

type numUnit struct {
	start, end int
	digits     int // number of digits
	parts      int // dotted parts (1 = no dot)
	paren      bool
}

const maxUnits = 12

// numeric parses the blob at i (a digit, or '+'/'(' followed by a digit; the
// caller checked the left boundary) and returns where scanning continues.
func (sc *scanner) numeric(s string, i int) int {
	plus := s[i] == '+'
	nu := sc.readBlob(s, i, plus)
	if nu == 0 {
		return i + 1
	}
	nu = longGroupSplit(s, sc.units[:nu], sc.seps[:nu])
	units := sc.units[:nu]
	end := units[nu-1].end
	before := len(sc.cands)
	next := end
	if hasDottedUnit(units) {
		for k := range units {
			if units[k].parts > 1 {
				sc.dottedUnit(s, units[k], plus && k == 0)
			}
		}
	} else {
		next = sc.chain(s, i, plus, units, sc.seps[:nu])
	}
	if len(sc.cands) == before && ((end < len(s) && !isSpace(s[end])) || (i > 0 && !isSpace(s[i-1]))) {
		// a rejected number touching other text: if part of it is taken by
		// another match, the rest is looked at again (see rescan)
		sc.add(i, end, tProbe, 0)
	}
	return next
}

// longGroupSplit returns how many of the groups make the first number: a group of thirteen
// digits or more is a number of its own (a card written plain), not a group of a longer one,
// so a space before or after it ends the blob there: "4012888888881881 4012-8888-8888-1881"
// is two card numbers.
// A card written in four groups of four ends where the separator changes: in
// "4012-8888-8888-1881 4012 8888 8888 1881" the space after the fourth group begins another.
func longGroupSplit(s string, units []numUnit, seps []string) int {
	for x := 1; x < len(units); x++ {
		if seps[x] == " " && (units[x-1].digits >= 13 || units[x].digits >= 13) && !units[x-1].paren && !units[x].paren {
			return x
		}
		if x == 4 && seps[4] != seps[3] && seps[3] == seps[2] && seps[2] == seps[1] && fourFours(s, units[:4]) {
			return x
		}
	}
	return len(units)
}

// fourFours reports four groups of four digits that pass the Luhn check: a card's layout.
func fourFours(s string, units []numUnit) bool {
	var d [16]byte
	n := 0
	for _, u := range units {
		if u.paren || u.digits != 4 || u.parts != 1 {
			return false
		}
		n += copy(d[n:], s[u.start:u.end])
	}
	return luhn(d[:])
}

// readBlob reads the digit groups of the blob at i into sc.units, and the
// separator before each into sc.seps (seps[k] precedes units[k]); it
// returns how many groups belong to the blob.
func (sc *scanner) readBlob(s string, i int, plus bool) int {
	p := i
	if plus {
		p++
	}
	nu := 0
	for nu < maxUnits {
		u, ok := readUnit(s, p)
		if !ok {
			break
		}
		sc.units[nu] = u
		p = u.end
		if nu > 0 && !u.paren && !cleanUnit(s, u.start, u.end) {
			// "555 1234abc", "4536… 0000@mail": a group glued to what follows
			// is not part of this number
			break
		}
		if u.parts > 1 {
			// a dotted run (IPv4, 930.167.3943) stands alone
			if nu == 0 {
				nu++
			}
			break
		}
		nu++
		if nu == maxUnits {
			break
		}
		q := nextUnitStart(s, p, sc.units[:nu])
		if q < 0 {
			break
		}
		sc.seps[nu] = s[p:q]
		p = q
	}
	return nu
}

// readUnit reads one group at p: an "(area)" group of 1-4 digits, or a run
// of digits with all its dotted parts.
func readUnit(s string, p int) (numUnit, bool) {
	if p < len(s) && s[p] == '(' {
		q := p + 1
		d := spanClass(s, q, cDigit, 6)
		if d-q < 1 || d-q > 4 || d >= len(s) || s[d] != ')' {
			return numUnit{}, false
		}
		return numUnit{start: p, end: d + 1, digits: d - q, parts: 1, paren: true}, true
	}
	if p >= len(s) || !isDigit(s[p]) {
		return numUnit{}, false
	}
	d := spanClass(s, p, cDigit, 0)
	u := numUnit{start: p, digits: d - p, parts: 1}
	// all the parts are taken (an OID has a dozen), so that no four of
	// them are read as an address on their own
	for d+1 < len(s) && s[d] == '.' && isDigit(s[d+1]) && u.parts < 64 {
		e := spanClass(s, d+1, cDigit, 0)
		u.digits += e - d - 1
		u.parts++
		d = e
	}
	u.end = d
	return u, true
}

// nextUnitStart returns where the group after the separator at p starts, or
// -1 when no group follows. The separator is "", one space or one dash, or a
// space and a dash; a group glued to the last ("12(34)") does not continue
// it, except a Japanese area code: 06(6123)4567.
func nextUnitStart(s string, p int, prev []numUnit) int {
	if len(prev) == 1 && p < len(s) && s[p] == ')' && parenCountryCode(s, prev[0]) {
		p++ // "(+44) 20 7946 0958": the country code closed, a space must follow
		if p >= len(s) || s[p] != ' ' {
			return -1
		}
	}
	q, spaces, dashes := p, 0, 0
	for ; q < len(s) && q-p < 2; q++ {
		if s[q] == ' ' || s[q] == '\t' {
			spaces++
		} else if s[q] == '-' {
			dashes++
		} else {
			break
		}
	}
	if spaces > 1 || dashes > 1 || q >= len(s) {
		return -1
	}
	if !isDigit(s[q]) && !(s[q] == '(' && q+1 < len(s) && isDigit(s[q+1])) {
		return -1
	}
	if q == p && !prev[len(prev)-1].paren && s[q] != '(' {
		return -1 // cannot happen: digits would have been consumed
	}
	first := prev[0]
	if q == p && s[q] == '(' && !(len(prev) == 1 && first.digits >= 2 && first.digits <= 5 && s[first.start] == '0') {
		return -1
	}
	return q
}

// parenCountryCode reports a first group that is a country code written in
// parentheses with its '+': "(+44)".
func parenCountryCode(s string, u numUnit) bool {
	return u.digits <= 3 && u.start >= 2 && s[u.start-1] == '+' && s[u.start-2] == '(' && u.end < len(s) && s[u.end] == ')'
}

func hasDottedUnit(units []numUnit) bool {
	for _, u := range units {
		if u.parts > 1 {
			return true
		}
	}
	return false
}

// leftOK is the left boundary rule for phone, card and SSN numbers: the
// number must not continue a compound token such as "v1.2-3456789",
// "abc/123", "12:34" or "1,234". A placeholder counts as the value it
// replaced, so that redacting a neighbour never changes the decision.
func leftOK(s string, i int) bool {
	if !leftBoundary(s, i) || phBefore(s, i) {
		return false
	}
	if i >= 2 {
		switch s[i-1] {
		case '-', '.', '/':
			return !isAlnum(s[i-2]) && !phBefore(s, i-1)
		case ':', ',':
			return !isDigit(s[i-2]) && !phBefore(s, i-1)
		}
	}
	return true
}

// rightOK is the right boundary rule: not glued to a word, not followed by a
// time (":30"), a path or date continuation ("/21"), a decimal or thousands
// part, or an e-mail '@'.
func rightOK(s string, e int) bool {
	if e >= len(s) {
		return true
	}
	c := s[e]
	if isWord(c) || c == '@' || phAfter(s, e) {
		return false
	}
	if (c == ':' || c == '/' || c == '.' || c == ',') && e+1 < len(s) && (isDigit(s[e+1]) || phAfter(s, e+1)) {
		return false
	}
	// "1120-081530-gx7k2m4p": a dash glued to letters mixed with digits
	// continues an identifier (cluster, build and job IDs), as leftOK says
	// of "v1.2-…"; a label ("-Office", "-Fax") does not
	if c == '-' && e+1 < len(s) && isAlpha(s[e+1]) {
		w := spanClass(s, e+1, cDigit|cUpper|cLower, 64)
		return !strings.ContainsAny(s[e+1:w], "0123456789")
	}
	return true
}

// ipRightOK is the right boundary for IPv4: a port (":8080") or a prefix
// length ("/24") may follow.
func ipRightOK(s string, e int) bool {
	return e >= len(s) || (!isWord(s[e]) && !phAfter(s, e))
}

// phBefore reports whether a placeholder ends at i; phAfter whether one starts at i.
func phBefore(s string, i int) bool {
	if i < len(phPrefix)+2 || s[i-1] != ']' {
		return false
	}
	j := i - 2
	for j >= 0 && j > i-40 && phChar(s[j]) {
		j--
	}
	return j >= 0 && strings.HasPrefix(s[j:], phPrefix)
}

func phAfter(s string, i int) bool {
	return i < len(s) && s[i] == '[' && strings.HasPrefix(s[i:], phPrefix)
}

// cleanUnit reports whether a digit group [a,e) may belong to a number: not
// glued to a word (except an "x123" extension), a placeholder, or the rest
// of an e-mail local part ("0%0@host").
func cleanUnit(s string, a, e int) bool {
	if e >= len(s) {
		return true
	}
	c := s[e]
	if c == 'x' || c == 'X' {
		return e+1 < len(s) && isDigit(s[e+1])
	}
	if isWord(c) || c == '@' || phAfter(s, e) {
		return false
	}
	if ctab[c]&cLocal != 0 {
		if l := spanClass(s, a, cLocal, 65); l < len(s) && s[l] == '@' {
			return false
		}
	}
	return true
}

// phoneExt returns the end of an extension ("x565", " ext. 12") at e, or e.
func phoneExt(s string, e int) int {
	n := len(s)
	q := e
	if q < n && s[q] == ' ' {
		q++
	}
	switch {
	case q < n && (s[q] == 'x' || s[q] == 'X'):
		q++
	case hasPrefixFold(s[q:], "ext"):
		q += 3
		if q < n && s[q] == '.' {
			q++
		}
	default:
		return e
	}
	if q < n && s[q] == ' ' {
		q++
	}
	d := spanClass(s, q, cDigit, 7)
	if d-q < 1 || d-q > 6 || !rightOK(s, d) {
		return e
	}
	return d
}

// ibanHead reports an IBAN's country code and check digits ("FI21 ",
// "DE89 ") right before i.
func ibanHead(s string, i int) bool {
	if i < 5 || s[i-1] != ' ' {
		return false
	}
	h := s[i-5 : i-1]
	return isUpper(h[0]) && isUpper(h[1]) && isDigit(h[2]) && isDigit(h[3]) && (i == 5 || !isWord(s[i-6]))
}

// ibanBody reports digit groups inside an IBAN written in fours whose earlier groups hold
// letters ("AL47 212A 1009 0000 …"): going back over groups of four letters and digits, each
// after one space, it finds the IBAN's country code and check digits.
func ibanBody(s string, i int) bool {
	for k, n := i, 0; n < 8 && k >= 5 && s[k-1] == ' '; n++ {
		if ibanHead(s, k) {
			return true
		}
		g := s[k-5 : k-1]
		for j := 0; j < 4; j++ {
			if !isDigit(g[j]) && !isUpper(g[j]) {
				return false
			}
		}
		k -= 5
	}
	return false
}

func luhn(d []byte) bool {
	sum := 0
	alt := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if alt {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		alt = !alt
	}
	return sum%10 == 0
}

func validSSN(area, group, serial string) bool {
	if area == "000" || area == "666" || area[0] == '9' {
		return false
	}
	return group != "00" && serial != "0000"
}

func yearLike(s string) bool {
	return len(s) == 4 && (s[:2] == "19" || s[:2] == "20")
}

func atoi2(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}

// dottedUnit classifies one dotted run: IPv4, SSN (078.05.1123) or a
// dot-separated phone (930.167.3943).
func (sc *scanner) dottedUnit(s string, u numUnit, plus bool) {
	lens, np := dottedParts(s, u)
	txt := s[u.start:u.end]
	left := leftBoundary(s, u.start) && (u.start == 0 || s[u.start-1] != '.') && !phBefore(s, u.start)
	switch {
	case np > 5:
		// versions, OIDs and section numbers: 1.3.6.1.4.1.311
	case np == 5 && frenchPairs(txt):
		if left && ipRightOK(s, u.end) {
			sc.add(u.start, phoneExt(s, u.end), tPhone, prioPhone)
		}
	case np == 4 && textIPv4(txt):
		if left && ipRightOK(s, u.end) && !versionContext(s, u.start) {
			sc.add(u.start, u.end, tIP, prioIP)
		}
	case np > 4:
		// five parts that are not a phone: a version or a serial
	case !leftOK(s, u.start):
	case np == 3 && lens[0] == 3 && lens[1] == 2 && lens[2] == 4 && !plus:
		if rightOK(s, u.end) && validSSN(txt[:3], txt[4:6], txt[7:]) {
			sc.add(u.start, u.end, tSSN, prioSSN)
		}
	default:
		sc.dottedPhone(s, u, lens, np, plus)
	}
}

// dottedParts returns the lengths of the first eight dotted parts of u and
// how many parts it has.
func dottedParts(s string, u numUnit) (lens [8]int, np int) {
	for q := u.start; q < u.end; np++ {
		d := spanClass(s, q, cDigit, 0)
		if np < len(lens) {
			lens[np] = d - q
		}
		q = d + 1
	}
	return lens, np
}

// dottedPhone takes a dot-separated phone number: 930.167.3943, or
// +1.415.555.0132, with a country code before it and an extension after.
func (sc *scanner) dottedPhone(s string, u numUnit, lens [8]int, np int, plus bool) {
	phoneShape := (np == 3 && lens[0] >= 2 && lens[0] <= 4 && lens[1] >= 3 && lens[1] <= 4 && lens[2] == 4) ||
		(np == 4 && plus && lens[0] <= 3 && lens[1] == 3 && lens[2] == 3 && lens[3] == 4)
	if !phoneShape || versionContext(s, u.start) {
		return
	}
	start := u.start
	if plus {
		start--
	} else if np == 3 {
		start = countryCodeBefore(s, start)
	}
	ext := phoneExt(s, u.end)
	if ext == u.end && !rightOK(s, u.end) {
		return
	}
	sc.add(start, ext, tPhone, prioPhone)
}

// countryCodeBefore returns where a country code before the dotted number
// at start begins ("+1 415.555.0132"), or start.
func countryCodeBefore(s string, start int) int {
	if start < 3 || (s[start-1] != ' ' && s[start-1] != '-') {
		return start
	}
	d := start - 1
	c := d
	for c > 0 && isDigit(s[c-1]) && d-c < 3 {
		c--
	}
	if c < d && c > 0 && s[c-1] == '+' && (c == 1 || !isWord(s[c-2])) {
		return c - 1
	}
	return start
}

// ---------------------------------------------------------------- context words

type ctxKind uint8

const (
	phoneContext ctxKind = iota
	cardContext
	ssnContext
)

// hasContext looks at up to three words before position i (skipping filler
// words such as "number", "is", "my") for a keyword of the given kind. Only
// words are considered, never byte distances, so the decision is the same
// before and after other values nearby were replaced.
func hasContext(s string, i int, kind ctxKind) bool {
	j := i
	for step := 0; step < 4; step++ {
		// skip separators
		k := j
		for k > 0 && j-k < 8 {
			c := s[k-1]
			if c == ' ' || c == '\t' || c == ':' || c == '=' || c == '#' || c == '"' || c == '\'' || c == '(' || c == '-' || c == '.' || c == ',' || c == '\n' || c == '\r' {
				k--
				continue
			}
			break
		}
		j = k
		if j == 0 {
			return false
		}
		c := s[j-1]
		if c >= 0x80 {
			w := j
			for w > 0 && s[w-1] >= 0x80 && j-w < 30 {
				w--
			}
			return cjkContext(s[w:j], kind)
		}
		if !isAlpha(c) {
			return false
		}
		w := j
		for w > 0 && isAlpha(s[w-1]) && j-w < 24 && !isEscapeLetterAt(s, w-1) {
			w--
		}
		if w > 0 && isWord(s[w-1]) && !isEscapeLetterAt(s, w-1) {
			return false
		}
		word := s[w:j]
		if isContextWord(word, kind) {
			return true
		}
		if !isFiller(word) {
			return false
		}
		j = w
	}
	return false
}

// hasContextAfter reports a phone label right after the number ("... office").
func hasContextAfter(s string, e int) bool {
	k := e
	for k < len(s) && k-e < 3 && (s[k] == ' ' || s[k] == '-' || s[k] == '\t') {
		k++
	}
	if k == e {
		return false
	}
	w := k
	for w < len(s) && isAlpha(s[w]) && w-k < 12 {
		w++
	}
	if w < len(s) && isWord(s[w]) {
		return false
	}
	word := s[k:w]
	for _, x := range [...]string{"office", "fax", "mobile", "cell", "home", "work", "phone", "tel", "desk"} {
		if eqFold(word, x) {
			return true
		}
	}
	return false
}

var (
	phoneWords = []string{"phone", "phones", "tel", "telephone", "mobile", "cell", "cellphone", "fax", "desk", "call", "contact",
		"sms", "whatsapp", "office", "home", "work", "dial", "reach", "number", "no", "nr", "num"}
	cardWords = []string{"card", "cc", "credit", "debit", "visa", "mastercard", "amex", "pan", "cards"}
	ssnWords  = []string{"ssn", "security", "ssns"}
	fillers   = []string{"number", "no", "num", "nr", "is", "at", "on", "me", "my", "the", "of", "for", "to", "our", "your", "his", "her", "a", "an", "was", "id", "from"}
)

func isContextWord(w string, kind ctxKind) bool {
	var list []string
	switch kind {
	case phoneContext:
		list = phoneWords[:len(phoneWords)-4] // "number"/"no"/... alone are not enough
	case cardContext:
		list = cardWords
	case ssnContext:
		list = ssnWords
	}
	for _, x := range list {
		if eqFold(w, x) {
			return true
		}
	}
	return false
}

func isFiller(w string) bool {
	for _, x := range fillers {
		if eqFold(w, x) {
			return true
		}
	}
	return false
}

func cjkContext(w string, kind ctxKind) bool {
	switch kind {
	case phoneContext:
		return containsAny(w, "電話", "携帯", "連絡先", "ファックス", "ＦＡＸ", "代表番号", "内線", "直通")
	case cardContext:
		return containsAny(w, "カード")
	case ssnContext:
		return containsAny(w, "社会保障")
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if len(x) <= len(s) && strings.Index(s, x) >= 0 {
			return true
		}
	}
	return false
}

// versionContext reports whether the dotted number at i reads as a version
// or a section number: "version 1.2.3.4", "v 1.2.3.4", "Chrome/120.0.0.1",
// "agentVersion": "1.2.3.4", "section 4.2.1.3".
func versionContext(s string, i int) bool {
	if i >= 2 && s[i-1] == '/' && (isAlpha(s[i-2]) || phBefore(s, i-1)) {
		// (a placeholder before the slash stands for a word: redacting
		// "a@b.AA/1.2.3.4" twice must change nothing more)
		return true
	}
	j := i
	for j > 0 && i-j < 4 && (s[j-1] == ' ' || s[j-1] == ':' || s[j-1] == '=' || s[j-1] == '"') {
		j--
	}
	w := j
	for w > 0 && isAlpha(s[w-1]) && j-w < 32 {
		w--
	}
	word := s[w:j]
	for _, x := range [...]string{"version", "ver", "v", "firmware", "release", "build", "rev", "revision", "kernel", "os", "chrome", "firefox", "safari", "edge", "agent",
		"section", "sec", "chapter", "clause", "paragraph"} {
		if eqFold(word, x) {
			return true
		}
	}
	// a key naming a version: agentVersion, engine_version, fileVersion
	for _, x := range [...]string{"version", "release", "revision", "firmware"} {
		if len(word) > len(x) && eqFold(word[len(word)-len(x):], x) {
			return true
		}
	}
	if j >= 12 && s[j-12:j] == "バージョン" {
		return true
	}
	return false
}

// gapOK reports whether the text between a keyword and its value holds no
// other value: separators, short filler words and Japanese particles only.
func gapOK(g string) bool {
	if len(g) > 24 {
		return false
	}
	for i := 0; i < len(g); i++ {
		if isDigit(g[i]) || g[i] == '[' {
			return false
		}
	}
	return true
}

// lastIndexFold is strings.LastIndex with ASCII letters compared
// case-insensitively (kw is lower-case).
func lastIndexFold(s, kw string) int {
	for k := len(s) - len(kw); k >= 0; k-- {
		if hasPrefixFold(s[k:], kw) {
			return k
		}
	}
	return -1
}

// jpMobile reports a Japanese mobile or IP-phone number written as one run:
// 11 digits starting 050, 060, 070, 080 or 090, which no other common
// identifier shares.
func jpMobile(d []byte) bool {
	return len(d) == 11 && d[0] == '0' && d[1] >= '5' && d[1] <= '9' && d[2] == '0'
}

// codeGroupNear reports a code-like group (digits or capitals: "NBRB",
// "2Z00", "BY13") one separator before first or after end: the number is a
// part of a longer code such as an IBAN, not a value of its own.
func codeGroupNear(s string, first, end int) bool {
	codeLike := func(w string) bool {
		return w != "" && len(w) <= 8 && (strings.ContainsAny(w, "0123456789") || allClass(w, cUpper|cDigit))
	}
	// a placeholder counts as the value it replaced, so that redacting a
	// neighbour never changes the decision
	if first >= 2 && (s[first-1] == ' ' || s[first-1] == '-') && phBefore(s, first-1) ||
		end+1 < len(s) && (s[end] == ' ' || s[end] == '-') && phAfter(s, end+1) {
		return true
	}
	if first >= 2 && (s[first-1] == ' ' || s[first-1] == '-') && isAlnum(s[first-2]) {
		a := first - 1
		for a > 0 && isAlnum(s[a-1]) && first-a < 10 {
			a--
		}
		if codeLike(s[a : first-1]) {
			return true
		}
	}
	if end+1 < len(s) && (s[end] == ' ' || s[end] == '-') && isAlnum(s[end+1]) {
		e := spanClass(s, end+1, cDigit|cUpper|cLower, 10)
		if codeLike(s[end+1 : e]) {
			return true
		}
	}
	return false
}
