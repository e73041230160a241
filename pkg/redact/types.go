package redact

import (
	"fmt"
	"strings"

	"github.com/m-mizutani/goerr/v2"
)

// Type is a category of sensitive value. Its string form is the name used in
// placeholders: a value of type T is replaced by "[REDACTED_T]".
type Type string

// The redaction types.
const (
	Email      Type = "EMAIL"
	Phone      Type = "PHONE"
	CreditCard Type = "CC"
	SSN        Type = "SSN"
	IP         Type = "IP"
	APIKey     Type = "API_KEY"
	Secret     Type = "SECRET"
	// MyNumber is the Japanese Individual Number (マイナンバー): 12 digits
	// whose last is a check digit.
	MyNumber Type = "MY_NUMBER"
)

// allTypes is indexed by the internal type number (see typeNum).
var allTypes = [...]Type{Email, Phone, CreditCard, SSN, IP, APIKey, Secret, MyNumber}

const numTypes = len(allTypes)

// internal type numbers, same order as allTypes
const (
	tEmail uint8 = iota
	tPhone
	tCC
	tSSN
	tIP
	tAPIKey
	tSecret
	tMyNumber
	tKeep  uint8 = 255 // an existing placeholder: never replaced, blocks overlapping matches
	tProbe uint8 = 254 // a rejected candidate: never replaced, triggers a rescan when it loses text
)

var placeholders = func() [numTypes]string {
	var p [numTypes]string
	for i, t := range allTypes {
		p[i] = "[REDACTED_" + string(t) + "]"
	}
	return p
}()

// Placeholder returns the text that replaces a value of type t.
func Placeholder(t Type) string { return "[REDACTED_" + string(t) + "]" }

// AllTypes returns every redaction type, in a fixed order.
func AllTypes() []Type {
	out := make([]Type, numTypes)
	copy(out, allTypes[:])
	return out
}

func typeNum(t Type) (uint8, bool) {
	for i, x := range allTypes {
		if x == t {
			return uint8(i), true
		}
	}
	return 0, false
}

// typeAliases maps lower-case names accepted by ParseTypes to types.
var typeAliases = map[string]Type{
	"email":       Email,
	"mail":        Email,
	"phone":       Phone,
	"tel":         Phone,
	"cc":          CreditCard,
	"card":        CreditCard,
	"credit_card": CreditCard,
	"creditcard":  CreditCard,
	"credit-card": CreditCard,
	"ssn":         SSN,
	"ip":          IP,
	"api_key":     APIKey,
	"apikey":      APIKey,
	"api-key":     APIKey,
	"secret":      Secret,
	"password":    Secret,
	"my_number":   MyNumber,
	"mynumber":    MyNumber,
	"my-number":   MyNumber,
}

// ParseTypes parses a comma-separated list of type names such as
// "email,ip,api_key" (case-insensitive, surrounding spaces ignored). The names
// are the placeholder names (EMAIL, PHONE, CC, SSN, IP, API_KEY, SECRET,
// MY_NUMBER) and a
// few aliases (credit_card, apikey, ...). "all" selects every type; "none"
// turns redaction off and returns an empty, non-nil slice. Duplicates are
// removed; the result follows the order of AllTypes. An unknown or empty name,
// or "none" combined with other names, is an error naming the bad value.
func ParseTypes(s string) ([]Type, error) {
	var sel [numTypes]bool
	sawNone, sawOther := false, false
	for _, raw := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(raw))
		switch name {
		case "":
			return nil, goerr.New(fmt.Sprintf("empty redaction type name in %q", s), goerr.V("list", s))
		case "all":
			sawOther = true
			for i := range sel {
				sel[i] = true
			}
			continue
		case "none":
			sawNone = true
			continue
		}
		t, ok := typeAliases[name]
		if !ok {
			bad := strings.TrimSpace(raw)
			return nil, goerr.New(fmt.Sprintf("unknown redaction type %q (want a comma-separated list of email, phone, cc, ssn, ip, api_key, secret, my_number, or all or none)", bad), goerr.V("type", bad))
		}
		n, _ := typeNum(t)
		sel[n] = true
		sawOther = true
	}
	if sawNone && sawOther {
		return nil, goerr.New(fmt.Sprintf(`redaction type "none" cannot be combined with other types in %q`, s), goerr.V("list", s))
	}
	out := make([]Type, 0, numTypes)
	for i, on := range sel {
		if on {
			out = append(out, allTypes[i])
		}
	}
	return out, nil
}

// Counts holds how many values of each type were replaced. It never holds the
// values themselves.
type Counts map[Type]int

// Add adds o into c. c must be non-nil when o has entries.
func (c Counts) Add(o Counts) {
	for t, n := range o {
		c[t] += n
	}
}

// Total returns the number of replaced values over all types.
func (c Counts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}
