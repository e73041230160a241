package redact

import "strings"

// An Azure shared access signature (SAS) is a query string that grants access
// to a storage resource on its own: signed fields (sv, the signed version,
// which every kind of SAS carries; sp, se, sr, ss, srt, …) and sig, their
// HMAC-SHA256 signature, base64 (32 bytes: 43 characters and '=') and
// URL-encoded. The fields are indicators an analyst reads (what was allowed,
// until when); the signature is the credential, and it goes, as the secret of
// a webhook URL does. It is found in a URL, after SharedAccessSignature= in a
// connection string, or as a bare query.

// scanSASSig adds the sig value of every SAS query in s.
func (sc *scanner) scanSASSig(s string) {
	for from := 0; ; {
		// the '=' is rare in prose and the 's' common: look for the '='
		// and read "sig" before it
		k := strings.IndexByte(s[from:], '=')
		if k < 0 {
			return
		}
		p := from + k - 3
		if p < from || s[p:p+3] != "sig" {
			from += k + 1
			continue
		}
		from = p + 4
		if p > 0 && s[p-1] != '&' && s[p-1] != '?' && s[p-1] != '=' && s[p-1] != ';' {
			continue // "xsig=", "autosig=": another field
		}
		v := p + 4
		e, ok := sasSigEnd(s, v)
		if !ok || !sasQuery(s, p, e) || placeholderBody(s[v:e]) {
			continue
		}
		sc.add(v, e, tAPIKey, prioSigned)
		from = e
	}
}

// sasSigEnd reads a base64 HMAC-SHA256 at v, raw or URL-encoded (%2B, %2F,
// %3D): 43 base64 characters and at most one '='. It returns the value's end.
func sasSigEnd(s string, v int) (int, bool) {
	n64, pad := 0, 0
	k := v
	for k < len(s) && n64 <= 43 {
		c := s[k]
		switch {
		case isAlnum(c) || c == '+' || c == '/':
			if pad > 0 {
				return k, false
			}
			n64++
			k++
		case c == '=':
			pad++
			k++
		case c == '%' && k+2 < len(s):
			switch strings.ToUpper(s[k+1 : k+3]) {
			case "2B", "2F":
				if pad > 0 {
					return k, false
				}
				n64++
			case "3D":
				pad++
			default:
				return k, false
			}
			k += 3
		default:
			return k, n64 == 43 && pad <= 1 && rightBoundary(s, k)
		}
	}
	return k, n64 == 43 && pad <= 1 && rightBoundary(s, k)
}

// sasQuery reports a signed-version field (sv=) in the query that holds the
// sig= field at p and ends at e: the run of query characters around them.
func sasQuery(s string, p, e int) bool {
	a := p
	for a > 0 && p-a < 2048 && !sasStop(s[a-1]) {
		a--
	}
	b := e
	for b < len(s) && b-e < 2048 && !sasStop(s[b]) {
		b++
	}
	q := s[a:b]
	for from := 0; ; {
		k := strings.Index(q[from:], "sv=")
		if k < 0 {
			return false
		}
		at := from + k
		if at == 0 || strings.IndexByte("?&=;", q[at-1]) >= 0 {
			return true
		}
		from = at + 3
	}
}

// sasStop ends a query: white space, quotes, angle brackets.
func sasStop(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\'
}
