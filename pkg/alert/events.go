package alert

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// quickEvent reports whether raw, a top-level value of the input, is an event that is not an
// alert (a Suricata flow, dns, stats, ... record) and its kind, without decoding it: most of an
// eve.json is such events, and decoding each into a map would be most of the time spent. It
// answers ok only where reading the value in full would skip it too (FuzzQuickEvent holds the
// two to the same answer); anything else (an escaped key, a member that makes the value an
// envelope or another schema, invalid JSON) is left to the full reading.
func (r *reader) quickEvent(raw []byte) (string, bool) {
	if r.all || !r.quick || len(raw) == 0 || raw[0] != '{' {
		return "", false
	}
	kind, ok := eventKind(raw, &r.keys)
	if !ok || kind == "alert" {
		return "", false
	}
	if !utf8.Valid(raw) || !json.Valid(raw) {
		return "", false
	}
	return kind, true
}

// notSuricata are members that make a record an envelope or a finding of a schema that
// describe tries before Suricata's.
var notSuricata = map[string]bool{"Findings": true, "findings": true, "readTime": true, "detail-type": true, "finding": true,
	"SchemaVersion": true, "schemaVersion": true, "name": true, "protoPayload": true}

// eventKind reads the top-level members of the JSON object raw (keys is scratch space) and
// returns its Suricata event_type when it is a Suricata record (isSuricata) that no envelope
// or earlier schema claims. It may answer anything for invalid JSON: its caller checks.
func eventKind(raw []byte, keys *[][]byte) (string, bool) {
	*keys = (*keys)[:0]
	i := skipWS(raw, 1)
	var kind []byte
	found := false
	for i < len(raw) && raw[i] != '}' {
		if raw[i] == ',' {
			i = skipWS(raw, i+1)
		}
		k, end, plain := plainString(raw, i)
		if !plain {
			return "", false
		}
		if notSuricata[string(k)] {
			return "", false
		}
		i = skipWS(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return "", false
		}
		i = skipWS(raw, i+1)
		if string(k) == "event_type" {
			// The last of repeated members counts, as for the decoder.
			found = false
			if i < len(raw) && raw[i] == '"' {
				v, vend, plain := plainString(raw, i)
				if !plain {
					return "", false
				}
				kind, found = v, true
				i = skipWS(raw, vend)
				*keys = append(*keys, k)
				continue
			}
		}
		*keys = append(*keys, k)
		if i = skipValue(raw, i); i < 0 {
			return "", false
		}
		i = skipWS(raw, i)
	}
	if !found || len(kind) == 0 {
		return "", false
	}
	for _, k := range *keys {
		if string(k) == "flow_id" || string(k) == "src_ip" || bytes.Equal(k, kind) {
			return string(kind), true
		}
	}
	return "", false
}

func skipWS(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// plainString returns the contents of the JSON string at raw[i] and the index after it; plain
// is false when it is not a string or holds an escape.
func plainString(raw []byte, i int) (s []byte, end int, plain bool) {
	if i >= len(raw) || raw[i] != '"' {
		return nil, 0, false
	}
	j := bytes.IndexByte(raw[i+1:], '"')
	if j < 0 {
		return nil, 0, false
	}
	s = raw[i+1 : i+1+j]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, 0, false
	}
	return s, i + j + 2, true
}

// skipValue returns the index just after the JSON value at raw[i], or -1.
func skipValue(raw []byte, i int) int {
	if i >= len(raw) {
		return -1
	}
	var st scanState
	switch raw[i] {
	case '{', '[':
	case '"':
		st.inString = true
		i++
	default:
		st.bare = true
	}
	end := st.scan(raw[i:])
	if end < 0 {
		if st.bare {
			return len(raw)
		}
		return -1
	}
	return i + end
}
