package redact

import "strings"

// Oracle's tools and its JDBC thin driver take a login as
// user/password@connect_identifier: sqlplus scott/tiger@//db:1521/PDB1,
// rman target sys/…@prod, expdp system/…@orcl, sqlldr userid=…,
// jdbc:oracle:thin:scott/tiger@//host:1521/svc. The password is the part
// between the slash and the '@'.

// oracleContexts name an Oracle login on the same line.
var oracleContexts = []string{"sqlplus", "rman", "expdp", "impdp", "sqlldr", "jdbc:oracle:", "userid=", "dgmgrl", "tnsping"}

func (sc *scanner) scanOracleLogins(s string) {
	for from := 0; ; {
		k := strings.IndexByte(s[from:], '@')
		if k < 0 {
			return
		}
		at := from + k
		from = at + 1
		if at == 0 || at+1 >= len(s) || s[at-1] <= ' ' || !oracleTarget(s[at+1]) {
			continue
		}
		// the password: back to the slash, with no space, quote, slash or
		// '@' in it (so that a run of '@' is read once)
		ps := at
		for ps > 0 && at-ps < 128 && s[ps-1] > ' ' && s[ps-1] < 0x7f && s[ps-1] != '/' && s[ps-1] != '"' && s[ps-1] != '\'' && s[ps-1] != '@' {
			ps--
		}
		if ps == 0 || s[ps-1] != '/' || at-ps < 3 {
			continue
		}
		us := ps - 1
		for us > 0 && ps-1-us < 64 && (isAlnum(s[us-1]) || s[us-1] == '_' || s[us-1] == '$' || s[us-1] == '#') {
			us--
		}
		if us == ps-1 || (us > 0 && s[us-1] != ' ' && s[us-1] != '\t' && s[us-1] != ':' && s[us-1] != '=') {
			continue
		}
		if v := s[ps:at]; !credValueOK(v) || referenceValue(v) || !oracleLine(s, us) {
			continue
		}
		sc.add(ps, at, tSecret, prioCred)
	}
}

// oracleTarget reports a byte that may start a connect identifier: "//host",
// a host or a TNS alias.
func oracleTarget(c byte) bool { return c == '/' || isAlnum(c) || c == '(' }

// oracleLine reports an Oracle tool or driver before i on its line.
func oracleLine(s string, i int) bool {
	for _, w := range oracleContexts {
		if lineHasFold(s, i, w) {
			return true
		}
	}
	return false
}
