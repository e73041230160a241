package redact

// Some vendors' secrets have no prefix of their own, only a length and an alphabet, and are
// known by the vendor's name in their key: an Asana client secret is 32 letters and digits
// under a key that says "asana". Under a token or key word such a value would be typed an API
// key; the vendor's own documentation (and gitleaks' rules, which the development corpus
// takes its samples from) calls it a secret. A vendor whose token and secret share one shape
// (Bittrex's keys, Zendesk's 40-character API tokens) is left to the key word.

type vendorSecret struct {
	word string   // the vendor's name as keys write it (lower case)
	set  *charset // the secret's alphabet
	n    int      // its length
	uuid bool     // a UUID layout instead
}

var vendorSecrets = []vendorSecret{
	{word: "alibaba", set: setAN, n: 30},
	{word: "asana", set: setAN, n: 32},
	{word: "bitbucket", set: setATL, n: 64},
	{word: "confluent", set: setAN, n: 64},
	{word: "discord", set: setATL, n: 32},
	{word: "finicity", set: setAN, n: 20},
	{word: "kucoin", uuid: true},
	{word: "linear", set: setHexL, n: 32},
	{word: "linkedin", set: setAN, n: 16},
	{word: "linked_in", set: setAN, n: 16},
	{word: "linked-in", set: setAN, n: 16},
	{word: "looker", set: setAN, n: 24},
	{word: "plaid", set: setAN, n: 30},
	{word: "twitter", set: setAN, n: 45},
	{word: "twitter", set: setAN, n: 50},
}

// apiKeyType is the type of a value an API-key word names: a secret when it has the shape
// of the secret of a vendor the key names ("asanaToken = <an Asana client secret>").
func apiKeyType(key, val string) uint8 {
	if vendorSecretValue(key, val) {
		return tSecret
	}
	return tAPIKey
}

// vendorSecretValue reports whether val, under key, has the shape of the secret of a vendor
// the key names.
func vendorSecretValue(key, val string) bool {
	if len(val) < 16 || len(val) > 64 {
		return false
	}
	for i := range vendorSecrets {
		v := &vendorSecrets[i]
		if !containsFold(key, v.word) {
			continue
		}
		if v.uuid {
			if uuidLayout(val) && inSet(val, setHexLD) {
				return true
			}
			continue
		}
		if len(val) == v.n && inSet(val, v.set) {
			return true
		}
	}
	return false
}

func inSet(s string, cs *charset) bool {
	for i := 0; i < len(s); i++ {
		if !cs[s[i]] {
			return false
		}
	}
	return true
}
