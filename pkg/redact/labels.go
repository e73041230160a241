package redact

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// # Structured data judged with its labels
//
// In text a value's key decides as much as its shape: "password": "Tr0mbone!77" is a
// secret, "phone": 2025550143 a phone number. A walk over decoded JSON (tool results,
// function-call arguments) sees the value alone, so a value under a labelling key is judged
// as the same bytes written as text would be: the key and the value are put together as
// JSON writes them ("key": "value", "key": 123) and scanned as one text, and what the scan
// replaces inside the value is replaced in the value. The same for a "value" beside a "name"
// or "key" that labels it ({"name": "DB_PASSWORD", "value": "…"}, the environment lists of
// ECS task definitions and Kubernetes pod specs). A number so judged that changes becomes
// the text of its replacement.

// personalWords are the key words that label personal data held as numbers or bare digits.
var personalWords = map[string]bool{"phone": true, "tel": true, "telephone": true, "mobile": true, "cell": true,
	"cellphone": true, "fax": true, "msisdn": true, "ssn": true, "social": true, "card": true, "cc": true, "pan": true,
	"creditcard": true, "cardnumber": true, "ccnumber": true, "mynumber": true, "phonenumber": true, "telno": true,
	"contact": true, "sms": true, "whatsapp": true}

// labels reports whether key labels its value: a key that names a secret, a key or a token,
// or personal data.
func labels(key string) bool {
	if key == "" || len(key) > 96 {
		return false
	}
	if ki := classifyKey(key); ki.cls != keyNone || ki.accessKeyID || ki.api || ki.sumo || ki.facebook || ki.cloudant {
		return true
	}
	it := wordIter{key: key}
	for {
		w, ok := it.next()
		if !ok {
			break
		}
		if personalWords[string(w)] {
			return true
		}
	}
	return strings.Contains(key, "電話") || strings.Contains(key, "携帯") || strings.Contains(key, "マイナンバー") ||
		strings.Contains(key, "個人番号")
}

// labelled reports whether the walk judges key's value with its label (cached per key).
func (w *walker) labelled(key string) bool {
	if key == "" {
		return false
	}
	if len(key) > 64 {
		return labels(key)
	}
	slot := int((uint(len(key))*131 + uint(key[0])*31 + uint(key[len(key)/2])*7 + uint(key[len(key)-1])) & 63)
	if e := &w.labels[slot]; e.key == key {
		return e.on
	}
	on := labels(key)
	w.labels[slot] = labelEntry{key: key, on: on}
	return on
}

type labelEntry struct {
	key string
	on  bool
}

// valueName returns the name a map's "value" field is labelled by: the string of its "name"
// or "key" field (also capitalised) when that labels, else "".
func (w *walker) valueName(m map[string]any) string {
	if len(m) < 2 || len(m) > 8 {
		return ""
	}
	_, v1 := m["value"]
	_, v2 := m["Value"]
	if !v1 && !v2 {
		return ""
	}
	for _, k := range [...]string{"name", "Name", "key", "Key"} {
		if n, ok := m[k].(string); ok && w.labelled(n) {
			return n
		}
	}
	return ""
}

// judged redacts v, the value of key (or, with name set, the "value" beside a "name": name),
// as the same bytes written as JSON text: strings and integers; other values are walked as
// they are. It returns a replacement and true when v changes.
func (w *walker) judged(key, name string, v any, depth int) (any, bool) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil, false
		}
		if out, changed := w.judgeText(key, name, x, true); changed {
			return out, true
		}
		return nil, false
	case float64:
		if x != math.Trunc(x) || math.Abs(x) >= 1e21 {
			return nil, false
		}
		return w.judgeNumber(key, name, strconv.FormatFloat(x, 'f', -1, 64))
	case int:
		return w.judgeNumber(key, name, strconv.Itoa(x))
	case int64:
		return w.judgeNumber(key, name, strconv.FormatInt(x, 10))
	case uint64:
		return w.judgeNumber(key, name, strconv.FormatUint(x, 10))
	case json.Number:
		return w.judgeNumber(key, name, string(x))
	}
	return w.walkValue(v, depth+1)
}

func (w *walker) judgeNumber(key, name, digits string) (any, bool) {
	if out, changed := w.judgeText(key, name, digits, false); changed {
		return out, true
	}
	return nil, false
}

// judgeText redacts val as it would be redacted written after its label: "key": "val"
// (quoted) or "key": val, or "name": "NAME", "value": "val". A value JSON would escape, or
// a match that runs across the value's edge, is judged by the value's key rule alone (the
// whole value replaced when the rule takes it as a credential), after the value's own scan.
func (w *walker) judgeText(key, name, val string, quoted bool) (string, bool) {
	label := key
	if name != "" {
		label = name
	}
	if w.visit != nil {
		w.visit(val) // judged with its label below whatever the caller makes of it
	}
	if !plainJSON(label) || !plainJSON(val) {
		return w.judgeByRule(label, val, quoted)
	}
	var b strings.Builder
	b.Grow(len(label) + len(val) + 24)
	if name != "" {
		b.WriteString(`"name": "`)
		b.WriteString(name)
		b.WriteString(`", "value": `)
	} else {
		b.WriteByte('"')
		b.WriteString(key)
		b.WriteString(`": `)
	}
	if quoted {
		b.WriteByte('"')
	}
	vs := b.Len()
	b.WriteString(val)
	ve := b.Len()
	if quoted {
		b.WriteByte('"')
	}
	s := b.String()
	ms := w.sc.find(s)
	if len(w.r.known) > 0 {
		ms = w.r.withKnown(s, ms)
	}
	var inside []match
	for _, m := range ms {
		if m.typ == tKeep || m.typ == tProbe || !w.r.on[m.typ] || m.end <= vs || m.start >= ve {
			continue
		}
		if m.start < vs || m.end > ve {
			return w.judgeByRule(label, val, quoted)
		}
		inside = append(inside, match{start: m.start - vs, end: m.end - vs, typ: m.typ, prio: m.prio})
	}
	if len(inside) == 0 {
		return val, false
	}
	if w.found != nil {
		for _, m := range inside {
			w.found(Finding{Type: allTypes[m.typ], Value: val[m.start:m.end]})
		}
		return val, false
	}
	reps := w.r.replacements(w.st, val, inside, w.counts)
	if len(reps) == 0 {
		return val, false
	}
	w.edits++
	return applyReplacements(val, 0, len(val), reps), true
}

// judgeByRule is judgeText for a value that cannot be written plainly after its label: the
// value's own scan, and the whole value replaced when its key's rule takes it as a credential.
func (w *walker) judgeByRule(label, val string, quoted bool) (string, bool) {
	if typ, ok := valueType(classifyKey(label), label, val, quoted); ok && w.r.on[typ] {
		if w.found != nil {
			w.found(Finding{Type: allTypes[typ], Value: val})
			return val, false
		}
		if rep, ok := w.r.repl(val, typ, w.st); ok {
			if w.counts != nil {
				w.counts[allTypes[typ]]++
			}
			w.edits++
			return rep, true
		}
	}
	return w.str(val)
}

// plainJSON reports whether JSON writes s as it is between quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
