package redact

import "strings"

// The recognizers of a blob of undotted digit groups (numeric.go finds the
// groups): social security numbers, My Numbers, card numbers, the
// look-alikes that are none of them, and phone numbers, tried in that order.

// digitChain is a blob of undotted digit groups as the recognizers below
// read it: its groups and separators, its digits, and its surroundings.
type digitChain struct {
	s           string
	plus, paren bool // written with a leading '+'; a group in parentheses
	units       []numUnit
	seps        []string
	k           int // groups
	first, end  int
	digits      [24]byte
	nd          int // digits in all (digits holds the first 24)
	sameSep     bool
	sep         string // the separator after the first group
	left, right bool   // boundaries on either side
}

func (c *digitChain) grp(x int) string { return c.s[c.units[x].start:c.units[x].end] }

// measure reads the groups units (separated by seps) starting at i.
func (c *digitChain) measure(s string, i int, plus bool, units []numUnit, seps []string) {
	*c = digitChain{s: s, plus: plus, units: units, seps: seps, k: len(units), end: units[len(units)-1].end, first: units[0].start}
	if plus {
		c.first = i
	}
	for _, u := range units {
		c.paren = c.paren || u.paren
		for q := u.start; q < u.end; q++ {
			if isDigit(s[q]) {
				if c.nd < len(c.digits) {
					c.digits[c.nd] = s[q]
				}
				c.nd++
			}
		}
	}
	c.sameSep = true
	for x := 2; x < c.k; x++ {
		if seps[x] != seps[1] {
			c.sameSep = false
		}
	}
	if c.k > 1 {
		c.sep = seps[1]
	}
	c.left, c.right = leftOK(s, i), rightOK(s, c.end)
}

// chain classifies a blob of undotted digit groups: each recognizer in turn
// (SSN, My Number, card, the look-alikes that are none of them, phone) takes
// it or passes it on.
func (sc *scanner) chain(s string, i int, plus bool, units []numUnit, seps []string) int {
	var c digitChain
	c.measure(s, i, plus, units, seps)
	if !plus && (ibanHead(s, c.first) || ibanBody(s, c.first)) {
		return c.end // the groups of an IBAN ("FI21 1234 5600 0007 85"): not a card or a phone
	}
	if macGroups(&c) {
		return c.end // the octets of a MAC address (01-23-45-67-89-AB): not a phone
	}
	if e, done := sc.ssnChain(&c); done {
		return e
	}
	if e, done := sc.myNumberChain(&c); done {
		return e
	}
	if e, done := sc.cardChain(&c); done {
		return e
	}
	if e, done := notPhoneChain(&c); done {
		return e
	}
	return sc.phoneChain(&c)
}

// macGroups reports a chain of two-digit groups joined by dashes that a hex octet continues
// or precedes: a MAC address whose other octets have letters.
func macGroups(c *digitChain) bool {
	if c.plus || c.paren || c.k < 2 || !c.sameSep || c.sep != "-" {
		return false
	}
	for _, u := range c.units {
		if u.digits != 2 {
			return false
		}
	}
	s, a, e := c.s, c.first, c.end
	after := e+2 < len(s) && s[e] == '-' && ctab[s[e+1]]&cHex != 0 && ctab[s[e+2]]&cHex != 0
	before := a >= 3 && s[a-1] == '-' && ctab[s[a-2]]&cHex != 0 && ctab[s[a-3]]&cHex != 0
	return after || before
}

// ssnChain takes a US social security number: 3-2-4 with one separator, or
// nine digits after an SSN word.
func (sc *scanner) ssnChain(c *digitChain) (int, bool) {
	u := c.units
	if !c.plus && !c.paren && c.k == 3 && c.sameSep && (c.sep == "-" || c.sep == " ") &&
		u[0].digits == 3 && u[1].digits == 2 && u[2].digits == 4 {
		if c.left && c.right && validSSN(c.grp(0), c.grp(1), c.grp(2)) {
			sc.add(c.first, c.end, tSSN, prioSSN)
		}
		return c.end, true
	}
	// bare 9 digits after "SSN"/"social security number"
	if !c.plus && c.k == 1 && c.nd == 9 && c.left && c.right && hasContext(c.s, c.first, ssnContext) {
		if validSSN(string(c.digits[:3]), string(c.digits[3:5]), string(c.digits[5:9])) {
			sc.add(c.first, c.end, tSSN, prioSSN)
			return c.end, true
		}
	}
	return 0, false
}

// myNumberChain takes a My Number: 12 digits with a valid check digit, plain
// after a My Number word, or grouped in fours (1234 5678 9018,
// 1234-5678-9018) anywhere; a plain run alone reads as an account ID or an
// ordinary number and is left.
func (sc *scanner) myNumberChain(c *digitChain) (int, bool) {
	if c.plus || c.paren || c.nd != 12 || !c.left || !c.right || !validMyNumber(c.digits[:12]) {
		return 0, false
	}
	u := c.units
	grouped := c.k == 3 && c.sameSep && (c.sep == " " || c.sep == "-") &&
		u[0].digits == 4 && u[1].digits == 4 && u[2].digits == 4
	if (c.k == 1 || grouped) && (myNumberContext(c.s, c.first) ||
		grouped && !hasContext(c.s, c.first, cardContext) && !hasContext(c.s, c.first, phoneContext) && !codeGroupNear(c.s, c.first, c.end)) {
		sc.add(c.first, c.end, tMyNumber, prioSSN)
		return c.end, true
	}
	return 0, false
}

// cardChain takes a payment card number, plain or grouped, that passes the
// Luhn check, and leaves a card layout that fails it.
func (sc *scanner) cardChain(c *digitChain) (int, bool) {
	grouped := cardGrouped(c)
	left, right := c.left, c.right
	if c.k == 1 && c.nd >= 13 {
		// a field of a CSV row ("A-10021,30149283751047,11/28"): thirteen
		// digits or more are no part of a thousands-grouped number
		left = left || (c.first > 0 && c.s[c.first-1] == ',' && !phBefore(c.s, c.first-1))
		right = right || (c.end < len(c.s) && c.s[c.end] == ',' && !phAfter(c.s, c.end+1))
	}
	if !c.plus && !c.paren && c.nd >= 12 && c.nd <= 19 && (c.k == 1 || grouped) && left && right {
		d := c.digits[:c.nd]
		if (d[0] >= '1' && d[0] <= '6' || d[0] == '0' && hasContext(c.s, c.first, cardContext)) && !(c.nd == 13 && d[0] == '1') && luhn(d) &&
			(c.nd >= 13 || hasContext(c.s, c.first, cardContext)) {
			sc.add(c.first, c.end, tCC, prioCC)
			return c.end, true
		}
	}
	if grouped && c.k >= 3 && c.nd >= 12 {
		allFour := true
		for _, u := range c.units {
			if u.digits != 4 {
				allFour = false
			}
		}
		if allFour || c.nd >= 13 {
			return c.end, true // card layout that failed the checks: leave it
		}
	}
	return 0, false
}

// cardGrouped reports groups of a card's layout: four digits first, then
// groups of 3 to 6 with one separator; the last group may be short
// ("3056 9309 0259 04") after groups of four.
func cardGrouped(c *digitChain) bool {
	if c.k < 2 || c.paren || !c.sameSep || (c.sep != " " && c.sep != "-") || c.units[0].digits != 4 {
		return false
	}
	fours := true // groups of four so far
	for x := 1; x < c.k; x++ {
		d := c.units[x].digits
		if (d < 3 || d > 6) && !(x == c.k-1 && c.k >= 4 && fours && d >= 1 && d < 4) {
			return false
		}
		fours = fours && d == 4
	}
	return true
}

// notPhoneChain leaves what is laid out like a number of none of the types:
// dates, year ranges and year-led identifiers, US ZIP+4, Japanese postal codes.
func notPhoneChain(c *digitChain) (int, bool) {
	if c.k == 3 && c.sameSep && !c.plus && !c.paren {
		// dates: 2024-01-02, 02-01-2024, 2 1 2024
		a, b, d := c.grp(0), c.grp(1), c.grp(2)
		if (yearLike(a) && len(b) <= 2 && len(d) <= 2 && atoi2(b) <= 12 && atoi2(d) <= 31) ||
			(yearLike(d) && len(a) <= 2 && len(b) <= 2) {
			return c.end, true
		}
	}
	if c.k == 2 && yearLike(c.grp(0)) && (yearLike(c.grp(1)) || c.sep == "-" && !c.plus && !hasContext(c.s, c.first, phoneContext)) {
		return c.end, true // 2024-2025, and year-led identifiers such as invoice 2026-000134
	}
	if !c.plus && !c.paren && c.k == 2 && c.sep == "-" && c.units[0].digits == 5 && c.units[1].digits == 4 && !hasContext(c.s, c.first, phoneContext) {
		return c.end, true // US ZIP+4
	}
	if !c.plus && !c.paren && c.k == 2 && c.sep == "-" && compactDate(c.grp(0)) && !hasContext(c.s, c.first, phoneContext) {
		return c.end, true // date-led identifiers: case 20261129-000481
	}
	if runsIntoDate(c) || statusAndSize(c) {
		return c.end, true
	}
	if c.first >= 3 && c.s[c.first-3:c.first] == "〒" {
		return c.end, true // Japanese postal code
	}
	return 0, false
}

// shortPhone: six digits in groups are a local number when a phone word stands before or
// after them ("call me at 92 34 70", "61 51 81 office"); alone they are anything.
func shortPhone(c *digitChain, ext int) bool {
	return c.nd == 6 && c.k >= 2 && !c.plus && (hasContext(c.s, c.first, phoneContext) || hasContextAfter(c.s, ext))
}

// compactDate reports eight digits that read as a date, YYYYMMDD.
func compactDate(g string) bool {
	if len(g) != 8 || !yearLike(g[:4]) {
		return false
	}
	m, d := atoi2(g[4:6]), atoi2(g[6:])
	return m >= 1 && m <= 12 && d >= 1 && d <= 31
}

// runsIntoDate reports groups that end in the year and month of a date whose
// day follows ("<134>1 2026-11-29T07:00:02Z", a syslog version before its
// timestamp): the groups before the year are not a number of their own.
func runsIntoDate(c *digitChain) bool {
	x := c.k - 2
	if x < 1 || c.plus || !yearLike(c.grp(x)) || c.seps[x+1] != "-" || c.units[x+1].digits != 2 || atoi2(c.grp(x+1)) > 12 {
		return false
	}
	e := c.end
	return e+2 < len(c.s) && c.s[e] == '-' && isDigit(c.s[e+1]) && isDigit(c.s[e+2])
}

// statusAndSize reports the status and size fields of a web server's access
// log line ("GET /x HTTP/1.1" 200 5123, GET https://host/x 200 5123): a
// three-digit status right after the request's protocol and quote, or after
// its target (a path or a URL) when a method comes before that. Only the
// token before the status is read, so a line of many numbers costs no more
// than reading it once.
func statusAndSize(c *digitChain) bool {
	s, f := c.s, c.first
	if c.plus || c.paren || c.k != 2 || c.sep != " " || c.units[0].digits != 3 || s[f] < '1' || s[f] > '5' || f < 2 || s[f-1] != ' ' {
		return false
	}
	if s[f-2] == '"' {
		return strings.Contains(s[max(0, f-12):f-2], "HTTP/")
	}
	ts := f - 1 // the request target before the status
	for ts > 0 && s[ts-1] > ' ' && f-ts < 2048 {
		ts--
	}
	tgt := s[ts : f-1]
	if !(strings.HasPrefix(tgt, "/") || strings.HasPrefix(tgt, "http://") || strings.HasPrefix(tgt, "https://")) || ts < 4 || s[ts-1] != ' ' {
		return false
	}
	ms := ts - 1
	for ms > 0 && ts-1-ms < 8 && isUpper(s[ms-1]) {
		ms--
	}
	switch s[ms : ts-1] {
	case "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS":
		return true
	}
	return false
}

// phoneChain takes a phone number: one run of digits with a phone word
// nearby or in a mobile's shape, or groups in a phone's layout.
func (sc *scanner) phoneChain(c *digitChain) int {
	if c.nd > 15 || !c.left {
		return c.end
	}
	ext := phoneExt(c.s, c.end)
	if ext == c.end && !c.right {
		return c.end
	}
	short := c.nd < 7
	if short && !shortPhone(c, ext) {
		return c.end
	}
	if c.k == 1 {
		if phoneRun(c, ext) {
			sc.add(c.first, ext, tPhone, prioPhone)
		}
		return ext
	}
	if !short && !phoneGroups(c) {
		return c.end
	}
	first := c.first
	if c.plus && parenCountryCode(c.s, c.units[0]) {
		first-- // the '(' of "(+44) 20 …" belongs to the number
	}
	sc.add(first, ext, tPhone, prioPhone)
	return ext
}

// phoneRun reports a single run of digits (extension to ext) that is a
// phone number: international, near a phone word, or a Japanese or Chinese
// mobile.
func phoneRun(c *digitChain, ext int) bool {
	s, first, nd := c.s, c.first, c.nd
	d := c.digits[:min(nd, len(c.digits))]
	return (c.plus && nd >= 8) || hasContext(s, first, phoneContext) || hasContextAfter(s, ext) || jpMobile(d) ||
		(cnMobileShape(d) && !keyedNumber(s, first) && !measuredNumber(s, first, c.end) && cnMobile(string(c.digits[:nd])))
}

// phoneGroups reports groups in a phone's layout.
func phoneGroups(c *digitChain) bool {
	maxGroup, spacesOnly := 0, true
	u := c.units
	for x := 0; x < c.k; x++ {
		d := u[x].digits
		if d > maxGroup {
			maxGroup = d
		}
		if x > 0 && !u[x].paren && d < 2 && !(x == 1 && c.plus) && !(x == 2 && c.plus && u[1].paren) {
			// only a country code (or a trunk "(0)" after it) may be followed by a
			// one-digit area code; other groupings of an international number
			// ("+30 21 0 3214567") are confirmed by the numbering plan
			if c.plus && intlPhoneValid(c.s[c.first:c.end]) {
				break
			}
			return false
		}
		if x > 0 && strings.IndexByte(c.seps[x], '-') >= 0 {
			spacesOnly = false
		}
	}
	if c.k == 2 && (u[0].digits < 2 && !c.plus) {
		return false
	}
	// "10 20 30 40" is a list, not a phone; numbers in pairs start with a trunk 0
	return !(maxGroup <= 2 && spacesOnly && (c.nd < 10 || !c.plus && c.digits[0] != '0'))
}
