package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Zeek's ASCII logs and the W3C extended log format (IIS, CloudFront) describe their columns in
// comment lines: the readers below turn each into a table, a row a line, with the column names
// as the header gives them ("id.orig_h", "c-ip"). A header that comes again later in the file
// (a service restarted, logs concatenated) names the columns of the lines after it.

// readLines calls line with each line of r (its "\n" and "\r" dropped), streamed; a line longer
// than maxRecord is not given, and counted in the result.
func readLines(r io.Reader, line func([]byte) error) (int64, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	var tooLong, dropped int64
	for {
		l, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if tooLong == 0 {
				long = append(long, l...)
				if len(long) > maxRecord {
					tooLong, long = 1, nil
				}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return dropped, err
		}
		if tooLong > 0 {
			dropped++
			tooLong = 0
		} else {
			if len(long) > 0 {
				l = append(long, l...)
				long = long[:0]
			}
			l = bytes.TrimSuffix(bytes.TrimSuffix(l, []byte{'\n'}), []byte{'\r'})
			if len(l) > 0 {
				if e := line(l); e != nil {
					return dropped, e
				}
			}
		}
		if err != nil {
			return dropped, nil
		}
	}
}

// zeekHeader is what a Zeek log's comment lines say.
type zeekHeader struct {
	sep, setSep, empty, unset []byte
	fields                    []string
	types                     []string
}

// readZeek reads a Zeek ASCII log (#separator, #set_separator, #empty_field, #unset_field,
// #fields, #types): the unset value is NULL, the empty one an empty value, time, interval and
// double are reals, count, int and port integers, bool 1 or 0, a set, vector or table a JSON
// array, and anything else text with its \xHH escapes decoded. A line before #fields or with
// another number of fields is skipped and counted.
func readZeek(r io.Reader, emit func(record) error) (parseStats, error) {
	var st parseStats
	h := zeekHeader{sep: []byte{'\t'}, setSep: []byte{','}, empty: []byte("(empty)"), unset: []byte{'-'}}
	var vals []any
	var parts [][]byte
	long, err := readLines(r, func(l []byte) error {
		if l[0] == '#' {
			if v, ok := bytes.CutPrefix(l, []byte("#separator ")); ok {
				if sep := zeekUnescape(v); len(sep) > 0 {
					h.sep = []byte(sep)
				}
				return nil
			}
			name, rest, _ := bytes.Cut(l[1:], h.sep)
			switch string(name) {
			case "set_separator":
				h.setSep = []byte(zeekUnescape(rest))
			case "empty_field":
				h.empty = []byte(zeekUnescape(rest))
			case "unset_field":
				h.unset = []byte(zeekUnescape(rest))
			case "fields":
				h.fields = splitStrings(rest, h.sep)
				return emit(record{keys: h.fields, schema: true})
			case "types":
				h.types = splitStrings(rest, h.sep)
			}
			return nil // #path, #open, #close and other comments
		}
		if h.fields == nil {
			st.skipped++
			return nil
		}
		parts = splitInto(parts[:0], l, h.sep)
		if len(parts) != len(h.fields) {
			st.skipped++
			return nil
		}
		vals = vals[:0]
		for i, p := range parts {
			typ := ""
			if i < len(h.types) {
				typ = h.types[i]
			}
			vals = append(vals, zeekValue(p, typ, &h))
		}
		if err := emit(record{keys: h.fields, typed: vals}); err != nil {
			return err
		}
		st.rows++
		return nil
	})
	st.skipped += long
	return st, err
}

func splitInto(dst [][]byte, l, sep []byte) [][]byte {
	if len(sep) == 0 {
		return append(dst, l)
	}
	for {
		i := bytes.Index(l, sep)
		if i < 0 {
			return append(dst, l)
		}
		dst = append(dst, l[:i])
		l = l[i+len(sep):]
	}
}

func splitStrings(l, sep []byte) []string {
	var out []string
	for _, p := range splitInto(nil, l, sep) {
		out = append(out, zeekUnescape(p))
	}
	return out
}

// zeekValue converts one field of a Zeek log by its type.
func zeekValue(b []byte, typ string, h *zeekHeader) any {
	if bytes.Equal(b, h.unset) {
		return nil
	}
	if i := strings.IndexByte(typ, '['); i > 0 && strings.HasSuffix(typ, "]") {
		// set[T], vector[T], table[T]: a JSON array of its elements.
		inner := typ[i+1 : len(typ)-1]
		elems := []any{}
		if !bytes.Equal(b, h.empty) {
			for _, e := range splitInto(nil, b, h.setSep) {
				if bytes.Equal(e, h.empty) {
					elems = append(elems, "")
					continue
				}
				elems = append(elems, zeekScalar(e, inner))
			}
		}
		j, _ := json.Marshal(elems)
		return string(j)
	}
	if bytes.Equal(b, h.empty) {
		return ""
	}
	return zeekScalar(b, typ)
}

// zeekScalar converts a value of a scalar type; one that does not parse as its type stays text.
func zeekScalar(b []byte, typ string) any {
	switch typ {
	case "time", "interval", "double":
		if f, err := strconv.ParseFloat(string(b), 64); err == nil {
			return f
		}
	case "count", "int", "port":
		if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			return n
		}
		if n, err := strconv.ParseFloat(string(b), 64); err == nil && bytes.IndexByte(b, '.') < 0 {
			return n // a count past int64
		}
	case "bool":
		switch string(b) {
		case "T":
			return int64(1)
		case "F":
			return int64(0)
		}
	}
	return zeekUnescape(b)
}

// zeekUnescape decodes the \xHH escapes Zeek writes for separators and unprintable bytes.
func zeekUnescape(b []byte) string {
	i := bytes.Index(b, []byte(`\x`))
	if i < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i >= 0 {
		out = append(out, b[:i]...)
		if i+4 <= len(b) {
			if v, err := strconv.ParseUint(string(b[i+2:i+4]), 16, 8); err == nil {
				out = append(out, byte(v))
				b = b[i+4:]
				i = bytes.Index(b, []byte(`\x`))
				continue
			}
		}
		out = append(out, b[i:i+2]...)
		b = b[i+2:]
		i = bytes.Index(b, []byte(`\x`))
	}
	return string(append(out, b...))
}

// readW3C reads a W3C extended log (#Fields: names separated by spaces). IIS separates a
// line's fields with spaces, CloudFront with tabs: a line holding a tab is split at tabs. "-"
// is NULL, and a plain integer or decimal a number, as in CSV. A line before #Fields or with
// another number of fields is skipped and counted.
func readW3C(r io.Reader, emit func(record) error) (parseStats, error) {
	var st parseStats
	var fields []string
	var vals []any
	var parts [][]byte
	long, err := readLines(r, func(l []byte) error {
		if l[0] == '#' {
			if v, ok := bytes.CutPrefix(l, []byte("#Fields:")); ok {
				fields = strings.Fields(string(v))
				return emit(record{keys: fields, schema: true})
			}
			return nil // #Software, #Version, #Date, #Remark
		}
		if fields == nil {
			st.skipped++
			return nil
		}
		sep := []byte{' '}
		if bytes.IndexByte(l, '\t') >= 0 {
			sep[0] = '\t'
		}
		parts = splitInto(parts[:0], l, sep)
		if len(parts) != len(fields) {
			st.skipped++
			return nil
		}
		vals = vals[:0]
		for _, p := range parts {
			if len(p) == 1 && p[0] == '-' {
				vals = append(vals, nil)
				continue
			}
			vals = append(vals, csvValue(string(p)))
		}
		if err := emit(record{keys: fields, typed: vals}); err != nil {
			return err
		}
		st.rows++
		return nil
	})
	st.skipped += long
	return st, err
}

// logKind tells a Zeek log or a W3C extended log by its first lines, whatever the file's name
// ("" for neither): Zeek's start with #separator, W3C's with #Software, #Version, #Date,
// #Remark or #Fields; each must name its fields in the bytes looked at.
func logKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("#separator ")) && bytes.Contains(head, []byte("\n#fields")):
		return kindZeek
	case bytes.HasPrefix(head, []byte("#Fields:")) || bytes.Contains(head, []byte("\n#Fields:")):
		for _, p := range []string{"#Software:", "#Version:", "#Date:", "#Remark:", "#Fields:"} {
			if bytes.HasPrefix(head, []byte(p)) {
				return kindW3C
			}
		}
	}
	return ""
}
