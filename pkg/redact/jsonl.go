package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/m-mizutani/goerr/v2"
)

// RunJSONL speaks the line protocol of the PII scorer: every input line is a
// JSON object {"id":…,"text":"…"}; for each one a line {"id":…,"text":"…"}
// with the redacted text is written, in the same order. The id is echoed as
// given (any JSON value). Blank lines are skipped. Output is flushed whenever
// no further input is already buffered, so an interactive caller that waits
// for each answer before sending the next line never blocks, while bulk input
// is written in large chunks. A malformed line stops the run with an error
// that names the line number (never its content).
func (r *Redactor) RunJSONL(in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 1<<20)
	bw := bufio.NewWriterSize(out, 1<<20)
	var line, outBuf, scratch []byte
	lineNo := 0
	for {
		line = line[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			line = append(line, chunk...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			_ = bw.Flush()
			return goerr.Wrap(err, "failed to read JSONL input", goerr.V("line", lineNo+1))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			lineNo++
			id, text, perr := parseLine(line, &scratch)
			if perr != nil {
				_ = bw.Flush() // answers to the earlier lines still go out
				return goerr.Wrap(perr, "malformed JSONL input line", goerr.V("line", lineNo))
			}
			outBuf = append(outBuf[:0], `{"id":`...)
			outBuf = append(outBuf, id...)
			outBuf = append(outBuf, `,"text":`...)
			outBuf = r.appendJSONRedacted(outBuf, text)
			outBuf = append(outBuf, "}\n"...)
			if _, werr := bw.Write(outBuf); werr != nil {
				return goerr.Wrap(werr, "failed to write JSONL output", goerr.V("line", lineNo))
			}
		}
		if err == io.EOF {
			break
		}
		if br.Buffered() == 0 {
			if ferr := bw.Flush(); ferr != nil {
				return goerr.Wrap(ferr, "failed to flush JSONL output", goerr.V("line", lineNo))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return goerr.Wrap(err, "failed to flush JSONL output", goerr.V("line", lineNo))
	}
	return nil
}

var errLine = errors.New("expected a JSON object with a string \"text\" field")

// parseLine extracts the raw "id" value and the decoded "text" string. It has
// a fast path for flat objects and falls back to encoding/json otherwise. The
// results may alias line and *scratch: they are valid until either changes.
func parseLine(line []byte, scratch *[]byte) (id []byte, text string, err error) {
	if id, text, ok := parseLineFast(line, scratch); ok {
		return id, text, nil
	}
	var v struct {
		ID   json.RawMessage `json:"id"`
		Text *string         `json:"text"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, "", err
	}
	if v.Text == nil {
		return nil, "", errLine
	}
	id = v.ID
	if len(id) == 0 {
		id = []byte("null")
	}
	return id, *v.Text, nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// parseLineFast handles objects whose values are strings, numbers, true,
// false or null.
func parseLineFast(b []byte, scratch *[]byte) (id []byte, text string, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, "", false
	}
	i++
	haveText := false
	for {
		i = skipWS(b, i)
		if i < len(b) && b[i] == '}' {
			i++
			break
		}
		if i >= len(b) || b[i] != '"' {
			return nil, "", false
		}
		ks, ke, esc, ok2 := scanString(b, i)
		if !ok2 || esc {
			return nil, "", false
		}
		key := b[ks:ke]
		i = skipWS(b, ke+1)
		if i >= len(b) || b[i] != ':' {
			return nil, "", false
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return nil, "", false
		}
		vstart := i
		var vend int
		if b[i] == '"' {
			vs, ve, esc, ok2 := scanString(b, i)
			if !ok2 {
				return nil, "", false
			}
			vend = ve + 1
			if string(key) == "text" {
				if esc {
					u, ok3 := unescape((*scratch)[:0], b[vs:ve])
					if !ok3 {
						return nil, "", false
					}
					*scratch = u
					text = unsafe.String(unsafe.SliceData(u), len(u))
				} else {
					if !utf8.Valid(b[vs:ve]) {
						return nil, "", false
					}
					text = unsafe.String(&b[vs], ve-vs)
				}
				haveText = true
			}
		} else {
			vend = i
			for vend < len(b) && (b[vend] == '-' || b[vend] == '+' || b[vend] == '.' || isAlnum(b[vend])) {
				vend++
			}
			if vend == i {
				return nil, "", false
			}
			lit := string(b[i:vend])
			if lit != "true" && lit != "false" && lit != "null" {
				if _, err := strconv.ParseFloat(lit, 64); err != nil {
					return nil, "", false
				}
			}
			if string(key) == "text" {
				return nil, "", false
			}
		}
		if string(key) == "id" {
			id = b[vstart:vend]
		}
		i = skipWS(b, vend)
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == '}' {
			i++
			break
		}
		return nil, "", false
	}
	if skipWS(b, i) != len(b) || !haveText {
		return nil, "", false
	}
	if id == nil {
		id = []byte("null")
	}
	return id, text, true
}

// scanString returns the content bounds of the JSON string starting at b[i]=='"'.
func scanString(b []byte, i int) (start, end int, escaped, ok bool) {
	start = i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return start, j, escaped, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, 0, false, false
		}
	}
	return 0, 0, false, false
}

// unescape decodes the body of a JSON string into out.
func unescape(out, b []byte) ([]byte, bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b, i+1)
			if !ok {
				return nil, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					r2, ok2 = hex4(b, i+3)
				}
				if ok2 {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						out = utf8.AppendRune(out, dec)
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	if !utf8.Valid(out) {
		return nil, false
	}
	return out, true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendJSONRedacted appends s, redacted, as a JSON string, without
// building the redacted string first.
func (r *Redactor) appendJSONRedacted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if !r.Enabled() || s == "" {
		return append(appendJSONBody(dst, s), '"')
	}
	sc := getScanner()
	prev := 0
	for _, m := range sc.find(s) {
		if m.typ == tKeep || !r.on[m.typ] {
			continue
		}
		rep, ok := r.repl(s[m.start:m.end], m.typ, nil)
		if !ok {
			continue
		}
		dst = appendJSONBody(dst, s[prev:m.start])
		dst = append(dst, rep...)
		prev = m.end
	}
	putScanner(sc)
	return append(appendJSONBody(dst, s[prev:]), '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONString encodes s like encoding/json without HTML escaping:
// quotes, backslashes and control characters are escaped, U+2028/U+2029 are
// escaped, invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	return append(appendJSONBody(append(dst, '"'), s), '"')
}

// appendJSONBody appends s escaped as the inside of a JSON string.
func appendJSONBody(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}
