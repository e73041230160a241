package evidence

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// A Windows event log (.evtx) is a file header, then chunks of 64 KB; each chunk holds event
// records whose content is binary XML ("BinXML") with templates defined once per chunk and
// filled by each record's substitution values ([MS-EVEN6] and the libyal documentation of the
// format). The reader below is written for this package rather than taken from a library: the
// one Go parser served is GPL-3.0, panics inside its own goroutines on damaged input (which no
// caller can recover) and is no longer maintained. This one keeps every read inside its chunk,
// bounds nesting and work per record, and skips and counts a damaged chunk or record.
const (
	evtxFileMagic  = "ElfFile\x00"
	evtxChunkMagic = "ElfChnk\x00"
	evtxHeaderSize = 4096
	evtxChunkSize  = 64 << 10
	// evtxChunkHeader is where a chunk's records begin.
	evtxChunkHeader = 512
	// evtxMaxDepth bounds elements and templates nested in one record; evtxMaxSteps the tokens
	// and evtxMaxText the bytes of text one record may expand to (a template can name itself,
	// or a value be used many times). Real events expand to a few kilobytes.
	evtxMaxDepth = 64
	evtxMaxSteps = 1 << 18
	evtxMaxText  = 1 << 20
)

// evtxColumns are the design's columns of an event log's table.
var evtxColumns = []string{"EventID", "TimeCreated", "Computer", "Channel", "Provider", "EventRecordID", "Level", "UserID", "EventData"}

var errEVTX = errors.New("damaged event record")

// readEVTX reads a Windows event log's events, one row per event with evtxColumns. A damaged
// chunk or record is skipped and counted; a file that does not begin as an event log is an
// error.
func readEVTX(ra io.ReaderAt, size int64, emit func(record) error) (parseStats, error) {
	var st parseStats
	var head [8]byte
	if _, err := ra.ReadAt(head[:], 0); err != nil || string(head[:]) != evtxFileMagic {
		return st, fmt.Errorf("not a Windows event log")
	}
	if err := emit(record{keys: evtxColumns, schema: true}); err != nil {
		return st, err
	}
	chunk := make([]byte, evtxChunkSize)
	for off := int64(evtxHeaderSize); off < size; off += evtxChunkSize {
		n, err := ra.ReadAt(chunk, off)
		if err != nil && !errors.Is(err, io.EOF) {
			return st, err
		}
		c := chunk[:n]
		if n < 8 || string(c[:8]) != evtxChunkMagic {
			continue // space the log allocated and has not used yet (zeros or old bytes)
		}
		if n < evtxChunkSize {
			st.skipped++ // a cut chunk
			continue
		}
		if err := readEVTXChunk(c, &st, emit); err != nil {
			return st, err
		}
	}
	return st, nil
}

// readEVTXChunk emits the events of one chunk. Only emit's error ends the reading.
func readEVTXChunk(c []byte, st *parseStats, emit func(record) error) error {
	free := int(binary.LittleEndian.Uint32(c[48:]))
	if free > len(c) || free < evtxChunkHeader {
		free = len(c)
	}
	p := &bxml{c: c, names: map[uint32]string{}}
	for pos := evtxChunkHeader; pos+28 <= free; {
		if string(c[pos:pos+4]) != "\x2a\x2a\x00\x00" {
			st.skipped++ // the rest of the chunk cannot be followed
			return nil
		}
		size := int(binary.LittleEndian.Uint32(c[pos+4:]))
		if size < 28 || pos+size > len(c) {
			st.skipped++
			return nil
		}
		id := binary.LittleEndian.Uint64(c[pos+8:])
		root := &xnode{}
		p.steps, p.text = 0, 0
		if err := p.fragment(pos+24, pos+size-4, nil, root, 0, false); err != nil {
			st.skipped++
		} else {
			if err := emit(record{keys: evtxColumns, typed: evtxRow(root, id)}); err != nil {
				return err
			}
			st.rows++
		}
		pos += size
	}
	return nil
}

// xnode is an element of an event's XML.
type xnode struct {
	name  string
	attrs []*xattr
	kids  []*xnode
	text  strings.Builder
}

type xattr struct {
	name  string
	value strings.Builder
}

func (n *xnode) child(name string) *xnode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (n *xnode) attr(name string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.name == name {
			return a.value.String()
		}
	}
	return ""
}

func (n *xnode) value() string {
	if n == nil {
		return ""
	}
	return n.text.String()
}

// evtxRow is the design's row of an event.
func evtxRow(root *xnode, recordID uint64) []any {
	ev := root.child("Event")
	sys := ev.child("System")
	row := make([]any, len(evtxColumns))
	row[0] = intOrNil(sys.child("EventID").value())
	if t := sys.child("TimeCreated").attr("SystemTime"); t != "" {
		row[1] = t
	}
	row[2] = textOrNil(sys.child("Computer").value())
	row[3] = textOrNil(sys.child("Channel").value())
	row[4] = textOrNil(sys.child("Provider").attr("Name"))
	if id := intOrNil(sys.child("EventRecordID").value()); id != nil {
		row[5] = id
	} else if recordID <= math.MaxInt64 {
		row[5] = int64(recordID)
	}
	row[6] = intOrNil(sys.child("Level").value())
	row[7] = textOrNil(sys.child("Security").attr("UserID"))
	row[8] = eventData(ev)
	return row
}

func intOrNil(s string) any {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64); err == nil {
		return n
	}
	return nil
}

func textOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// eventData is an event's named data as a JSON object: EventData's Data elements by their
// Name (unnamed ones as the array "Data", a Binary element as "Binary"), or UserData's
// element's children by their names.
func eventData(ev *xnode) any {
	m := map[string]any{}
	if ed := ev.child("EventData"); ed != nil {
		var unnamed []string
		for _, d := range ed.kids {
			switch name := d.attr("Name"); {
			case d.name == "Data" && name != "":
				m[name] = d.value()
			case d.name == "Data":
				unnamed = append(unnamed, d.value())
			default:
				m[d.name] = d.value()
			}
		}
		if len(unnamed) > 0 {
			m["Data"] = unnamed
		}
	} else if ud := ev.child("UserData"); ud != nil && len(ud.kids) > 0 {
		for _, d := range ud.kids[0].kids {
			m[d.name] = d.value()
		}
	}
	if len(m) == 0 {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// bxml reads the binary XML of one chunk. Every offset is one into the chunk, as the format's
// name and template offsets are.
type bxml struct {
	c     []byte
	names map[uint32]string
	// steps and text count what the current record expanded to.
	steps, text int
}

// subst is one substitution value of a template instance: its type and bytes in the chunk.
type subst struct {
	typ       byte
	off, size int
}

func (p *bxml) u16(pos int) (int, error) {
	if pos < 0 || pos+2 > len(p.c) {
		return 0, errEVTX
	}
	return int(binary.LittleEndian.Uint16(p.c[pos:])), nil
}

func (p *bxml) u32(pos int) (int, error) {
	if pos < 0 || pos+4 > len(p.c) {
		return 0, errEVTX
	}
	return int(binary.LittleEndian.Uint32(p.c[pos:])), nil
}

// name reads the name whose offset is at pos and returns it with the position after the
// reference: a name defined right there (its offset is where it is) is stepped over.
func (p *bxml) name(pos int) (string, int, error) {
	off, err := p.u32(pos)
	if err != nil {
		return "", 0, err
	}
	pos += 4
	n, err := p.u16(off + 6)
	if err != nil {
		return "", 0, err
	}
	if off+8+2*n > len(p.c) {
		return "", 0, errEVTX
	}
	if off == pos {
		pos += 8 + 2*n + 2
	}
	if s, ok := p.names[uint32(off)]; ok {
		return s, pos, nil
	}
	s := utf16String(p.c[off+8 : off+8+2*n])
	p.names[uint32(off)] = s
	return s, pos, nil
}

// fragment reads the BinXML in [pos, end) into parent, with subs the values of the template
// being filled (nil outside one). depId says element starts carry a dependency identifier (in
// a template's definition).
func (p *bxml) fragment(pos, end int, subs []subst, parent *xnode, depth int, depID bool) error {
	if depth > evtxMaxDepth || end > len(p.c) || pos < 0 {
		return errEVTX
	}
	stack := []*xnode{parent}
	var attr *xattr // the attribute whose value is being read
	put := func(s string) {
		if p.text += len(s); p.text > evtxMaxText {
			return
		}
		if attr != nil {
			attr.value.WriteString(s)
			return
		}
		stack[len(stack)-1].text.WriteString(s)
	}
	for pos < end {
		if p.steps++; p.steps > evtxMaxSteps || p.text > evtxMaxText {
			return errEVTX
		}
		tok := p.c[pos]
		switch tok &^ 0x40 {
		case 0x00: // end of fragment
			return nil
		case 0x0f: // fragment header
			pos += 4
		case 0x01: // element start
			pos++
			if depID {
				pos += 2
			}
			pos += 4 // data size
			name, next, err := p.name(pos)
			if err != nil {
				return err
			}
			pos = next
			if tok&0x40 != 0 {
				pos += 4 // attribute list size
			}
			if len(stack) > evtxMaxDepth {
				return errEVTX
			}
			n := &xnode{name: name}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
			attr = nil
		case 0x02: // end of the start tag
			pos++
			attr = nil
		case 0x03, 0x04: // empty element end, element end
			pos++
			attr = nil
			if len(stack) == 1 {
				return errEVTX
			}
			stack = stack[:len(stack)-1]
		case 0x05: // value
			if pos+4 > end {
				return errEVTX
			}
			typ := p.c[pos+1]
			n, err := p.u16(pos + 2)
			if err != nil {
				return err
			}
			size := 2 * n
			if typ != 0x01 { // a value token holds a string; anything else is not followed
				return errEVTX
			}
			if pos+4+size > end {
				return errEVTX
			}
			put(utf16String(p.c[pos+4 : pos+4+size]))
			pos += 4 + size
		case 0x06: // attribute
			name, next, err := p.name(pos + 1)
			if err != nil {
				return err
			}
			pos = next
			top := stack[len(stack)-1]
			attr = &xattr{name: name}
			top.attrs = append(top.attrs, attr)
		case 0x07: // CDATA
			n, err := p.u16(pos + 1)
			if err != nil || pos+3+2*n > end {
				return errEVTX
			}
			put(utf16String(p.c[pos+3 : pos+3+2*n]))
			pos += 3 + 2*n
		case 0x08: // character reference
			n, err := p.u16(pos + 1)
			if err != nil {
				return err
			}
			put(string(rune(n)))
			pos += 3
		case 0x09: // entity reference
			name, next, err := p.name(pos + 1)
			if err != nil {
				return err
			}
			put(map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'"}[name])
			pos = next
		case 0x0a: // processing instruction target
			_, next, err := p.name(pos + 1)
			if err != nil {
				return err
			}
			pos = next
		case 0x0b: // processing instruction data
			n, err := p.u16(pos + 1)
			if err != nil {
				return err
			}
			pos += 3 + 2*n
		case 0x0c: // template instance
			next, err := p.template(pos, end, stack[len(stack)-1], depth)
			if err != nil {
				return err
			}
			pos = next
		case 0x0d, 0x0e: // substitution, optional substitution
			i, err := p.u16(pos + 1)
			if err != nil {
				return err
			}
			pos += 4
			if i >= len(subs) {
				if tok&^0x40 == 0x0e {
					continue
				}
				return errEVTX
			}
			v := subs[i]
			if v.typ == 0x21 { // BinXML: elements of its own, under the current one
				if v.size > 0 {
					if err := p.fragment(v.off, v.off+v.size, nil, stack[len(stack)-1], depth+1, false); err != nil {
						return err
					}
				}
				continue
			}
			put(p.valueText(v))
		default:
			return errEVTX
		}
	}
	return nil
}

// template reads the template instance at pos: its definition (right there, or earlier in the
// chunk) and its values, and fills the definition into parent. It returns the position after
// the values.
func (p *bxml) template(pos, end int, parent *xnode, depth int) (int, error) {
	def, err := p.u32(pos + 6)
	if err != nil {
		return 0, err
	}
	pos += 10
	dataSize, err := p.u32(def + 20)
	if err != nil {
		return 0, err
	}
	body := def + 24
	if body+dataSize > len(p.c) || dataSize < 0 {
		return 0, errEVTX
	}
	if def == pos {
		pos = body + dataSize
	}
	count, err := p.u32(pos)
	if err != nil || count > 4096 || pos+4+4*count > end {
		return 0, errEVTX
	}
	subs := make([]subst, count)
	off := pos + 4 + 4*count
	for i := range subs {
		size, _ := p.u16(pos + 4 + 4*i)
		subs[i] = subst{typ: p.c[pos+4+4*i+2], off: off, size: size}
		off += size
	}
	if off > end {
		return 0, errEVTX
	}
	if err := p.fragment(body, body+dataSize, subs, parent, depth+1, true); err != nil {
		return 0, err
	}
	return off, nil
}

// valueText is a substitution value as the event's XML shows it.
func (p *bxml) valueText(v subst) string {
	b := p.c[v.off : v.off+v.size]
	le := binary.LittleEndian
	if v.typ&0x80 != 0 { // an array
		return p.arrayText(v)
	}
	switch v.typ {
	case 0x00:
		return ""
	case 0x01:
		return strings.TrimRight(utf16String(b), "\x00")
	case 0x02:
		return strings.TrimRight(string(b), "\x00")
	case 0x03:
		if len(b) >= 1 {
			return strconv.Itoa(int(int8(b[0])))
		}
	case 0x04:
		if len(b) >= 1 {
			return strconv.Itoa(int(b[0]))
		}
	case 0x05:
		if len(b) >= 2 {
			return strconv.Itoa(int(int16(le.Uint16(b))))
		}
	case 0x06:
		if len(b) >= 2 {
			return strconv.Itoa(int(le.Uint16(b)))
		}
	case 0x07:
		if len(b) >= 4 {
			return strconv.FormatInt(int64(int32(le.Uint32(b))), 10)
		}
	case 0x08:
		if len(b) >= 4 {
			return strconv.FormatUint(uint64(le.Uint32(b)), 10)
		}
	case 0x09:
		if len(b) >= 8 {
			return strconv.FormatInt(int64(le.Uint64(b)), 10)
		}
	case 0x0a:
		if len(b) >= 8 {
			return strconv.FormatUint(le.Uint64(b), 10)
		}
	case 0x0b:
		if len(b) >= 4 {
			return strconv.FormatFloat(float64(math.Float32frombits(le.Uint32(b))), 'g', -1, 32)
		}
	case 0x0c:
		if len(b) >= 8 {
			return strconv.FormatFloat(math.Float64frombits(le.Uint64(b)), 'g', -1, 64)
		}
	case 0x0d:
		if len(b) >= 4 {
			return strconv.FormatBool(le.Uint32(b) != 0)
		}
	case 0x0e:
		return strings.ToUpper(hex.EncodeToString(b))
	case 0x0f:
		if len(b) >= 16 {
			return fmt.Sprintf("{%08X-%04X-%04X-%X-%X}", le.Uint32(b), le.Uint16(b[4:]), le.Uint16(b[6:]), b[8:10], b[10:16])
		}
	case 0x10, 0x14, 0x15: // size_t and the hexadecimal integers
		switch len(b) {
		case 4:
			return fmt.Sprintf("0x%x", le.Uint32(b))
		case 8:
			return fmt.Sprintf("0x%x", le.Uint64(b))
		}
	case 0x11:
		if len(b) >= 8 {
			return filetime(le.Uint64(b))
		}
	case 0x12:
		if len(b) >= 16 {
			t := time.Date(int(le.Uint16(b)), time.Month(le.Uint16(b[2:])), int(le.Uint16(b[6:])), int(le.Uint16(b[8:])),
				int(le.Uint16(b[10:])), int(le.Uint16(b[12:])), int(le.Uint16(b[14:]))*int(time.Millisecond), time.UTC)
			return t.Format(time.RFC3339Nano)
		}
	case 0x13:
		return sidText(b)
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// arrayText is an array value's items, comma separated (strings are NUL-terminated, other
// items of their type's size).
func (p *bxml) arrayText(v subst) string {
	b := p.c[v.off : v.off+v.size]
	typ := v.typ &^ 0x80
	var items []string
	if typ == 0x01 {
		for _, s := range strings.Split(utf16String(b), "\x00") {
			if s != "" {
				items = append(items, s)
			}
		}
		return strings.Join(items, ",")
	}
	width := map[byte]int{0x03: 1, 0x04: 1, 0x05: 2, 0x06: 2, 0x07: 4, 0x08: 4, 0x09: 8, 0x0a: 8, 0x0b: 4, 0x0c: 8,
		0x0d: 4, 0x0f: 16, 0x11: 8, 0x12: 16, 0x14: 4, 0x15: 8}[typ]
	if width == 0 {
		return strings.ToUpper(hex.EncodeToString(b))
	}
	for i := 0; i+width <= len(b); i += width {
		items = append(items, p.valueText(subst{typ: typ, off: v.off + i, size: width}))
	}
	return strings.Join(items, ",")
}

// filetime is a Windows FILETIME (100 ns since 1601) as RFC 3339 text in UTC.
func filetime(ft uint64) string {
	const epochDiff = 116444736000000000 // 1601 to 1970 in 100 ns
	if ft < epochDiff || ft > epochDiff+math.MaxInt64/100 {
		return strconv.FormatUint(ft, 10)
	}
	d := ft - epochDiff
	return time.Unix(int64(d/1e7), int64(d%1e7)*100).UTC().Format(time.RFC3339Nano)
}

// sidText is a security identifier as S-1-5-21-....
func sidText(b []byte) string {
	if len(b) < 8 || len(b) < 8+4*int(b[1]) {
		return strings.ToUpper(hex.EncodeToString(b))
	}
	var auth uint64
	for _, c := range b[2:8] {
		auth = auth<<8 | uint64(c)
	}
	s := fmt.Sprintf("S-%d-%d", b[0], auth)
	for i := 0; i < int(b[1]); i++ {
		s += "-" + strconv.FormatUint(uint64(binary.LittleEndian.Uint32(b[8+4*i:])), 10)
	}
	return s
}

// utf16String decodes little-endian UTF-16.
func utf16String(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
