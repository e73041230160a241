package redact

// The My Number recognizer's tables and checks; the layouts it accepts are
// decided in chain (numeric.go).

// validMyNumber checks the check digit of a 12-digit Individual Number
// (マイナンバー) by the official rule: with P(n) the n-th of the first eleven
// digits counted from the right and Q(n) = n+1 for n <= 6, n-5 above, the
// twelfth digit is 0 when ΣP(n)Q(n) mod 11 <= 1, else 11 minus it.
func validMyNumber(d []byte) bool {
	if len(d) != 12 {
		return false
	}
	sum := 0
	for n := 1; n <= 11; n++ {
		p := int(d[11-n] - '0')
		q := n + 1
		if n >= 7 {
			q = n - 5
		}
		sum += p * q
	}
	check := 0
	if r := sum % 11; r > 1 {
		check = 11 - r
	}
	return int(d[11]-'0') == check
}

// myNumberWords name an Individual Number before it (compared lower-case,
// ASCII folded).
var myNumberWords = []string{"マイナンバー", "個人番号", "my number", "mynumber", "my_number", "my-number",
	"individual number", "マイナンバーカード"}

// myNumberContext reports a My Number word shortly before the number at i,
// with nothing but separators, filler and Japanese particles between.
func myNumberContext(s string, i int) bool {
	a := max(0, i-48)
	for a < i && a > 0 && s[a]&0xC0 == 0x80 {
		a++ // start on a character boundary
	}
	w := s[a:i]
	for _, kw := range myNumberWords {
		k := lastIndexFold(w, kw)
		if k < 0 {
			continue
		}
		if gapOK(w[k+len(kw):]) {
			return true
		}
	}
	return false
}
