package redact

import (
	"mime"
	"strings"
	"unicode/utf8"
)

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
