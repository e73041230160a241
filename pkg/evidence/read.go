package evidence

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Kinds of files.
const (
	kindNDJSON  = "ndjson"
	kindJSON    = "json"
	kindCSV     = "csv"
	kindZeek    = "zeek"
	kindW3C     = "w3c"
	kindParquet = "parquet"
	kindEVTX    = "evtx"
	kindText    = "text"
	kindBinary  = "binary"
)

// Bounds on what untrusted files may cost.
const (
	// maxRecord is the largest record (an NDJSON line, a JSON array element, a CSV row) read;
	// a larger NDJSON line or CSV row is skipped, a larger JSON element ends the file.
	maxRecord = 16 << 20
	// bombRatio and bombFloor bound what a .gz file may decompress to: the larger of
	// bombRatio times its own size and bombFloor. Logs compress 5-30x; a gzip bomb 1000x.
	bombRatio = 200
	bombFloor = 256 << 20
	// sniffSize is how much of a file is read to tell its kind.
	sniffSize = 64 << 10
)

// errTooLarge is a .gz file that decompresses past its bound.
type errTooLarge struct {
	path  string
	limit int64
}

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("%s decompresses to more than %d MB (%d times its size): not read", e.path, e.limit>>20, bombRatio)
}

// gzipBound is the most a .gz file of size bytes may decompress to.
func gzipBound(size, floor int64) int64 { return max(floor, size*bombRatio) }

// reader is an open file, decompressed when it ends in .gz.
type reader struct {
	io.Reader
	closers []io.Closer
}

func (r *reader) Close() error {
	var first error
	for i := len(r.closers) - 1; i >= 0; i-- {
		if err := r.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openEntry opens e for reading, gzip read through and bounded.
func openEntry(e entry, floor int64) (*reader, error) {
	fd, size, err := e.open()
	if err != nil {
		return nil, err
	}
	r := &reader{Reader: fd, closers: []io.Closer{fd}}
	gz := isGzip(e.rel)
	if t, ok := fd.(interface{ transcoded() (bool, error) }); ok && gz {
		tr, err := t.transcoded()
		if err != nil {
			_ = r.Close()
			return nil, fmt.Errorf("%s cannot be read: %v", e.logical(), err)
		}
		if tr { // decompressed by the server: bounded as the gzip reader would be
			limit := gzipBound(size, floor)
			r.Reader, gz = &boundReader{r: fd, left: limit, err: &errTooLarge{path: e.logical(), limit: limit}}, false
		}
	}
	if gz {
		zr, err := gzip.NewReader(bufio.NewReaderSize(fd, 256<<10))
		if err != nil {
			_ = r.Close()
			return nil, fmt.Errorf("%s is not gzip data", e.logical())
		}
		r.closers = append(r.closers, zr)
		limit := gzipBound(size, floor)
		r.Reader = &boundReader{r: zr, left: limit, err: &errTooLarge{path: e.logical(), limit: limit}}
	}
	dec, err := decodeText(r.Reader)
	if err != nil {
		_ = r.Close()
		var tl *errTooLarge
		if errors.As(err, &tl) {
			return nil, err
		}
		if isGzip(e.rel) {
			return nil, fmt.Errorf("%s is not gzip data", e.logical())
		}
		return nil, err
	}
	r.Reader = dec
	return r, nil
}

// decodeText reads r's byte order mark: a UTF-8 one is dropped, and UTF-16 with one (what
// Windows PowerShell 5.1's Out-File writes) is decoded to UTF-8 as it streams, so every reader
// (the sniff, the tables, grep) sees UTF-8 text. Without a mark the bytes are r's own.
func decodeText(r io.Reader) (io.Reader, error) {
	var head [3]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	b := head[:n]
	rest := func(skip int) io.Reader {
		if skip == len(b) {
			return r
		}
		return io.MultiReader(bytes.NewReader(b[skip:]), r)
	}
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return rest(3), nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return transform.NewReader(rest(2), unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()), nil
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return transform.NewReader(rest(2), unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()), nil
	}
	return rest(0), nil
}

func isGzip(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".gz") }

// boundReader fails with err once more than left bytes were read.
type boundReader struct {
	r    io.Reader
	left int64
	err  error
}

func (b *boundReader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, b.err
	}
	return n, err
}

// recordReader counts what was read since the last record began, so that one record cannot
// make a decoder buffer more than maxRecord.
type recordReader struct {
	r     io.Reader
	since int64
}

var errRecordTooLarge = fmt.Errorf("a record is larger than %d MB", maxRecord>>20)

func (c *recordReader) Read(p []byte) (int, error) {
	if c.since > maxRecord {
		return 0, errRecordTooLarge
	}
	n, err := c.r.Read(p)
	c.since += int64(n)
	return n, err
}

func (c *recordReader) mark() { c.since = 0 }

// stripExt drops the extensions the design names, repeatedly (x.json.gz -> x).
func stripExt(p string) string {
	for {
		ext := strings.ToLower(path.Ext(p))
		switch ext {
		case ".gz", ".json", ".ndjson", ".jsonl", ".csv", ".tsv", ".log", ".parquet", ".evtx":
			p = p[:len(p)-len(ext)]
		default:
			return p
		}
	}
}

// identifier makes every character outside [A-Za-z0-9_] a "_".
func identifier(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	// A multi-byte character became several "_"; that is the design's rule, kept as it is.
	return string(b)
}

// tableName is the design's name for the file at logical path p.
func tableName(p string) string { return identifier(stripExt(p)) }

// sniff tells e's kind from its name and first bytes.
func sniff(e entry, floor int64) (string, error) {
	name := strings.ToLower(e.rel)
	if isGzip(name) {
		name = name[:len(name)-3]
	}
	r, err := openEntry(e, floor)
	if err != nil {
		return "", err
	}
	defer r.Close()
	head := make([]byte, sniffSize)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		var tl *errTooLarge
		if errors.As(err, &tl) {
			return "", err
		}
		if isGzip(e.rel) {
			return "", fmt.Errorf("%s is not gzip data", e.logical())
		}
		return "", err
	}
	head = head[:n]
	ext := path.Ext(name)
	if ext == ".parquet" {
		if isGzip(e.rel) || !bytes.HasPrefix(head, []byte(parquetMagic)) {
			return kindBinary, fmt.Errorf("%s is not a Parquet file", e.logical())
		}
		return kindParquet, nil
	}
	if ext == ".evtx" {
		if isGzip(e.rel) || !bytes.HasPrefix(head, []byte(evtxFileMagic)) {
			return kindBinary, fmt.Errorf("%s is not a Windows event log", e.logical())
		}
		return kindEVTX, nil
	}
	if ext != ".json" && ext != ".ndjson" && ext != ".jsonl" {
		if k := logKind(head); k != "" {
			return k, nil
		}
	}
	switch {
	case ext == ".csv":
		return kindCSV, nil
	case ext == ".ndjson" || ext == ".jsonl":
		return kindNDJSON, nil
	case ext == ".json":
		t := bytes.TrimLeft(head, " \t\r\n")
		if len(t) > 0 && t[0] == '{' && firstLineObject(t, false) {
			return kindNDJSON, nil
		}
		return kindJSON, nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return kindBinary, nil
	}
	if firstLineObject(bytes.TrimLeft(head, " \t\r\n"), true) {
		return kindNDJSON, nil
	}
	return kindText, nil
}

// firstLineObject reports whether b starts with a line holding one whole JSON object that is
// followed by another line starting with "{" (or ends the data, when alone is set): NDJSON. A
// .json file of one object on one line is a document (maybe an envelope), not NDJSON.
func firstLineObject(b []byte, alone bool) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false // one long line, or a pretty-printed document cut by the sniff
	}
	if !json.Valid(bytes.TrimSpace(b[:i])) {
		return false
	}
	rest := bytes.TrimLeft(b[i+1:], " \t\r\n")
	if len(rest) == 0 {
		return alone
	}
	return rest[0] == '{'
}
