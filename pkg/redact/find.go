package redact

import "net/netip"

// Finding is a value redaction would replace: its type and the text as written.
type Finding struct {
	Type  Type
	Value string
}

// Find returns the values of s that String would replace (of the enabled types, the
// redactor's known values included), in order; nil when there are none. It replaces nothing:
// a caller that judges values itself (an address by its range, say) reads them here.
func (r *Redactor) Find(s string) []Finding {
	if !r.Enabled() || len(s) == 0 {
		return nil
	}
	sc := getScanner()
	defer putScanner(sc)
	ms := sc.find(s)
	if len(r.known) > 0 {
		ms = r.withKnown(s, ms)
	}
	var out []Finding
	for _, m := range ms {
		if m.typ == tKeep || int(m.typ) >= numTypes || !r.on[m.typ] {
			continue
		}
		out = append(out, Finding{Type: allTypes[m.typ], Value: s[m.start:m.end]})
	}
	return out
}

// ParseIP reads an address as the redactor finds it (IPv4 dotted decimal, leading zeros
// included; IPv6 in any of its forms, with a zone; fullwidth digits and dots), the way keyed
// tokens normalise it: IPv4-mapped IPv6 addresses are unmapped, zones dropped.
func ParseIP(value string) (netip.Addr, bool) {
	// Most addresses are plain ASCII without leading zeros, which netip reads as they are.
	if a, err := netip.ParseAddr(value); err == nil {
		return a.Unmap().WithZone(""), true
	}
	s := value
	if needsNormalize(value) {
		s = string(appendFolded(nil, value))
	}
	if validIPv4(s) {
		var out [4]byte
		part, n := 0, 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == '.' {
				if n > 255 || part > 3 {
					return netip.Addr{}, false
				}
				out[part] = byte(n)
				part, n = part+1, 0
				continue
			}
			n = n*10 + int(s[i]-'0')
		}
		return netip.AddrFrom4(out), part == 4
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
