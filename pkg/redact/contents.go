package redact

import (
	"mime"
	"reflect"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// maxDepth bounds the walk into nested function arguments and responses.
const maxDepth = 64

// Contents redacts, in place, every string inside the contents:
//
//   - Part.Text (thoughts included) and AudioTranscription.Text;
//   - FunctionCall.Args, FunctionResponse.Response, ToolCall.Args and
//     ToolResponse.Response at any depth: string values inside maps, slices
//     and arrays (JSON-shaped map[string]any/[]any values, and typed Go maps,
//     slices, pointers and exported struct fields via reflection); map keys are
//     left alone; FunctionCall.PartialArgs string values;
//   - ExecutableCode.Code and CodeExecutionResult.Output;
//   - InlineData (and FunctionResponse.Parts inline data) with a textual MIME
//     type, see the package documentation for the rule.
//
// FileData URIs and display names, ThoughtSignature bytes, part metadata and
// other binary data are left untouched. Nil contents and parts are skipped.
// It returns the number of replacements per type (never nil).
func (r *Redactor) Contents(contents []*genai.Content) Counts {
	counts := Counts{}
	if !r.Enabled() {
		return counts
	}
	str := func(s *string) {
		if *s == "" {
			return
		}
		if out, changed := r.redact(*s, counts); changed {
			*s = out
		}
	}
	for _, c := range contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			str(&p.Text)
			if p.AudioTranscription != nil {
				str(&p.AudioTranscription.Text)
			}
			if fc := p.FunctionCall; fc != nil {
				r.walkMap(fc.Args, counts, 0)
				for _, pa := range fc.PartialArgs {
					if pa != nil {
						str(&pa.StringValue)
					}
				}
			}
			if fr := p.FunctionResponse; fr != nil {
				r.walkMap(fr.Response, counts, 0)
				for _, fp := range fr.Parts {
					if fp != nil && fp.InlineData != nil {
						if d, ok := r.inline(fp.InlineData.MIMEType, fp.InlineData.Data, counts); ok {
							fp.InlineData.Data = d
						}
					}
				}
			}
			if tc := p.ToolCall; tc != nil {
				r.walkMap(tc.Args, counts, 0)
			}
			if tr := p.ToolResponse; tr != nil {
				r.walkMap(tr.Response, counts, 0)
			}
			if ec := p.ExecutableCode; ec != nil {
				str(&ec.Code)
			}
			if cr := p.CodeExecutionResult; cr != nil {
				str(&cr.Output)
			}
			if b := p.InlineData; b != nil {
				if d, ok := r.inline(b.MIMEType, b.Data, counts); ok {
					b.Data = d
				}
			}
		}
	}
	return counts
}

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
