package redact

import "bytes"

// Key words: a key is split into words (snake_case, kebab-case, dotted and camelCase) and
// classified by what its words name: a password or secret, a key or a token, or metadata.

const (
	keyNone uint8 = iota
	keyAPI
	keySecret
)

var (
	secretWords = []string{"password", "passwd", "pass", "pwd", "pw", "passphrase", "passcode", "secret", "secrets",
		"private", "privatekey", "priv", "clientsecret", "secretkey", "credential", "credentials", "creds", "cred",
		"pswd", "psw", "contrasena", "passwort", "motdepasse", "secrete",
		"requirepass", "masterauth", // redis.conf
		"contribsys"} // Sidekiq Enterprise credentials: BUNDLE_ENTERPRISE__CONTRIBSYS__COM=user:pass
	secretSuffixes = []string{"password", "passwd", "pwd", "secret", "passphrase"}
	// weak API words count only at the end of the key (key_down_event is not a key)
	weakAPIWords = []string{"key", "auth", "authorization", "bearer", "webhook", "pat"} // pat: a personal access token
	apiWords     = []string{"token", "apikey", "authtoken", "accesstoken", "accesskey", "apitoken", "sessiontoken",
		"authkey", "privkey", "secretkey"}
	apiSuffixes = []string{"token", "apikey", "accesskey", "authkey"}
	// words that may follow the key word of an API key name: api_key_prod, slack_token_value
	allowedTail = []string{"value", "val", "string", "str", "data", "b64", "base64", "hex", "raw", "enc", "encoded",
		"encrypted", "secure", "prod", "production", "dev", "development", "staging", "stage", "test", "testing", "live",
		"sandbox", "new", "old", "main", "default", "local", "backup", "temp", "tmp", "current", "v"}
	stopTail = []string{"id", "ids", "name", "names", "length", "len", "size", "type", "types", "file", "filename", "files",
		"path", "paths", "dir", "url", "uri", "endpoint", "host", "chars", "charset", "count", "format", "field", "fields",
		"label", "env", "var", "version", "prefix", "suffix", "pattern", "regex", "policy", "mode", "store", "vault",
		"manager", "provider", "ref", "arn", "location", "expiry", "expires", "expiration", "ttl", "timeout", "required",
		"enabled", "disabled", "hint", "rotation", "algorithm", "alg", "method", "scope", "scopes", "option", "options",
		"bytes", "bits", "index", "idx", "column", "header", "headers", "param", "params", "list", "set", "kind", "hash",
		"fingerprint", "digest", "sha", "md5", "checksum", "usage", "used", "limit", "max", "min", "input", "output",
		"num", "number", "status", "state", "reset", "strength", "rule", "rules", "check", "valid", "validation",
		"updated", "created", "changed", "age", "last", "placeholder", "prompt", "text", "desc", "description", "title",
		"button", "form", "class", "style", "template", "example", "sample", "source", "variable", "variables", "event",
		"events", "selector", "pair", "policy", "info", "details", "meta", "metadata", "config", "settings", "lifetime",
		"duration", "at", "date", "time", "timestamp", "user", "username", "login", "email", "holder", "owner", "issuer",
		"audience", "endpoint", "server", "service", "region", "ns", "namespace"}
	stopAny = []string{"public", "pub", "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup",
		"next", "page", "continuation", "pagination", "cursor", "max", "min", "total", "prompt", "completion", "input",
		"output", "sync", "hotkey", "shortcut", "keyboard", "keys", "bucket", "object", "routing", "lookup", "map", "dict",
		"table", "column", "row", "attr", "attribute", "property", "tag", "schema", "sequence", "group", "csrf", "xsrf",
		"vault", "store", "keystore", "truststore", "forgot", "reset", "policy", "expiry", "length", "placeholder",
		"authenticity", // Rails' authenticity_token: a per-form CSRF token
		"label", "hint", "show", "hide", "toggle", "remember"}
)

// Word flags, looked up once per key word in wordFlags.
const (
	wSecret uint16 = 1 << iota
	wAPI
	wWeakAPI
	wAllowedTail
	wStopTail
	wStopAny
	wLookupVerb
	wTypeWord
	wStopValue
)

var wordFlags = func() map[string]uint16 {
	m := map[string]uint16{}
	for _, l := range []struct {
		words []string
		f     uint16
	}{
		{secretWords, wSecret}, {apiWords, wAPI}, {weakAPIWords, wWeakAPI}, {allowedTail, wAllowedTail},
		{stopTail, wStopTail}, {stopAny, wStopAny}, {lookupVerbs, wLookupVerb}, {typeWords, wTypeWord},
		{stopValues, wStopValue},
	} {
		for _, w := range l.words {
			m[w] |= l.f
		}
	}
	return m
}()

// lookupWord returns the flags of a lower-case word (no allocation).
func lookupWord(w []byte) uint16 { return wordFlags[string(w)] }

func hasSuffixIn(w []byte, list []string) bool {
	for _, x := range list {
		if len(w) > len(x) && string(w[len(w)-len(x):]) == x {
			return true
		}
	}
	return false
}

// wordIter splits a key into lower-case words (digits and punctuation
// separate words and are dropped; camelCase and ACRONYMWord boundaries split).
// The returned word is only valid until the next call.
type wordIter struct {
	key string
	i   int
	buf [40]byte
}

func (it *wordIter) next() ([]byte, bool) {
	key := it.key
	n := 0
	for it.i < len(key) {
		i := it.i
		c := key[i]
		f := ctab[c]
		if f&(cUpper|cLower) == 0 {
			it.i++
			if n > 0 {
				return it.buf[:n], true
			}
			continue
		}
		if f&cUpper != 0 && n > 0 {
			prevLower := ctab[key[i-1]]&cLower != 0
			nextLower := i+1 < len(key) && ctab[key[i+1]]&cLower != 0
			prevUpper := ctab[key[i-1]]&cUpper != 0
			if prevLower || (prevUpper && nextLower) {
				return it.buf[:n], true
			}
		}
		if n < len(it.buf) {
			it.buf[n] = lower(c)
			n++
		}
		it.i++
	}
	return it.buf[:n], n > 0
}

// keyInfo is what an assignment key says about its value.
type keyInfo struct {
	cls                      uint8 // keyNone, keyAPI, keySecret
	sumo, facebook, cloudant bool  // vendor names with key-dependent value rules
	lookup                   bool  // first word is a lookup verb: get_secret(...)
	accessKeyID              bool  // access_key_id, AccessKeyId: a cloud access key ID
	api                      bool  // a word "api" (apiMetrics, stripe_api): only strong tokens count
}

func hasPrefixB(w []byte, p string) bool { return len(w) >= len(p) && string(w[:len(p)]) == p }

// classifyKey classifies an assignment key. A password or secret word
// anywhere makes it a secret; a key or token word makes it an API key, the
// generic words (key, auth) only when they end the name or are followed by
// words such as "value" or "prod": key_down_event is not an API key.
func classifyKey(key string) keyInfo {
	if len(key) > 96 {
		key = key[len(key)-96:]
	}
	st := keyState{first: true}
	it := wordIter{key: key}
	for !st.stop {
		w, ok := it.next()
		if !ok {
			break
		}
		st.word(w)
	}
	return st.info()
}

// keyState is what classifyKey has read of a key, word by word.
type keyState struct {
	ki                                     keyInfo
	secret, account, stop, strong, apiTail bool
	tokenTail                              bool // the API word that ends the key names a token
	prevAPI, sonar, first                  bool
	lastFlags                              uint16
	w1, w2, last                           [12]byte // the two words before the current one, and the current one (truncated)
	n1, n2, nLast                          int
}

// word reads the next word of the key.
func (st *keyState) word(w []byte) {
	f := lookupWord(w)
	st.lastFlags = f
	if st.first {
		st.first = false
		st.ki.lookup = f&wLookupVerb != 0
	}
	st.vendorWord(w)
	st.nLast = copy(st.last[:], w)
	st.classWord(w, f)
	st.prevAPI = string(w) == "api"
	if st.prevAPI {
		st.ki.api = true
	}
	if string(w) == "id" && ((string(st.w1[:st.n1]) == "key" && string(st.w2[:st.n2]) == "access") || string(st.w1[:st.n1]) == "accesskey") ||
		string(w) == "accesskeyid" {
		st.ki.accessKeyID = true
	}
	st.n2 = copy(st.w2[:], st.w1[:st.n1])
	st.n1 = copy(st.w1[:], w)
}

// vendorWord notes the vendor names whose values have rules of their own.
func (st *keyState) vendorWord(w []byte) {
	switch {
	case hasPrefixB(w, "sumo"):
		st.ki.sumo = true
	case hasPrefixB(w, "facebook"):
		st.ki.facebook = true
	case hasPrefixB(w, "cloudant"):
		st.ki.cloudant = true
	case string(w) == "sonar":
		st.sonar = true
	}
}

// classWord notes what the word says of the value: a stop word, a secret
// word, an account word, an API word, or a word that may follow one
// ("api_key_value").
func (st *keyState) classWord(w []byte, f uint16) {
	switch {
	case f&wStopAny != 0:
		st.stop = true
	case f&wSecret != 0 || hasSuffixIn(w, secretSuffixes):
		st.secret = true
		st.apiTail = false
	case string(w) == "account" || string(w) == "storage" || string(w) == "shared":
		st.account = true
	case string(w) == "accountkey" || string(w) == "storagekey":
		st.account = true
		st.apiTail = true
		st.tokenTail = false
	case f&wAPI != 0 || hasSuffixIn(w, apiSuffixes) || (st.prevAPI && (string(w) == "key" || string(w) == "token")):
		st.strong = true
		st.apiTail = true
		st.tokenTail = bytes.Contains(w, []byte("token"))
	case f&wWeakAPI != 0:
		st.apiTail = true
		st.tokenTail = false
	case st.apiTail && f&wAllowedTail != 0:
	default:
		st.apiTail = false
	}
}

// info decides the key's class from its words.
func (st *keyState) info() keyInfo {
	ki := st.ki
	switch {
	case st.sonar && string(st.last[:st.nLast]) == "login":
		ki.cls = keyAPI // sonar.login holds a SonarQube token, not a user name
	case st.stop || st.lastFlags&wStopTail != 0:
		ki.cls = keyNone
		ki.api = false
	case st.secret:
		ki.cls = keySecret
	case st.account && st.apiTail && !st.tokenTail:
		// an account's or storage's shared key is a secret; a token
		// (AZURE_STORAGE_SAS_TOKEN) is what a key signs
		ki.cls = keySecret
	case st.apiTail || st.strong:
		ki.cls = keyAPI
	}
	return ki
}

// keyInfoMemo remembers classifyKey for the keys (at most 32 bytes) seen
// last: JSON documents and configuration files repeat their keys, and
// classifying one splits it into words and looks each up. A key's slot is
// chosen by a hash of its bytes; a new key takes the slot over.
type keyInfoMemo struct {
	key  [1024][32]byte
	n    [1024]uint8 // the key's length + 1; 0 for an empty slot
	info [1024]keyInfo
}

func (m *keyInfoMemo) classify(key string) keyInfo {
	if len(key) > len(m.key[0]) || len(key) < 2 {
		return classifyKey(key)
	}
	h := uint(len(key))
	for k := 0; k < len(key); k++ {
		h = h*31 + uint(key[k])
	}
	h = (h ^ h>>10) & 1023
	if int(m.n[h]) == len(key)+1 && string(m.key[h][:len(key)]) == key {
		return m.info[h]
	}
	ki := classifyKey(key)
	copy(m.key[h][:], key)
	m.n[h] = uint8(len(key) + 1)
	m.info[h] = ki
	return ki
}
