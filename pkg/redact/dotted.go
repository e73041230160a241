package redact

// textIPv4 is the rule for a dotted quad found in text: a valid address
// whose octets carry no leading zero. Written addresses do not pad their
// octets; "010.001.002.003" is a serial, a firmware string or a version.
// (ParseIP still reads padded octets: a caller that asks for an address gets
// one.)
func textIPv4(s string) bool {
	if !validIPv4(s) {
		return false
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '0' && (i == 0 || s[i-1] == '.') && isDigit(s[i+1]) {
			return false
		}
	}
	return true
}
