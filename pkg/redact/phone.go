package redact

import (
	"strings"
)

// The phone recognizer's layout rules (numeric.go) decide most numbers on
// their own. The numbering plans (libphonenumber's metadata, phoneplan.go)
// are asked only about the few candidates the layout rules cannot settle: an
// international number grouped unevenly, and an eleven-digit run in the shape
// of a Chinese mobile. Parsing is far slower than the layout rules, so
// nothing else reaches it.

// intlPhoneValid reports whether num, written with a leading '+', is a valid
// number of the country its code names. A trunk "(0)" written inside the
// international form ("+43 (0)1 53422 0") is dropped first, as dialling does.
func intlPhoneValid(num string) bool {
	return planIntlValid(strings.Replace(num, "(0)", "", 1))
}

// cnMobileShape is the cheap test: eleven digits, 1 then 3-9.
func cnMobileShape(d []byte) bool {
	return len(d) == 11 && d[0] == '1' && d[1] >= '3' && d[1] <= '9'
}

// cnMobile confirms a cnMobileShape run against the Chinese numbering plan:
// only allocated mobile ranges count.
func cnMobile(digits string) bool {
	return cnMobileShape([]byte(digits)) && planCNMobile(digits)
}

// keyedNumber reports a number that is the value of a key written without a
// space ("bytes_sent=18446744073", "size:13912345678"): a measurement or an
// identifier, which a bare mobile-shaped run must not be taken from.
func keyedNumber(s string, i int) bool {
	return i > 0 && (s[i-1] == '=' || s[i-1] == ':')
}

// quantityWords name what an ordinary number counts or measures, before it
// ("size 15728640000") or after it ("15728640000 bytes").
var quantityWords = []string{"bytes", "byte", "kb", "mb", "gb", "ms", "ns", "us", "rows", "records", "events",
	"times", "seconds", "secs", "packets", "requests", "items", "files", "hits", "entries", "lines", "size",
	"count", "total", "offset", "length", "sum", "balance", "amount", "usd", "eur", "jpy", "cny", "yen", "yuan"}

// measuredNumber reports a quantity word right before the number [i,e) or
// right after it: a mobile-shaped run there is a count or a size.
func measuredNumber(s string, i, e int) bool {
	b := i
	for b > 0 && s[b-1] == ' ' {
		b--
	}
	a := b
	for a > 0 && isAlpha(s[a-1]) && b-a < 10 {
		a--
	}
	c := e
	for c < len(s) && s[c] == ' ' {
		c++
	}
	d := c
	for d < len(s) && isAlpha(s[d]) && d-c < 10 {
		d++
	}
	for _, w := range quantityWords {
		if (a < b && eqFold(s[a:b], w)) || (c > e && c < d && eqFold(s[c:d], w)) {
			return true
		}
	}
	return false
}

// frenchPairs reports the French national layout written with dots: five
// pairs, the first a trunk 0 and a non-zero digit (01.42.68.53.00).
func frenchPairs(txt string) bool {
	if len(txt) != 14 || txt[0] != '0' || txt[1] == '0' {
		return false
	}
	for k := 2; k < 14; k += 3 {
		if txt[k] != '.' {
			return false
		}
	}
	return true
}
