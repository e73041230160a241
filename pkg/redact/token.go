package redact

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"hash"
	"hash/maphash"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/m-mizutani/goerr/v2"
)

// # Keyed tokens
//
// A Redactor built with WithTokens writes "[REDACTED_<TYPE>_<tag>]" instead of
// "[REDACTED_<TYPE>]". The tag is the first 50 bits of
// HMAC-SHA256(key, TYPE || 0x00 || normalised value) in lower-case base32
// (TagLen characters). The same value gives the same token under the same
// key, also when written differently (fullwidth digits, another letter case of
// an e-mail address, another layout of a phone number or an IPv6 address);
// without the key a token tells nothing but equality. 50 bits keep accidental
// collisions between the values of one workspace negligible (about one in
// 10^5 at a million distinct values) while the token stays short to read.
//
// A Redactor built with WithEvidence keeps the indicators that its evidence
// texts (the alert under discussion) hold: they are written as they are.

// TagLen is the number of characters of a token's tag.
const TagLen = 10

// MinKeyLen is the shortest key NewTokenizer accepts.
const MinKeyLen = 16

// tagEncoding is base32 in lower case without padding: tags are letters and digits only.
var tagEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Tokenizer derives keyed tokens from values. It is safe for concurrent use.
type Tokenizer struct {
	key  []byte
	pool sync.Pool // *tokenState
}

type tokenState struct {
	mac hash.Hash
	buf []byte // normalised value
	sum []byte
	// memo holds, during one walk (Redactor.Map), the walk's tokens by the text of their
	// values: a result often repeats an address, as a key and as a field. It is emptied when
	// the walk ends, so no walk sees another's values.
	memo   [64]memoEntry
	memoOn bool
	seed   maphash.Seed
}

type memoEntry struct {
	value, token string
	n            uint8
}

// NewTokenizer returns a Tokenizer for key, which must hold at least
// MinKeyLen bytes (a workspace key is 32 random bytes). The key is copied.
func NewTokenizer(key []byte) (*Tokenizer, error) {
	if len(key) < MinKeyLen {
		return nil, goerr.New("a token key needs at least 16 bytes", goerr.V("length", len(key)))
	}
	t := &Tokenizer{key: append([]byte(nil), key...)}
	t.pool.New = func() any {
		return &tokenState{mac: hmac.New(sha256.New, t.key), buf: make([]byte, 0, 64), sum: make([]byte, 0, sha256.Size),
			seed: maphash.MakeSeed()}
	}
	return t, nil
}

// Tag returns the tag of value as a value of type typ.
func (t *Tokenizer) Tag(typ Type, value string) string {
	n, ok := typeNum(typ)
	if !ok {
		n = uint8(numTypes) // unknown types still get a tag, in their own domain
	}
	st := t.get()
	defer t.put(st)
	st.input(n, string(typ), value)
	var out [TagLen]byte
	st.tag(out[:])
	return string(out[:])
}

// Token returns the token that replaces value as a value of type typ:
// "[REDACTED_<typ>_<tag>]".
func (t *Tokenizer) Token(typ Type, value string) string {
	n, ok := typeNum(typ)
	if !ok {
		n = uint8(numTypes)
	}
	st := t.get()
	defer t.put(st)
	st.input(n, string(typ), value)
	return st.token(string(typ))
}

func (t *Tokenizer) get() *tokenState { return t.pool.Get().(*tokenState) }

// getMemo is get for a walk: the state remembers the walk's tokens until put.
func (t *Tokenizer) getMemo() *tokenState {
	st := t.get()
	st.memoOn = true
	return st
}

func (t *Tokenizer) put(st *tokenState) {
	if st.memoOn {
		st.memo, st.memoOn = [len(st.memo)]memoEntry{}, false
	}
	if cap(st.buf) <= 4096 {
		t.pool.Put(st)
	}
}

// input makes st.buf the input of the MAC for value (type number n, named name):
// TYPE || 0x00 || normalised value, hashed with one Write.
func (st *tokenState) input(n uint8, name, value string) {
	buf := append(st.buf[:0], name...)
	buf = append(buf, 0)
	st.buf = appendNormalized(buf, n, value)
}

// token returns "[REDACTED_<name>_<tag>]" for the input in st.buf.
func (st *tokenState) token(name string) string {
	var b [len(phPrefix) + 16 + 1 + TagLen + 1]byte
	out := append(b[:0], phPrefix...)
	out = append(out, name...)
	out = append(out, '_')
	k := len(out)
	out = append(out, ".........."[:TagLen]...)
	st.tag(out[k : k+TagLen])
	out = append(out, ']')
	return string(out)
}

// tag writes the tag of the input in st.buf into dst (TagLen bytes).
func (st *tokenState) tag(dst []byte) {
	st.mac.Reset()
	st.mac.Write(st.buf)
	st.sum = st.mac.Sum(st.sum[:0])
	// 50 bits: the first 7 bytes give 11 base32 characters, of which TagLen are kept
	var enc [16]byte
	tagEncoding.Encode(enc[:], st.sum[:7])
	copy(dst, enc[:TagLen])
}

// appendNormalized appends the normalised form of value (type number n) to dst.
func appendNormalized(dst []byte, n uint8, value string) []byte {
	start := len(dst)
	switch n {
	case tPhone, tCC, tSSN, tMyNumber:
		for i := 0; i < len(value); {
			c := value[i]
			if c < utf8.RuneSelf {
				if isDigit(c) {
					dst = append(dst, c)
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(value[i:])
			if b, ok := foldRune(r); ok && isDigit(b) {
				dst = append(dst, b)
			}
			i += size
		}
		return dst
	}
	dst = appendFolded(dst, value)
	switch n {
	case tEmail:
		lowerASCII(dst[start:])
	case tIP:
		if validIPv4(string(dst[start:])) {
			// dotted decimal is its own normal form (with leading zeros, which ParseAddr
			// rejects, it is kept as written, as below)
			return dst
		}
		if a, err := netip.ParseAddr(string(dst[start:])); err == nil {
			dst = a.Unmap().WithZone("").AppendTo(dst[:start])
		} else {
			lowerASCII(dst[start:])
		}
	}
	return dst
}

// appendFolded appends value with fullwidth forms, the ideographic space and
// Unicode dashes folded to ASCII, as detection sees it.
func appendFolded(dst []byte, value string) []byte {
	i := 0
	for i < len(value) && value[i] < utf8.RuneSelf {
		i++
	}
	dst = append(dst, value[:i]...) // the ASCII start at once
	for i < len(value) {
		c := value[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(value[i:])
		if b, ok := foldRune(r); ok {
			dst = append(dst, b)
		} else {
			dst = append(dst, value[i:i+size]...)
		}
		i += size
	}
	return dst
}

func lowerASCII(b []byte) {
	for i, c := range b {
		b[i] = lower(c)
	}
}

// WithTokens returns a copy of r that writes keyed tokens made by t instead of
// plain placeholders. A nil t gives plain placeholders.
func (r *Redactor) WithTokens(t *Tokenizer) *Redactor {
	c := r.clone()
	c.tok = t
	return c
}

// evidenceTypes are the types of the alert's values that are kept as they are: the
// indicators an analyst talks about (domains, URLs, hashes and account or resource IDs are
// never redacted at all). A secret or a key the alert holds (a password, a private key, an
// API key or token, a client secret, credentials in a URL) and personal data that is not an
// indicator (a phone, card or social security number) are still redacted: the alert is
// stored once, under its own access, while histories are read, searched, exported and
// resumed, and every copy of a secret is one more place it leaks from.
var evidenceTypes = [numTypes]bool{tIP: true, tEmail: true}

// WithEvidence returns a copy of r that keeps, as they are, the indicators (IP and e-mail
// addresses, see evidenceTypes) found in texts, whichever types r redacts: the alert under
// discussion is stored as given anyway, and its indicators are what the analyst talks about.
// A value is kept wherever it appears in the same normalised form and type.
func (r *Redactor) WithEvidence(texts ...string) *Redactor {
	c := r.clone()
	keep := make(map[string]struct{}, len(r.keep))
	for k := range r.keep {
		keep[k] = struct{}{}
	}
	known := slices.Clone(r.known)
	sc := getScanner()
	defer putScanner(sc)
	for _, s := range texts {
		for _, m := range sc.find(s) {
			switch {
			case m.typ == tKeep || m.typ == tProbe:
			case evidenceTypes[m.typ]:
				keep[evidenceKey(nil, m.typ, s[m.start:m.end])] = struct{}{}
			default:
				known = appendKnown(known, s[m.start:m.end], m.typ)
			}
		}
	}
	// longer values first: where two occur overlapping, the longer is replaced
	slices.SortStableFunc(known, func(a, b knownValue) int { return len(b.text) - len(a.text) })
	c.keep, c.known = keep, slices.CompactFunc(known, func(a, b knownValue) bool { return a == b })
	return c
}

// knownValue is a secret (or other non-indicator value) the evidence holds: the history may
// repeat it where nothing around it says it is one ("rotate Wint3r-Is-C0ming-42 now"), so it
// is replaced wherever it occurs.
type knownValue struct {
	text string
	typ  uint8
}

// minKnownLen is the shortest known value replaced wherever it occurs; shorter ones are left
// to detection (a short value would match inside ordinary words).
const minKnownLen = 6

// appendKnown adds value, and its JSON-unescaped form when that differs (the evidence is JSON:
// the history holds the value as it reads).
func appendKnown(known []knownValue, value string, typ uint8) []knownValue {
	if len(value) < minKnownLen || len(known) >= 4096 {
		return known
	}
	known = append(known, knownValue{value, typ})
	if strings.IndexByte(value, '\\') >= 0 {
		var u string
		if err := json.Unmarshal([]byte(`"`+value+`"`), &u); err == nil && u != value && len(u) >= minKnownLen {
			known = append(known, knownValue{u, typ})
		}
	}
	return known
}

// withKnown adds to ms (sorted, disjoint matches of s) the occurrences of r's known values: an
// occurrence replaces the matches it overlaps, unless one of them holds it whole already or is
// an existing placeholder. A value shorter than 12 bytes counts only where it is not a part of
// a longer word.
func (r *Redactor) withKnown(s string, ms []match) []match {
	var extra []match
	for _, kv := range r.known {
		for from := 0; ; {
			k := strings.Index(s[from:], kv.text)
			if k < 0 {
				break
			}
			st, en := from+k, from+k+len(kv.text)
			from = st + 1
			if len(kv.text) < 12 && (st > 0 && isWord(s[st-1]) || en < len(s) && isWord(s[en])) {
				continue
			}
			if overlapsAny(extra, st, en) {
				continue // a longer known value holds it
			}
			extra = append(extra, match{start: st, end: en, typ: kv.typ, prio: prioPEM})
			from = en
		}
	}
	if len(extra) == 0 {
		return ms
	}
	out := make([]match, 0, len(ms)+len(extra))
	for _, e := range extra {
		skip := false
		for _, m := range ms {
			if m.start < e.end && e.start < m.end && (m.typ == tKeep || m.start <= e.start && m.end >= e.end) {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, e)
		}
	}
	added := out[:len(out):len(out)]
	for _, m := range ms {
		if !overlapsAny(added, m.start, m.end) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b match) int { return a.start - b.start })
	return out
}

func overlapsAny(ms []match, start, end int) bool {
	for _, m := range ms {
		if m.start < end && start < m.end {
			return true
		}
	}
	return false
}

// Tokens reports whether r writes keyed tokens.
func (r *Redactor) Tokens() bool { return r != nil && r.tok != nil }

func (r *Redactor) clone() *Redactor {
	if r == nil {
		return &Redactor{}
	}
	c := *r
	return &c
}

func evidenceKey(buf []byte, n uint8, value string) string {
	buf = append(buf[:0], n)
	return string(appendNormalized(buf, n, value))
}

// repl returns what replaces value, a detected value of type number n, and
// false when value is evidence and stays as it is. st is a token state the
// caller holds for many values, or nil.
func (r *Redactor) repl(value string, n uint8, st *tokenState) (string, bool) {
	if r.tok == nil {
		if r.keep != nil {
			var b [64]byte
			if _, ok := r.keep[evidenceKey(b[:0], n, value)]; ok {
				return "", false
			}
		}
		return placeholders[n], true
	}
	if st == nil {
		st = r.tok.get()
		defer r.tok.put(st)
	}
	var memo *memoEntry
	if st.memoOn {
		memo = &st.memo[maphash.String(st.seed, value)%uint64(len(st.memo))]
		if memo.token != "" && memo.n == n && memo.value == value {
			return memo.token, true
		}
	}
	name := string(allTypes[n])
	st.input(n, name, value)
	if r.keep != nil {
		// the evidence key is n || normalised value: the input with n in place of its 0x00
		k := len(name)
		st.buf[k] = n
		_, keep := r.keep[string(st.buf[k:])]
		st.buf[k] = 0
		if keep {
			return "", false
		}
	}
	tok := st.token(name)
	if memo != nil {
		*memo = memoEntry{value: value, token: tok, n: n}
	}
	return tok, true
}

// IsToken reports whether s is a placeholder or a keyed token as a Redactor
// writes them.
func IsToken(s string) bool {
	if !strings.HasPrefix(s, phPrefix) || !strings.HasSuffix(s, "]") || len(s) <= len(phPrefix)+1 {
		return false
	}
	for i := len(phPrefix); i < len(s)-1; i++ {
		if !phChar(s[i]) {
			return false
		}
	}
	return true
}

// phChar reports whether c may appear between "[REDACTED_" and "]": the type
// in upper case, and the tag of a keyed token in lower case.
func phChar(c byte) bool { return isAlnum(c) || c == '_' }
