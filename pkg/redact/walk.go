package redact

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// MaxDepth bounds the walk into nested function arguments and responses: a container (an
// object, an array, a typed struct, slice, map or pointer) nested deeper than MaxDepth levels
// is replaced by TooDeep (a typed one that cannot hold a string by its zero value), never
// written as it came.
const MaxDepth = 64

// TooDeep stands where a value nested deeper than MaxDepth was. It reads as a placeholder, so
// redacting again keeps it.
const TooDeep = "[REDACTED_TOO_DEEP]"

// Map redacts, in place, everything inside m at any depth:
//
//   - strings in maps, slices and typed values (exported struct fields, pointers, typed maps
//     and slices, reached by reflection);
//   - map keys (of map[string]any, map[string]string and typed maps with string keys): a key
//     that redaction changes is renamed. When a renamed key meets a key already there (two
//     addresses written alike, or a key that was the placeholder all along), nothing is
//     dropped: keys left as they were keep their name, and the renamed ones take theirs in the
//     order of their original text, the first free of "NEW", "NEW#2", "NEW#3", ...;
//   - integers large enough to be card numbers (numbers of 12 digits and more, float64 as
//     encoding/json decodes them, Go integers, json.Number), replaced by the placeholder text
//     when redaction changes how JSON writes them;
//   - a value under a key that labels it (a secret, a key or a token, personal data), and the
//     "value" beside a "name" or "key" that does, judged as the same bytes written as
//     "key": value in text would be, numbers as their digits (labels.go);
//   - the cells of a table, {"columns": [names], "rows": [[cells]]} (a SQL tool's result),
//     each judged with its column as its key, as the same record written as an object is.
//
// Containers nested deeper than MaxDepth are replaced by TooDeep. A disabled Redactor leaves
// m as it is. Counts of replacements are added to counts (which may be nil).
func (r *Redactor) Map(m map[string]any, counts Counts) {
	if !r.Enabled() || m == nil {
		return
	}
	w := walker{r: r, counts: counts, sc: getScanner()}
	defer putScanner(w.sc)
	if r.tok != nil {
		w.st = r.tok.getMemo()
		defer r.tok.put(w.st)
	}
	w.walkMap(m, 0)
}

// FindMap reports, without changing m, every value that Map would replace in it: the same
// walk, labels and numbers included, each value reported to found as written (a container
// nested deeper than MaxDepth as a Finding with an empty Type and the value TooDeep). Map keys
// are walked in sorted order, so the reports do not depend on map order. visit, when set, is
// given each string first (map keys and values, labelled ones too); for a string not under a
// label, true means the caller has judged it and it is not scanned. A caller that must hold at
// least what redaction would replace (the egress guard of a public-only MCP server) judges
// with this walk rather than a walk of its own.
func (r *Redactor) FindMap(m map[string]any, visit func(string) bool, found func(Finding)) {
	if !r.Enabled() || m == nil || found == nil {
		return
	}
	w := walker{r: r, sc: getScanner(), found: found, visit: visit}
	defer putScanner(w.sc)
	w.walkMap(m, 0)
}

// walker is the state of one walk.
type walker struct {
	r      *Redactor
	counts Counts
	// found, when set, makes the walk one that reports (FindMap): every replacement is
	// reported instead of made, and nothing is changed. visit is FindMap's.
	found func(Finding)
	visit func(string) bool
	// one scanner and one token state serve every string of the walk
	sc *scanner
	st *tokenState
	// edits counts every change, too-deep replacements included (which counts does not), to
	// tell whether a copied struct must be stored back
	edits int
	// plain holds keys seen that redaction leaves as they are, by a small hash of the key: a
	// result repeats the same few keys in every record, and a hit saves a scan
	plain [64]string
	// labels caches, by the same hash, whether a key labels its value (labels.go)
	labels [64]labelEntry
}

// rename is a map key that redaction changes.
type rename struct{ from, to string }

func (w *walker) str(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	if w.found != nil {
		if w.visit == nil || !w.visit(s) {
			w.report(s)
		}
		return s, false
	}
	out, changed := w.r.redactWith(w.sc, w.st, s, w.counts)
	if changed {
		w.edits++
	}
	return out, changed
}

// report is FindMap's str: what String would replace in s, reported.
func (w *walker) report(s string) {
	ms := w.sc.find(s)
	if len(w.r.known) > 0 {
		ms = w.r.withKnown(s, ms)
	}
	for _, m := range ms {
		if m.typ != tKeep && int(m.typ) < numTypes && w.r.on[m.typ] {
			w.found(Finding{Type: allTypes[m.typ], Value: s[m.start:m.end]})
		}
	}
}

// key returns k redacted, and whether that changed it.
func (w *walker) key(k string) (string, bool) {
	if k == "" {
		return k, false
	}
	slot := -1
	if len(k) <= 64 {
		slot = int((uint(len(k))*131 + uint(k[0])*31 + uint(k[len(k)/2])*7 + uint(k[len(k)-1])) & 63)
		if w.plain[slot] == k {
			return k, false
		}
	}
	out, changed := w.str(k)
	if !changed && slot >= 0 {
		w.plain[slot] = k
	}
	return out, changed
}

// number redacts an integer that may be a card number, as JSON writes it: the placeholder
// text when redaction changes it.
func (w *walker) number(f float64) (any, bool) {
	if f > -1e11 && f < 1e11 || math.Abs(f) >= 1e21 || f != math.Trunc(f) {
		return nil, false // too short to be anything redacted, or not written as digits alone
	}
	var b [32]byte
	if out, changed := w.str(string(strconv.AppendFloat(b[:0], f, 'f', -1, 64))); changed {
		return out, true
	}
	return nil, false
}

func (w *walker) integer(i int64) (any, bool) {
	if i > -1e11 && i < 1e11 {
		return nil, false
	}
	var b [24]byte
	if out, changed := w.str(string(strconv.AppendInt(b[:0], i, 10))); changed {
		return out, true
	}
	return nil, false
}

func (w *walker) unsigned(u uint64) (any, bool) {
	if u < 1e11 {
		return nil, false
	}
	var b [24]byte
	if out, changed := w.str(string(strconv.AppendUint(b[:0], u, 10))); changed {
		return out, true
	}
	return nil, false
}

func (w *walker) walkMap(m map[string]any, depth int) {
	var renames []rename
	name := w.valueName(m)
	cols := tableColumns(m)
	if w.found != nil {
		// a report is read by people: in the same order whatever the map's
		for _, k := range sortedKeys(m) {
			w.key(k) // a key before its value, as they are read
			w.walkEntry(m, k, name, cols, depth)
		}
		return
	}
	for k, v := range m {
		var nv any
		var ok bool
		switch {
		case cols != nil && k == "rows":
			w.walkRows(cols, v.([]any), depth+1)
		case name != "" && (k == "value" || k == "Value"):
			nv, ok = w.judged(k, name, v, depth)
		case w.labelled(k):
			nv, ok = w.judged(k, "", v, depth)
		default:
			nv, ok = w.walkValue(v, depth+1)
		}
		if ok {
			m[k] = nv
		}
		if nk, changed := w.key(k); changed {
			if renames == nil {
				renames = make([]rename, 0, len(m))
			}
			renames = append(renames, rename{k, nk})
		}
	}
	if len(renames) > 0 {
		rekey(m, renames)
	}
}

// walkEntry is walkMap's judgement of one entry, for FindMap (which changes nothing).
func (w *walker) walkEntry(m map[string]any, k, name string, cols []string, depth int) {
	switch v := m[k]; {
	case cols != nil && k == "rows":
		w.walkRows(cols, v.([]any), depth+1)
	case name != "" && (k == "value" || k == "Value"):
		w.judged(k, name, v, depth)
	case w.labelled(k):
		w.judged(k, "", v, depth)
	default:
		w.walkValue(v, depth+1)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// tableColumns returns the column names of a result shaped as a table, {"columns": [names],
// "rows": [[cells]]} (query_evidence's), else nil: its cells are judged with their column as
// their key, as the same record written as an object would be.
func tableColumns(m map[string]any) []string {
	rows, ok := m["rows"].([]any)
	if !ok || len(rows) == 0 {
		return nil
	}
	var cols []string
	switch c := m["columns"].(type) {
	case []string:
		cols = c
	case []any:
		cols = make([]string, len(c))
		for i, x := range c {
			s, ok := x.(string)
			if !ok {
				return nil
			}
			cols[i] = s
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return cols
}

// walkRows redacts the rows of a table: a cell under a column that labels it is judged as
// that key's value; other cells, and anything that is not a row of cells, are walked.
func (w *walker) walkRows(cols []string, rows []any, depth int) {
	for i, r := range rows {
		row, ok := r.([]any)
		if !ok || depth+1 > MaxDepth {
			if nv, ok := w.walkValue(r, depth+1); ok {
				rows[i] = nv
			}
			continue
		}
		for j, v := range row {
			var nv any
			var ok bool
			if j < len(cols) && w.labelled(cols[j]) {
				nv, ok = w.judged(cols[j], "", v, depth+1)
			} else {
				nv, ok = w.walkValue(v, depth+2)
			}
			if ok {
				row[j] = nv
			}
		}
	}
}

// rekey moves the entries of m under their redacted keys (see Map for collisions).
func rekey[V any](m map[string]V, renames []rename) {
	type entry struct {
		v       V
		present bool // false: the walk of a value holding m itself moved the key already
	}
	vals := make([]entry, len(renames))
	for i, rn := range renames {
		vals[i].v, vals[i].present = m[rn.from]
		delete(m, rn.from)
	}
	// Most often no new key meets another: they go in as they come. A meeting makes the
	// order matter, so then they are taken out again and put in the order of the original keys.
	for i, rn := range renames {
		if !vals[i].present {
			continue
		}
		if _, taken := m[rn.to]; taken {
			for j, back := range renames[:i] {
				if vals[j].present {
					delete(m, back.to)
				}
			}
			rekeySorted(m, renames, func(i int) (V, bool) { return vals[i].v, vals[i].present })
			return
		}
		m[rn.to] = vals[i].v
	}
}

// rekeySorted puts the entries (by index into renames) under their new keys in the order of
// their original keys, each under the first free of NEW, NEW#2, ....
func rekeySorted[V any](m map[string]V, renames []rename, val func(int) (V, bool)) {
	order := make([]int, len(renames))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(renames[a].from, renames[b].from) })
	var next map[string]int
	for _, i := range order {
		if v, ok := val(i); ok {
			m[freeKey(renames[i].to, &next, func(k string) bool { _, ok := m[k]; return ok })] = v
		}
	}
}

// freeKey is base, or the first of base#2, base#3, ... that is not taken. next remembers,
// per base, where to look on the next call, so that many keys redacted alike (a result keyed
// by thousands of addresses, under plain placeholders) take linear time.
func freeKey(base string, next *map[string]int, taken func(string) bool) string {
	n := (*next)[base]
	if n == 0 {
		if !taken(base) {
			return base
		}
		n = 2
	}
	if *next == nil {
		*next = map[string]int{}
	}
	for ; ; n++ {
		if k := base + "#" + strconv.Itoa(n); !taken(k) {
			(*next)[base] = n + 1
			return k
		}
	}
}

// walkValue redacts v, a value at depth. For values that cannot be changed in place (strings,
// numbers, too-deep containers, and typed values reached by reflection that are not
// addressable) it returns a replacement and true.
func (w *walker) walkValue(v any, depth int) (any, bool) {
	switch x := v.(type) {
	case nil, bool, float32, int8, int16, int32, uint8, uint16, uint32, []byte:
		return nil, false
	case string:
		if out, changed := w.str(x); changed {
			return out, true
		}
		return nil, false // not out: boxing an unchanged string would allocate
	case float64:
		return w.number(x)
	case int:
		return w.integer(int64(x))
	case int64:
		return w.integer(x)
	case uint:
		return w.unsigned(uint64(x))
	case uint64:
		return w.unsigned(x)
	case json.Number:
		// a Number holding a placeholder would not marshal: the text takes its place
		if out, changed := w.str(string(x)); changed {
			return out, true
		}
		return nil, false
	}
	if depth > MaxDepth {
		return w.tooDeep(v)
	}
	switch x := v.(type) {
	case map[string]any:
		w.walkMap(x, depth)
		return nil, false
	case []any:
		for i, e := range x {
			if nv, ok := w.walkValue(e, depth+1); ok {
				x[i] = nv
			}
		}
		return nil, false
	case []string:
		for i, e := range x {
			if out, changed := w.str(e); changed {
				x[i] = out
			}
		}
		return nil, false
	case map[string]string:
		var renames []rename
		if w.found != nil {
			for _, k := range sortedKeys(x) {
				w.key(k)
				if w.labelled(k) {
					w.judgeText(k, "", x[k], true)
				} else {
					w.str(x[k])
				}
			}
			return nil, false
		}
		for k, e := range x {
			out, changed := "", false
			if w.labelled(k) {
				out, changed = w.judgeText(k, "", e, true)
			} else {
				out, changed = w.str(e)
			}
			if changed {
				x[k] = out
			}
			if nk, changed := w.key(k); changed {
				renames = append(renames, rename{k, nk})
			}
		}
		if len(renames) > 0 {
			rekey(x, renames)
		}
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		if out, changed := w.str(rv.String()); changed {
			nv := reflect.New(rv.Type()).Elem()
			nv.SetString(out)
			return nv.Interface(), true
		}
		return nil, false
	}
	switch rv.Kind() {
	case reflect.Struct, reflect.Array:
		// not addressable inside an interface: walk a copy, return it if changed
		before := w.edits
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		w.walkReflect(c, depth)
		if w.edits != before {
			return c.Interface(), true
		}
		return nil, false
	}
	w.walkReflect(rv, depth)
	return nil, false
}

// tooDeep is the replacement of v, a value nested deeper than MaxDepth: TooDeep for a
// container that holds anything, nothing for an empty one or a scalar.
func (w *walker) tooDeep(v any) (any, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			return nil, false
		}
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, false
		}
	case reflect.Struct:
	default:
		return nil, false
	}
	if w.found != nil {
		w.found(Finding{Value: TooDeep})
		return nil, false
	}
	w.edits++
	return TooDeep, true
}

// setReplacement stores nv, a replacement walkValue returned, with set into a place of type t
// (a settable interface, or a map element of interface type): TooDeep where a string does not
// fit becomes the zero value.
func setReplacement(set func(reflect.Value), t reflect.Type, nv any) {
	rv := reflect.ValueOf(nv)
	if !rv.IsValid() || !rv.Type().AssignableTo(t) {
		rv = reflect.Zero(t)
	}
	set(rv)
}

// walkReflect handles typed containers: pointers, structs (exported fields), slices, arrays
// (when addressable) and maps.
func (w *walker) walkReflect(v reflect.Value, depth int) {
	if !v.IsValid() {
		return
	}
	if depth > MaxDepth && v.Kind() != reflect.String {
		if _, deep := w.tooDeep(v.Interface()); deep && v.CanSet() {
			setReplacement(v.Set, v.Type(), TooDeep)
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if out, changed := w.str(v.String()); changed {
				v.SetString(out)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			w.walkReflect(v.Elem(), depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if v.CanSet() {
			if nv, ok := w.walkValue(e.Interface(), depth+1); ok {
				setReplacement(v.Set, v.Type(), nv)
			}
			return
		}
		w.walkReflect(e, depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				w.walkReflect(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte is binary
		}
		for i := 0; i < v.Len(); i++ {
			w.walkReflect(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		w.walkTypedMap(v, depth)
	}
}

func (w *walker) walkTypedMap(v reflect.Value, depth int) {
	kt, et := v.Type().Key(), v.Type().Elem()
	type upd struct{ k, v reflect.Value }
	var updates []upd
	var renames []rename
	iter := v.MapRange()
	for iter.Next() {
		e := iter.Value()
		switch {
		case et.Kind() == reflect.String:
			if out, changed := w.str(e.String()); changed {
				nv := reflect.New(et).Elem()
				nv.SetString(out)
				updates = append(updates, upd{iter.Key(), nv})
			}
		case et.Kind() == reflect.Interface:
			if e.IsNil() {
				break
			}
			if nv, ok := w.walkValue(e.Interface(), depth+1); ok {
				k := iter.Key()
				setReplacement(func(x reflect.Value) { updates = append(updates, upd{k, x}) }, et, nv)
			}
		default:
			// copy, walk, store back (map elements are not addressable)
			c := reflect.New(et).Elem()
			c.Set(e)
			w.walkReflect(c, depth+1)
			updates = append(updates, upd{iter.Key(), c})
		}
		if kt.Kind() == reflect.String {
			if nk, changed := w.key(iter.Key().String()); changed {
				renames = append(renames, rename{iter.Key().String(), nk})
			}
		}
	}
	for _, u := range updates {
		v.SetMapIndex(u.k, u.v)
	}
	if len(renames) == 0 {
		return
	}
	slices.SortFunc(renames, func(a, b rename) int { return strings.Compare(a.from, b.from) })
	keyOf := func(s string) reflect.Value {
		k := reflect.New(kt).Elem()
		k.SetString(s)
		return k
	}
	vals := make([]reflect.Value, len(renames))
	for i, rn := range renames {
		vals[i] = v.MapIndex(keyOf(rn.from))
		v.SetMapIndex(keyOf(rn.from), reflect.Value{})
	}
	var next map[string]int
	for i, rn := range renames {
		if vals[i].IsValid() {
			v.SetMapIndex(keyOf(freeKey(rn.to, &next, func(k string) bool { return v.MapIndex(keyOf(k)).IsValid() })), vals[i])
		}
	}
}
