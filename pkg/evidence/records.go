package evidence

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// envelopes are the keys of JSON documents that hold records: CloudTrail's Records, AWS
// Security Hub's Findings, and the usual list keys of exports.
var envelopes = map[string]bool{"Records": true, "Findings": true, "items": true, "entries": true, "logs": true}

// record is one row of a structured file: a JSON object (obj, with its text raw, which orders
// new columns as the file does) or a CSV row (fields, in the header's order).
type record struct {
	// keys and vals are a JSON object's members, in the file's order (values as JSON text).
	keys   []string
	vals   [][]byte
	fields []string
	// header, in the first record of a CSV file, names its columns (and fields is nil).
	header []string
	// typed are the values of keys already converted (Zeek and W3C logs), vals unused; with
	// schema set, keys only name columns (a log's header) and the record is no row.
	typed  []any
	schema bool
}

// parseStats is what reading a file found.
type parseStats struct {
	rows    int64
	skipped int64
	// header is a CSV file's header (its columns).
	header []string
}

// readRecords streams the records of r, of kind, to emit. Nothing but the current record is
// held. A malformed NDJSON line or CSV row is skipped and counted; a malformed JSON document
// ends the reading with an error after the records before it.
func readRecords(r io.Reader, kind string, emit func(record) error) (parseStats, error) {
	switch kind {
	case kindNDJSON:
		return readNDJSON(r, emit)
	case kindJSON:
		return readJSON(r, emit)
	case kindCSV:
		return readCSV(r, emit)
	case kindZeek:
		return readZeek(r, emit)
	case kindW3C:
		return readW3C(r, emit)
	}
	return parseStats{}, fmt.Errorf("not a table")
}

func readNDJSON(r io.Reader, emit func(record) error) (parseStats, error) {
	var st parseStats
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	tooLong := false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it, up to maxRecord; past that, skip to its end.
			if !tooLong {
				long = append(long, line...)
				if len(long) > maxRecord {
					tooLong, long = true, nil
				}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return st, err
		}
		switch {
		case tooLong:
			st.skipped++
			tooLong = false
		default:
			if len(long) > 0 {
				line = append(long, line...)
				long = long[:0]
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				rec, ok := objectRecord(t)
				if !ok {
					st.skipped++
					break
				}
				if e := emit(rec); e != nil {
					return st, e
				}
				st.rows++
			}
		}
		if err != nil {
			return st, nil
		}
	}
}

// readJSON reads a JSON array of records, an envelope holding one ({"Records": [...]}), or a
// single object (one record), decoding one element at a time.
func readJSON(r io.Reader, emit func(record) error) (parseStats, error) {
	var st parseStats
	rr := &recordReader{r: r}
	dec := json.NewDecoder(bufio.NewReaderSize(rr, 256<<10))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return st, jsonErr(err, dec)
	}
	elements := func() error {
		for dec.More() {
			rr.mark()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return jsonErr(err, dec)
			}
			if err := emit(elementRecord(raw)); err != nil {
				return err
			}
			st.rows++
		}
		_, err := dec.Token() // the closing ]
		return jsonErr(err, dec)
	}
	switch tok {
	case json.Delim('['):
		return st, elements()
	case json.Delim('{'):
	default:
		return st, fmt.Errorf("neither an object nor an array")
	}
	// An object: stream the first envelope array found; other members are kept in case there
	// is none, and then the object is one record.
	var rest record
	var restSize int
	found := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return st, jsonErr(err, dec)
		}
		key, _ := kt.(string)
		if envelopes[key] && !found {
			rr.mark()
			t, err := dec.Token()
			if err != nil {
				return st, jsonErr(err, dec)
			}
			if t == json.Delim('[') {
				found = true
				if err := elements(); err != nil {
					return st, err
				}
				continue
			}
			// Not an array: an ordinary member whose first token is read. Keep scalars only.
			if b, err := json.Marshal(t); err == nil && t != nil {
				if _, isDelim := t.(json.Delim); !isDelim {
					rest.keys, rest.vals = append(rest.keys, key), append(rest.vals, b)
					continue
				}
			}
			return st, fmt.Errorf("member %q is not a list of records", key)
		}
		rr.mark()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return st, jsonErr(err, dec)
		}
		if !found && restSize < maxRecord {
			rest.keys, rest.vals = append(rest.keys, key), append(rest.vals, raw)
			restSize += len(raw)
		}
	}
	if !found {
		if rest.keys == nil {
			rest.keys, rest.vals = []string{}, [][]byte{}
		}
		if err := emit(rest); err != nil {
			return st, err
		}
		st.rows++
	}
	return st, nil
}

// elementRecord is an array element as a record: an object's members, or {"value": x}.
func elementRecord(raw json.RawMessage) record {
	if rec, ok := objectRecord(bytes.TrimSpace(raw)); ok {
		return rec
	}
	return record{keys: []string{"value"}, vals: [][]byte{raw}}
}

// objectRecord splits a JSON object's text into its members, in order, without decoding the
// values (they are converted one by one, as columns): false when t is not a valid object.
func objectRecord(t []byte) (record, bool) {
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return record{}, false
	}
	rec := record{keys: []string{}, vals: [][]byte{}}
	i := skipSpace(t, 1)
	for i < len(t) && t[i] != '}' {
		// t is valid JSON: a member is "key" : value, then , or }.
		end := skipString(t, i)
		key := t[i+1 : end-1]
		var k string
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			_ = json.Unmarshal(t[i:end], &k)
		} else {
			k = string(key)
		}
		i = skipSpace(t, end)
		i = skipSpace(t, i+1) // the colon
		vend := skipValue(t, i)
		rec.keys, rec.vals = append(rec.keys, k), append(rec.vals, t[i:vend])
		i = skipSpace(t, vend)
		if i < len(t) && t[i] == ',' {
			i = skipSpace(t, i+1)
		}
	}
	return rec, true
}

func skipSpace(t []byte, i int) int {
	for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at t[i] (a quote).
func skipString(t []byte, i int) int {
	for j := i + 1; j < len(t); j++ {
		switch t[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(t)
}

// skipValue returns the index after the (valid) JSON value starting at t[i].
func skipValue(t []byte, i int) int {
	switch t[i] {
	case '"':
		return skipString(t, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(t); j++ {
			switch t[j] {
			case '"':
				j = skipString(t, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(t)
	}
	j := i
	for j < len(t) && t[j] != ',' && t[j] != '}' && t[j] != ']' && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' && t[j] != '\r' {
		j++
	}
	return j
}

func jsonErr(err error, dec *json.Decoder) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errRecordTooLarge) {
		return err
	}
	var tl *errTooLarge
	if errors.As(err, &tl) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the JSON ends early (at byte %d)", dec.InputOffset())
	}
	return fmt.Errorf("malformed JSON at byte %d: %v", dec.InputOffset(), err)
}

func readCSV(r io.Reader, emit func(record) error) (parseStats, error) {
	var st parseStats
	rr := &recordReader{r: r}
	cr := csv.NewReader(bufio.NewReaderSize(rr, 256<<10))
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return st, fmt.Errorf("the CSV file is empty")
		}
		return st, fmt.Errorf("the CSV header cannot be read: %v", err)
	}
	st.header = csvColumns(header)
	if err := emit(record{header: st.header}); err != nil {
		return st, err
	}
	cr.FieldsPerRecord = len(header)
	for {
		rr.mark()
		fields, err := cr.Read()
		switch {
		case errors.Is(err, io.EOF):
			return st, nil
		case errors.Is(err, errRecordTooLarge):
			return st, err
		case err != nil:
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return st, err
			}
			st.skipped++
			continue
		}
		if err := emit(record{fields: fields}); err != nil {
			return st, err
		}
		st.rows++
	}
}

// csvColumns names a header's columns: blank ones col_N, repeated ones made unique.
func csvColumns(h []string) []string {
	out := make([]string, len(h))
	for i, n := range h {
		if i == 0 {
			n = string(bytes.TrimPrefix([]byte(n), []byte("\ufeff")))
		}
		if n == "" {
			n = "col_" + strconv.Itoa(i+1)
		}
		out[i] = n
	}
	return out
}

// jsonValue converts a JSON value to what SQLite stores: strings as text, numbers as integers
// or reals, true/false as 1/0, null as NULL, objects and arrays as their JSON text.
func jsonValue(raw json.RawMessage) any {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	switch c := t[0]; {
	case c == '"':
		if bytes.IndexByte(t, '\\') < 0 {
			return string(t[1 : len(t)-1])
		}
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
		return string(t)
	case c == 't':
		return int64(1)
	case c == 'f':
		return int64(0)
	case c == 'n':
		return nil
	case c == '-' || c >= '0' && c <= '9':
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(string(t), 64); err == nil {
			return f
		}
		return string(t)
	}
	return string(t)
}

// csvValue converts a CSV field: a plain integer or decimal becomes a number (so port = 22
// compares as a number), anything else, "0012" included, stays text.
func csvValue(s string) any {
	if len(s) == 0 || len(s) > 20 {
		return s
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	if i == len(s) || (s[i] == '0' && len(s) > i+1 && s[i+1] != '.') {
		return s
	}
	dot := false
	for j := i; j < len(s); j++ {
		switch c := s[j]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot && j > i && j < len(s)-1:
			dot = true
		default:
			return s
		}
	}
	if !dot {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		return s
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}
