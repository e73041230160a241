package alert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
)

// Finding is one alert read from an input, and where in the input it was.
type Finding struct {
	Alert *record.Alert
	Place Place
}

// Place is where a finding, or a fault, is in its input: the line its JSON value starts on
// and, inside an envelope, the element ("Findings[2]", "detail.findings[0]", "[4]").
type Place struct {
	Line int
	Path string
}

func (p Place) String() string {
	if p.Path == "" {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("line %d, %s", p.Line, p.Path)
}

func (p Place) in(path string) Place {
	p.Path += path
	return p
}

// Read reads every finding of an input, in order, as a stream: the input is a sequence of
// JSON values (one document, newline-delimited JSON, or values one after another as jq prints
// them), each a finding, a list of findings or an envelope of them (see the README's "Alerts
// as the tools deliver them"). A top-level array and an AWS {"Findings": [...]} that starts
// with its list are read an element at a time, so memory holds one value (at most maxSize
// bytes) whatever the input's size.
//
// The sequence ends after the first error, which names its place and wraps ErrInvalid when the
// input is at fault (a read error is returned as it is). Nothing is deduplicated here.
func Read(in io.Reader, maxSize int) iter.Seq2[Finding, error] {
	return func(yield func(Finding, error) bool) {
		size := 64 << 10
		if l, ok := in.(interface{ Len() int }); ok && l.Len()+1 < size {
			size = l.Len() + 1
		}
		r := &reader{br: bufio.NewReaderSize(in, max(size, 512)), line: 1, max: maxSize, yield: yield}
		if err := r.run(); err != nil && !errors.Is(err, errStopped) {
			yield(Finding{}, err)
		}
	}
}

// Parse reads every finding of data (see Read).
func Parse(data []byte) ([]Finding, error) {
	var out []Finding
	for f, err := range Read(bytes.NewReader(data), MaxSize) {
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// errStopped ends a read whose consumer stopped ranging.
var errStopped = errors.New("stopped")

type reader struct {
	br    *bufio.Reader
	line  int // line of the next unread byte
	max   int
	buf   []byte
	yield func(Finding, error) bool
	count int // findings yielded
	// tooLarge is set when value stopped at the size limit.
	tooLarge bool
}

func invalid(p Place, format string, args ...any) error {
	return goerr.Wrap(ErrInvalid, p.String()+": "+fmt.Sprintf(format, args...))
}

// findingsFirst matches the start of an AWS envelope whose list comes first, as the AWS CLI
// prints it.
var findingsFirst = regexp.MustCompile(`^\{\s*"Findings"\s*:\s*\[`)

func (r *reader) run() error {
	if b, err := r.br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		_, _ = r.br.Discard(3) // a byte order mark, as some Windows tools write
	}
	values := 0
	for {
		c, err := r.skipSpace()
		if errors.Is(err, io.EOF) {
			if values == 0 {
				return goerr.Wrap(ErrInvalid, "alert is empty")
			}
			return nil
		}
		if err != nil {
			return err
		}
		values++
		at := Place{Line: r.line}
		before := r.count
		switch {
		case c == '[':
			var raw []byte
			if raw, err = r.value(at); r.tooLarge {
				// Too large to be one alert: a list of findings, read again an element at a time.
				r.rewind(at)
				_, _ = r.br.ReadByte()
				err = r.array(at, "", r.element)
			} else if err == nil {
				err = r.document(raw, at)
			}
		case c == '{' && r.peekFindings():
			err = r.findingsEnvelope(at)
		default:
			var raw []byte
			if raw, err = r.value(at); err == nil {
				err = r.document(raw, at)
			}
		}
		if err != nil {
			return err
		}
		if r.count == before {
			return invalid(at, "no findings in this value")
		}
	}
}

// skipSpace returns the next byte that is not JSON white space, unread, counting lines.
func (r *reader) skipSpace() (byte, error) {
	for {
		chunk, err := r.br.Peek(max(r.br.Buffered(), 1))
		if len(chunk) == 0 {
			return 0, err
		}
		for i, c := range chunk {
			switch c {
			case '\n':
				r.line++
			case ' ', '\t', '\r':
			default:
				_, _ = r.br.Discard(i)
				return c, nil
			}
		}
		_, _ = r.br.Discard(len(chunk))
	}
}

// value reads the next JSON value's bytes (not checked beyond its extent): an object or
// array to its closing bracket, a string, or a bare word up to a delimiter.
func (r *reader) value(at Place) ([]byte, error) {
	r.buf = r.buf[:0]
	first, err := r.br.Peek(1)
	if err != nil {
		return nil, invalid(at, "not valid JSON: unexpected end of input")
	}
	var st scanState
	switch first[0] {
	case '{', '[':
	case '"':
		st.inString, st.depth = true, 0
		_, _ = r.br.Discard(1)
		r.buf = append(r.buf, '"')
	default:
		st.bare = true
	}
	for {
		chunk, err := r.br.Peek(max(r.br.Buffered(), 1))
		if len(chunk) == 0 {
			if st.bare && len(r.buf) > 0 && errors.Is(err, io.EOF) {
				return r.buf, nil
			}
			if errors.Is(err, io.EOF) {
				return nil, invalid(at, "not valid JSON: unexpected end of input")
			}
			return nil, err
		}
		end := st.scan(chunk)
		if end == 0 && len(r.buf) == 0 {
			end = 1 // a delimiter where a value should be: read it, to be reported
		}
		n := end
		if end < 0 {
			n = len(chunk)
		}
		if len(r.buf)+n > r.max {
			r.tooLarge = true // what was read is in r.buf, for rewind
			return nil, invalid(at, "value is larger than the limit of %d bytes", r.max)
		}
		r.buf = append(r.buf, chunk[:n]...)
		r.line += bytes.Count(chunk[:n], []byte{'\n'})
		_, _ = r.br.Discard(n)
		if end >= 0 {
			return r.buf, nil
		}
	}
}

// scanState follows a JSON value across chunks: nesting, strings and their escapes.
type scanState struct {
	depth    int
	inString bool
	escape   bool
	bare     bool
}

// scan returns the index just after the value's end in chunk, or -1 when it goes on.
func (s *scanState) scan(chunk []byte) int {
	for i, c := range chunk {
		switch {
		case s.bare:
			switch c {
			case ' ', '\t', '\r', '\n', ',', ']', '}', '[', '{':
				return i
			}
		case s.escape:
			s.escape = false
		case s.inString:
			switch c {
			case '\\':
				s.escape = true
			case '"':
				s.inString = false
				if s.depth == 0 {
					return i + 1
				}
			}
		default:
			switch c {
			case '"':
				s.inString = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
				if s.depth <= 0 {
					return i + 1
				}
			}
		}
	}
	return -1
}

// array reads the elements of a list whose '[' was read, giving each to fn; an empty list
// is an error, since it adds nothing.
func (r *reader) array(at Place, path string, fn func([]byte, Place) error) error {
	n := 0
	for {
		c, err := r.skipSpace()
		if err != nil {
			return invalid(at, "unexpected end of input inside a list")
		}
		if c == ']' {
			_, _ = r.br.ReadByte()
			break
		}
		if n > 0 {
			if c != ',' {
				return invalid(Place{Line: r.line}, "not valid JSON: expected ',' or ']' after element %d of the list", n-1)
			}
			_, _ = r.br.ReadByte()
			if _, err := r.skipSpace(); err != nil {
				return invalid(at, "unexpected end of input inside a list")
			}
		}
		el := Place{Line: r.line, Path: fmt.Sprintf("%s[%d]", path, n)}
		raw, err := r.value(el)
		if err != nil {
			return err
		}
		if err := fn(raw, el); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return invalid(at, "the %slist is empty: no findings to add", strings.TrimPrefix(path+" ", " "))
	}
	return nil
}

// rewind makes what value read of the value at at unread again.
func (r *reader) rewind(at Place) {
	r.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(r.buf)), r.br), 64<<10)
	r.line, r.tooLarge = at.Line, false
}

func (r *reader) peekFindings() bool {
	b, _ := r.br.Peek(256)
	return findingsFirst.Match(b)
}

// findingsEnvelope streams {"Findings": [...], ...}: the list an element at a time, then the
// other members (NextToken, ...), checked and left out.
func (r *reader) findingsEnvelope(at Place) error {
	b, _ := r.br.Peek(256)
	m := findingsFirst.FindIndex(b)
	r.line += bytes.Count(b[:m[1]], []byte{'\n'})
	_, _ = r.br.Discard(m[1])
	if err := r.array(at, "Findings", r.leafElement); err != nil {
		return err
	}
	for {
		c, err := r.skipSpace()
		if err != nil {
			return invalid(at, "unexpected end of input inside the envelope")
		}
		_, _ = r.br.ReadByte()
		switch c {
		case '}':
			return nil
		case ',':
		default:
			return invalid(Place{Line: r.line}, "not valid JSON: expected ',' or '}' in the envelope")
		}
		for _, want := range []byte{0, ':', 0} {
			if _, err := r.skipSpace(); err != nil {
				return invalid(at, "unexpected end of input inside the envelope")
			}
			if want == ':' {
				if c, _ := r.br.ReadByte(); c != ':' {
					return invalid(Place{Line: r.line}, "not valid JSON: expected ':' in the envelope")
				}
				continue
			}
			raw, err := r.value(Place{Line: r.line})
			if err != nil {
				return err
			}
			if !json.Valid(raw) {
				return invalid(Place{Line: r.line}, "not valid JSON in the envelope")
			}
		}
	}
}

// decode checks and decodes one JSON value, numbers kept as written.
func decode(raw []byte, at Place) (any, error) {
	if !utf8.Valid(raw) {
		return nil, invalid(at, "not UTF-8 text (binary file?)")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid(at, "not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, invalid(at, "not valid JSON: trailing data after the value")
	}
	return v, nil
}

// document is one top-level value: a finding, an envelope, or a list of them.
func (r *reader) document(raw []byte, at Place) error {
	v, err := decode(raw, at)
	if err != nil {
		if utf8.Valid(raw) && raw[0] != '{' && raw[0] != '[' && raw[0] != '"' {
			return invalid(at, "not JSON (%s)", preview(raw))
		}
		return err
	}
	switch x := v.(type) {
	case map[string]any:
		return r.object(raw, x, at)
	case []any:
		if len(x) == 0 {
			return invalid(at, "the list is empty: no findings to add")
		}
		if !slices.ContainsFunc(x, isObject) {
			// Not a list of findings: one alert, as any JSON is.
			return r.emit(raw, x, facts{title: Title(x)}, at)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(raw, &raws); err != nil {
			return invalid(at, "not valid JSON: %v", err)
		}
		// A list of findings with something else among them is faulty, as it is when the list
		// is too large to be read whole.
		if i := slices.IndexFunc(x, func(el any) bool { return !isObject(el) }); i >= 0 {
			return invalid(at.in(fmt.Sprintf("[%d]", i)), "not a JSON object (%s)", preview(raws[i]))
		}
		for i, el := range raws {
			if err := r.object(el, x[i].(map[string]any), at.in(fmt.Sprintf("[%d]", i))); err != nil {
				return err
			}
		}
		return nil
	}
	return invalid(at, "not a JSON object or array (%s)", preview(raw))
}

func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func preview(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// decodeObject checks and decodes an element that must be an object.
func decodeObject(raw []byte, at Place) (map[string]any, error) {
	v, err := decode(raw, at)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid(at, "not a JSON object (%s)", preview(raw))
	}
	return m, nil
}

// element is an element of a top-level list: a finding or an envelope.
func (r *reader) element(raw []byte, at Place) error {
	m, err := decodeObject(raw, at)
	if err != nil {
		return err
	}
	return r.object(raw, m, at)
}

// leafElement is an element of an AWS Findings list: a finding.
func (r *reader) leafElement(raw []byte, at Place) error {
	m, err := decodeObject(raw, at)
	if err != nil {
		return err
	}
	return r.emit(raw, m, describe(m), at)
}

// sccKeys are the members of a Security Command Center list result and notification.
var sccKeys = map[string]bool{"finding": true, "resource": true, "notificationConfigName": true, "stateChange": true}

// object recognises an envelope by its members and emits its findings, or v itself.
func (r *reader) object(raw []byte, v map[string]any, at Place) error {
	if list, ok := v["Findings"].([]any); ok {
		return r.list(raw, []string{"Findings"}, list, at.in("Findings"))
	}
	if _, ok := v["detail-type"].(string); ok {
		if detail, ok := v["detail"].(map[string]any); ok {
			if list, ok := detail["findings"].([]any); ok {
				return r.list(raw, []string{"detail", "findings"}, list, at.in("detail.findings"))
			}
			f := describe(detail)
			if f.source == "" {
				src, _ := v["source"].(string)
				f.source = strings.TrimPrefix(src, "aws.")
			}
			if f.time.IsZero() {
				f.time = firstTime(v, "time")
			}
			if f.title == "" {
				f.title, _ = v["detail-type"].(string)
			}
			return r.emit(raw, detail, f, at)
		}
	}
	if finding, ok := v["finding"].(map[string]any); ok && onlyKeys(v, sccKeys) {
		return r.emit(raw, finding, sccFacts(finding), at)
	}
	return r.emit(raw, v, describe(v), at)
}

func onlyKeys(v map[string]any, allowed map[string]bool) bool {
	for k := range v {
		if !allowed[k] {
			return false
		}
	}
	return true
}

// list emits the findings of the list found at path inside raw (decoded: items), each stored
// as given in the input.
func (r *reader) list(raw []byte, path []string, items []any, at Place) error {
	if len(items) == 0 {
		return invalid(at, "the list is empty: no findings to add")
	}
	cur := json.RawMessage(raw)
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cur, &m); err != nil {
			return invalid(at, "not valid JSON: %v", err)
		}
		cur = m[k]
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(cur, &raws); err != nil || len(raws) != len(items) {
		return invalid(at, "not a list of findings")
	}
	for i, el := range raws {
		p := at
		p.Path += fmt.Sprintf("[%d]", i)
		m, ok := items[i].(map[string]any)
		if !ok {
			return invalid(p, "not a JSON object (%s)", preview(el))
		}
		if err := r.emit(el, m, describe(m), p); err != nil {
			return err
		}
	}
	return nil
}

// emit yields one finding: identified by the canonical JSON of the finding itself, stored as
// the part of the input that holds it (data, which may be its envelope: an SCC notification,
// an EventBridge event).
func (r *reader) emit(data []byte, finding any, f facts, at Place) error {
	canonical, err := canonicalJSON(finding)
	if err != nil {
		return invalid(at, "cannot read the finding: %v", err)
	}
	a := &record.Alert{
		ID:    record.AlertID(uuid.NewSHA1(namespace, canonical).String()),
		Title: f.title, Severity: f.severity, Source: f.source, Time: f.time,
		Data: bytes.Clone(bytes.TrimSpace(data)),
	}
	r.count++
	if !r.yield(Finding{Alert: a, Place: at}, nil) {
		return errStopped
	}
	return nil
}
