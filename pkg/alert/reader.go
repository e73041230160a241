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

// Options tune a read.
type Options struct {
	// MaxSize is the largest finding, in bytes (0: MaxSize).
	MaxSize int
	// AllEvents keeps the events of a stream that are not alerts (Suricata's flow, dns, stats,
	// ... records), which are otherwise left out and counted in Stats.
	AllEvents bool
}

// Stats say what a read left out: nothing of it is an error.
type Stats struct {
	// Skipped counts the events that are not alerts, by kind (Suricata's event_type).
	Skipped map[string]int
	// Empty names the envelopes that held no finding ("Findings", "listFindingsResults", ...).
	Empty []string
}

// SkippedTotal is how many events were skipped.
func (s *Stats) SkippedTotal() int {
	n := 0
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

// SkippedSummary says what was skipped, most frequent kind first: "skipped 11 events that are
// not alerts: flow 5, dns 3, ...", or "" when nothing was.
func (s *Stats) SkippedSummary() string {
	total := s.SkippedTotal()
	if total == 0 {
		return ""
	}
	kinds := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if d := s.Skipped[b] - s.Skipped[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, s.Skipped[k])
	}
	what := "events that are not alerts"
	if total == 1 {
		what = "event that is not an alert"
	}
	return fmt.Sprintf("skipped %d %s: %s", total, what, strings.Join(parts, ", "))
}

func (s *Stats) skip(kind string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	s.Skipped[kind]++
}

// Read reads every finding of an input as the design's "Alerts as the tools deliver them" has
// it, with the default Options (events that are not alerts left out).
func Read(in io.Reader, maxSize int) iter.Seq2[Finding, error] {
	return ReadWith(in, Options{MaxSize: maxSize}, nil)
}

// ReadWith reads every finding of an input, in order, as a stream: the input is a sequence of
// JSON values (one document, newline-delimited JSON, or values one after another as jq prints
// them), each a finding, a list of findings or an envelope of them (see the README's "Alerts
// as the tools deliver them"). A top-level array and an envelope that starts with its list
// (AWS {"Findings": [...]}, GuardDuty's {"findings": [...]}, SCC's {"listFindingsResults":
// [...]}) are read an element at a time, so memory holds one value (at most opts.MaxSize bytes)
// whatever the input's size. An envelope with no finding and an event that is not an alert
// add nothing and are counted in st (which may be nil).
//
// The sequence ends after the first error, which names its place and wraps ErrInvalid when the
// input is at fault (a read error is returned as it is). Nothing is deduplicated here.
func ReadWith(in io.Reader, opts Options, st *Stats) iter.Seq2[Finding, error] {
	return read(in, opts, st, true)
}

// read is ReadWith; quick lets events be skipped without decoding them (off in tests that
// hold the two ways to the same answer).
func read(in io.Reader, opts Options, st *Stats, quick bool) iter.Seq2[Finding, error] {
	if opts.MaxSize <= 0 {
		opts.MaxSize = MaxSize
	}
	if st == nil {
		st = &Stats{}
	}
	return func(yield func(Finding, error) bool) {
		size := 64 << 10
		if l, ok := in.(interface{ Len() int }); ok && l.Len()+1 < size {
			size = l.Len() + 1
		}
		r := &reader{br: bufio.NewReaderSize(in, max(size, 512)), line: 1, max: opts.MaxSize, all: opts.AllEvents, quick: quick, stats: st, yield: yield}
		if err := r.run(); err != nil && !errors.Is(err, errStopped) {
			yield(Finding{}, err)
		}
	}
}

// Parse reads every finding of data (see ReadWith), every event of a stream kept: it is what
// a stored alert's data reads as.
func Parse(data []byte) ([]Finding, error) {
	var out []Finding
	for f, err := range ReadWith(bytes.NewReader(data), Options{AllEvents: true}, nil) {
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
	// all keeps events that are not alerts; stats counts what was left out.
	all   bool
	quick bool
	stats *Stats
	left  int // values left out: skipped events and empty envelopes
	keys  [][]byte
	// tooLarge is set when value stopped at the size limit.
	tooLarge bool
}

func invalid(p Place, format string, args ...any) error {
	return goerr.Wrap(ErrInvalid, p.String()+": "+fmt.Sprintf(format, args...))
}

// findingsFirst matches the start of an envelope whose list comes first, as the AWS CLI prints
// it ({"Findings": [...]}), as GuardDuty's API returns it ({"findings": [...]}) and as
// Security Command Center's REST API does ({"listFindingsResults": [...]}).
var findingsFirst = regexp.MustCompile(`^\{\s*"(Findings|findings|listFindingsResults)"\s*:\s*\[`)

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
		before := r.count + r.left
		switch {
		case c == '[':
			var raw []byte
			if raw, err = r.value(at); r.tooLarge {
				// Too large to be one alert: a list of findings, read again an element at a time.
				r.rewind(at)
				_, _ = r.br.ReadByte()
				_, err = r.array(at, "", r.element)
			} else if err == nil {
				err = r.document(raw, at)
			}
		case c == '{' && r.peekFindings():
			err = r.findingsEnvelope(at)
		default:
			var raw []byte
			if raw, err = r.value(at); err == nil {
				if kind, ok := r.quickEvent(raw); ok {
					// An event that is not an alert, left out without decoding it: a stream of
					// them is most of an eve.json.
					r.stats.skip(kind)
					r.left++
					continue
				}
				err = r.document(raw, at)
			}
		}
		if err != nil {
			return err
		}
		if r.count+r.left == before {
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
	for i := 0; i < len(chunk); i++ {
		c := chunk[i]
		if s.inString && !s.escape && c != '"' && c != '\\' {
			// Inside a string only a quote or a backslash matters: jump to the next one
			// (most of an event's bytes are strings).
			j := bytes.IndexByte(chunk[i:], '"')
			if j < 0 {
				j = len(chunk) - i
			}
			if k := bytes.IndexByte(chunk[i:i+j], '\\'); k >= 0 {
				j = k
			}
			if i += j; i == len(chunk) {
				break
			}
			c = chunk[i]
		}
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

// array reads the elements of a list whose '[' was read, giving each to fn, and returns how
// many there were.
func (r *reader) array(at Place, path string, fn func([]byte, Place) error) (int, error) {
	n := 0
	for {
		c, err := r.skipSpace()
		if err != nil {
			return n, invalid(at, "unexpected end of input inside a list")
		}
		if c == ']' {
			_, _ = r.br.ReadByte()
			break
		}
		if n > 0 {
			if c != ',' {
				return n, invalid(Place{Line: r.line}, "not valid JSON: expected ',' or ']' after element %d of the list", n-1)
			}
			_, _ = r.br.ReadByte()
			if _, err := r.skipSpace(); err != nil {
				return n, invalid(at, "unexpected end of input inside a list")
			}
		}
		el := Place{Line: r.line, Path: fmt.Sprintf("%s[%d]", path, n)}
		raw, err := r.value(el)
		if err != nil {
			return n, err
		}
		if err := fn(raw, el); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// empty counts an envelope (or list) that holds no finding: nothing to add, and no fault.
func (r *reader) empty(name string) {
	r.stats.Empty = append(r.stats.Empty, name)
	r.left++
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

// findingsEnvelope streams {"Findings": [...], ...} (or the envelopes of findingsFirst): the
// list an element at a time, then the other members (NextToken, readTime, ...), checked and
// left out.
func (r *reader) findingsEnvelope(at Place) error {
	b, _ := r.br.Peek(256)
	m := findingsFirst.FindSubmatchIndex(b)
	name := string(b[m[2]:m[3]])
	r.line += bytes.Count(b[:m[1]], []byte{'\n'})
	_, _ = r.br.Discard(m[1])
	each := r.leafElement
	if name == sccListKey {
		each = r.element
	}
	n, err := r.array(at, name, each)
	if err != nil {
		return err
	}
	if n == 0 {
		r.empty(name)
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
			// gcloud's list of findings when there are none.
			r.empty("[]")
			return nil
		}
		if !slices.ContainsFunc(x, isObject) {
			// Not a list of findings: one alert, as any JSON is.
			return r.emit(raw, x, facts{title: listTitle(x)}, at)
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

// sccListKey holds the results of Security Command Center's REST findings.list.
const sccListKey = "listFindingsResults"

// sccListKeys are the members of that response (an empty one may hold readTime alone).
var sccListKeys = map[string]bool{sccListKey: true, "readTime": true, "totalSize": true, "nextPageToken": true}

// object recognises an envelope by its members and emits its findings, or v itself.
func (r *reader) object(raw []byte, v map[string]any, at Place) error {
	for _, k := range []string{"Findings", "findings"} {
		if list, ok := v[k].([]any); ok {
			return r.list(raw, []string{k}, list, at.in(k), r.leaf)
		}
	}
	if _, ok := v["readTime"]; ok && onlyKeys(v, sccListKeys) {
		list, _ := v[sccListKey].([]any)
		return r.list(raw, []string{sccListKey}, list, at.in(sccListKey), r.object)
	}
	if _, ok := v["detail-type"].(string); ok {
		if detail, ok := v["detail"].(map[string]any); ok {
			if list, ok := detail["findings"].([]any); ok {
				return r.list(raw, []string{"detail", "findings"}, list, at.in("detail.findings"), r.leaf)
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

// leaf emits an element of a list of findings.
func (r *reader) leaf(raw []byte, m map[string]any, at Place) error {
	return r.emit(raw, m, describe(m), at)
}

// list gives each element of the list found at path inside raw (decoded: items) to each, as
// given in the input; an empty list adds nothing.
func (r *reader) list(raw []byte, path []string, items []any, at Place, each func([]byte, map[string]any, Place) error) error {
	if len(items) == 0 {
		r.empty(strings.Join(path, "."))
		return nil
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
		if err := each(el, m, p); err != nil {
			return err
		}
	}
	return nil
}

// emit yields one finding: identified by the canonical JSON of the finding itself, stored as
// the part of the input that holds it (data, which may be its envelope: an SCC notification,
// an EventBridge event).
func (r *reader) emit(data []byte, finding any, f facts, at Place) error {
	if f.event != "" && !r.all {
		r.stats.skip(f.event)
		r.left++
		return nil
	}
	if f.title == "" {
		f.title = recordTitle(finding)
	}
	canonical, err := canonicalJSON(finding)
	if err != nil {
		return invalid(at, "cannot read the finding: %v", err)
	}
	a := &record.Alert{
		ID:    record.AlertID(uuid.NewSHA1(namespace, canonical).String()),
		Title: f.title, Severity: f.severity, Source: f.source, Time: f.time, Status: f.status,
		Data: bytes.Clone(bytes.TrimSpace(data)),
	}
	r.count++
	if !r.yield(Finding{Alert: a, Place: at}, nil) {
		return errStopped
	}
	return nil
}
