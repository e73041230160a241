package redact

import (
	"strings"
)

// Japanese keywords (パスワード, 暗証番号, ...) followed by their value.

// cjkKeywords are matched at their first byte while scanWords walks the
// non-ASCII text; prefix, when set, must precede the needle (case-insensitive).
var cjkKeywords = []struct {
	needle, prefix string
	typ            uint8
}{
	{"パスワード", "", tSecret},
	{"パスフレーズ", "", tSecret},
	{"暗証番号", "", tSecret},
	{"シークレット", "", tSecret},
	{"キー", "api", tAPIKey},
	{"アクセスキー", "", tAPIKey},
	{"トークン", "", tAPIKey},
	{"ña", "contrase", tSecret},
	{"ÑA", "contrase", tSecret},
}

// cjkKeywordAt handles "パスワード: hunter2", "パスワードはhunter2です" with the
// keyword at i: the value is the ASCII run (or quoted string) after the
// keyword and an optional separator. It returns where scanning continues,
// or -1 when there is no keyword at i.
func (sc *scanner) cjkKeywordAt(s string, i int) int {
	n := len(s)
	if i+2 >= n {
		return -1
	}
	// quick filter on the first character: パ シ キ ア ト (E3 8x xx), 暗 (E6 9A 97), ñ Ñ (C3 B1, C3 91)
	switch uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2]) {
	case 0xE38391, 0xE382B7, 0xE382AD, 0xE382A2, 0xE38388, 0xE69A97:
	default:
		if s[i] != 0xC3 || (s[i+1] != 0xB1 && s[i+1] != 0x91) {
			return -1
		}
	}
	for _, kw := range cjkKeywords {
		if s[i] != kw.needle[0] || !strings.HasPrefix(s[i:], kw.needle) {
			continue
		}
		if kw.prefix != "" {
			a := i - len(kw.prefix)
			if a < 0 || !hasPrefixFold(s[a:], kw.prefix) {
				continue
			}
		}
		from := i + len(kw.needle)
		p := from
		for p < n && p-from < 8 {
			switch {
			case s[p] == ' ' || s[p] == ':' || s[p] == '=' || s[p] == '\t':
				p++
				continue
			case strings.HasPrefix(s[p:], "は"), strings.HasPrefix(s[p:], "「"), strings.HasPrefix(s[p:], "："):
				p += 3
				continue
			}
			break
		}
		vs, e, quoted, ok := parseValue(s, p, false, false)
		if !ok {
			return from
		}
		if !quoted {
			e = trimUnbalanced(s, vs, e)
		}
		val := s[vs:e]
		if len(val) < 4 || placeholderValue(val) || strings.Contains(val, "://") {
			return from
		}
		if kw.typ == tAPIKey && !(mixedClasses(val, 2) && len(val) >= 8) {
			return from
		}
		sc.add(vs, e, kw.typ, prioAssign)
		return from
	}
	return -1
}
