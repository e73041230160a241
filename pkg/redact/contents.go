package redact

import (
	"mime"
	"reflect"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the walk into nested function arguments and responses.
const maxDepth = 64

// IsTextualMIME reports whether inline data of this MIME type is redacted:
// text/*, JSON, XML, YAML, TOML, JavaScript, shell, SQL, CSV, form data and
// their +json/+xml/+yaml structured-syntax suffixes. A charset parameter
// other than UTF-8 or US-ASCII makes it non-textual.
func IsTextualMIME(mimeType string) bool {
	mt, params, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	if cs, ok := params["charset"]; ok {
		cs = strings.ToLower(cs)
		if cs != "utf-8" && cs != "utf8" && cs != "us-ascii" && cs != "ascii" {
			return false
		}
	}
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	for _, suf := range [...]string{"+json", "+xml", "+yaml", "+json-seq"} {
		if strings.HasSuffix(mt, suf) {
			return true
		}
	}
	switch mt {
	case "application/json", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines",
		"application/json-seq", "application/xml", "application/yaml", "application/x-yaml", "application/toml",
		"application/javascript", "application/x-javascript", "application/ecmascript", "application/x-sh",
		"application/x-shellscript", "application/sql", "application/csv", "application/x-www-form-urlencoded",
		"application/graphql", "application/x-pem-file", "application/x-httpd-php", "application/x-python",
		"application/x-ruby", "application/x-perl", "application/xhtml+xml", "application/ld+json", "application/geo+json",
		"application/x-tex", "application/rtf", "application/x-log", "application/toml+text":
		return true
	}
	return false
}

// Into redacts *s in place, adding to counts.
func (r *Redactor) Into(s *string, counts Counts) {
	if *s == "" {
		return
	}
	if out, changed := r.redact(*s, counts); changed {
		*s = out
	}
}

// Map redacts, in place, every string value inside m at any depth (strings in maps, slices and
// typed values; map keys are left alone), adding to counts.
func (r *Redactor) Map(m map[string]any, counts Counts) { r.walkMap(m, counts, 0) }

// Inline redacts textual inline data (see IsTextualMIME); ok is false when data is left as is.
func (r *Redactor) Inline(mimeType string, data []byte, counts Counts) ([]byte, bool) {
	return r.inline(mimeType, data, counts)
}

// inline redacts textual inline data; ok is false when data is left as is.
func (r *Redactor) inline(mimeType string, data []byte, counts Counts) ([]byte, bool) {
	if len(data) == 0 || !IsTextualMIME(mimeType) || !utf8.Valid(data) {
		return nil, false
	}
	out, changed := r.redact(string(data), counts)
	if !changed {
		return nil, false
	}
	return []byte(out), true
}

func (r *Redactor) walkMap(m map[string]any, counts Counts, depth int) {
	if depth > maxDepth {
		return
	}
	for k, v := range m {
		if nv, ok := r.walkValue(v, counts, depth+1); ok {
			m[k] = nv
		}
	}
}

// walkValue redacts strings inside v. For values that cannot be changed in
// place (strings, and typed values reached by reflection that are not
// addressable) it returns a replacement and true.
func (r *Redactor) walkValue(v any, counts Counts, depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint, uint64, uint32, []byte:
		return nil, false
	case string:
		if out, changed := r.redact(x, counts); changed {
			return out, true
		}
		return nil, false
	case map[string]any:
		r.walkMap(x, counts, depth)
		return nil, false
	case []any:
		for i, e := range x {
			if nv, ok := r.walkValue(e, counts, depth+1); ok {
				x[i] = nv
			}
		}
		return nil, false
	case []string:
		for i, e := range x {
			if out, changed := r.redact(e, counts); changed {
				x[i] = out
			}
		}
		return nil, false
	case map[string]string:
		for k, e := range x {
			if out, changed := r.redact(e, counts); changed {
				x[k] = out
			}
		}
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		if out, changed := r.redact(rv.String(), counts); changed {
			nv := reflect.New(rv.Type()).Elem()
			nv.SetString(out)
			return nv.Interface(), true
		}
		return nil, false
	}
	switch rv.Kind() {
	case reflect.Struct, reflect.Array:
		// not addressable inside an interface: walk a copy, return it if changed
		before := counts.Total()
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		r.walkReflect(c, counts, depth)
		if counts.Total() != before {
			return c.Interface(), true
		}
		return nil, false
	}
	r.walkReflect(rv, counts, depth)
	return nil, false
}

// walkReflect handles typed containers: pointers, structs (exported fields),
// slices, arrays (when addressable) and maps.
func (r *Redactor) walkReflect(v reflect.Value, counts Counts, depth int) {
	if depth > maxDepth || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if out, changed := r.redact(v.String(), counts); changed {
				v.SetString(out)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			r.walkReflect(v.Elem(), counts, depth+1)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if v.CanSet() {
			if nv, ok := r.walkValue(e.Interface(), counts, depth+1); ok {
				v.Set(reflect.ValueOf(nv))
			}
			return
		}
		r.walkReflect(e, counts, depth+1)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				r.walkReflect(v.Field(i), counts, depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte is binary
		}
		for i := 0; i < v.Len(); i++ {
			r.walkReflect(v.Index(i), counts, depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		et := v.Type().Elem()
		iter := v.MapRange()
		type upd struct{ k, v reflect.Value }
		var updates []upd
		for iter.Next() {
			e := iter.Value()
			switch {
			case et.Kind() == reflect.String:
				if out, changed := r.redact(e.String(), counts); changed {
					nv := reflect.New(et).Elem()
					nv.SetString(out)
					updates = append(updates, upd{iter.Key(), nv})
				}
			case et.Kind() == reflect.Interface:
				if e.IsNil() {
					continue
				}
				if nv, ok := r.walkValue(e.Interface(), counts, depth+1); ok {
					updates = append(updates, upd{iter.Key(), reflect.ValueOf(nv)})
				}
			default:
				// copy, walk, store back (map elements are not addressable)
				c := reflect.New(et).Elem()
				c.Set(e)
				r.walkReflect(c, counts, depth+1)
				updates = append(updates, upd{iter.Key(), c})
			}
		}
		for _, u := range updates {
			v.SetMapIndex(u.k, u.v)
		}
	}
}
