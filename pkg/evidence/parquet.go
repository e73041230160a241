package evidence

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetMagic begins and ends every Parquet file.
const parquetMagic = "PAR1"

// readParquet reads a Parquet file's rows (github.com/parquet-go/parquet-go, pure Go): its
// top-level fields are the columns, in the schema's order; strings and numbers are themselves,
// booleans 1 and 0, timestamps RFC 3339 text in UTC, nested groups, lists and maps JSON text.
// Parquet is read by its footer, so the file is read in place (never a .gz). A damaged file
// ends the reading with an error after the rows before it; the reader's panics on crafted
// input are turned into that error.
func readParquet(ra io.ReaderAt, size int64, emit func(record) error) (st parseStats, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged Parquet file: %v", p)
		}
	}()
	if err := checkParquetFooter(ra, size); err != nil {
		return st, err
	}
	f, err := parquet.OpenFile(ra, size)
	if err != nil {
		return st, fmt.Errorf("not a Parquet file: %v", err)
	}
	fields := f.Schema().Fields()
	keys := make([]string, len(fields))
	units := make([]time.Duration, len(fields))
	for i, fl := range fields {
		keys[i] = fl.Name()
		if lt := fl.Type().LogicalType(); lt != nil && fl.Leaf() {
			if ts, ok := lt.Value.(*format.TimestampType); ok && ts.Unit.Value != nil {
				units[i] = ts.Unit.Value.Duration()
			}
		}
	}
	if err := emit(record{keys: keys, schema: true}); err != nil {
		return st, err
	}
	r := parquet.NewReader(f)
	defer r.Close()
	vals := make([]any, len(keys))
	for {
		m := map[string]any{}
		if err := r.Read(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return st, nil
			}
			return st, fmt.Errorf("damaged Parquet file at row %d: %v", st.rows+1, err)
		}
		for i, k := range keys {
			vals[i] = parquetValue(m[k], units[i])
		}
		if err := emit(record{keys: keys, typed: vals}); err != nil {
			return st, err
		}
		st.rows++
	}
}

// maxParquetFooter bounds a Parquet file's footer (its schema and row groups' metadata):
// real footers are kilobytes to a few megabytes.
const maxParquetFooter = 64 << 20

// checkParquetFooter refuses a footer whose stated length does not fit in the file or passes
// maxParquetFooter, before parquet-go reads it: the reader allocates the stated length first
// (up to 4 GB for a file of a few bytes), which is what a crafted file hung on.
func checkParquetFooter(ra io.ReaderAt, size int64) error {
	var tail [8]byte
	if size < int64(len(parquetMagic))+int64(len(tail)) {
		return fmt.Errorf("not a Parquet file: %d bytes", size)
	}
	if _, err := ra.ReadAt(tail[:], size-int64(len(tail))); err != nil {
		return fmt.Errorf("not a Parquet file: %v", err)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > maxParquetFooter || n+int64(len(parquetMagic))+int64(len(tail)) > size {
		return fmt.Errorf("damaged Parquet file: a footer of %d bytes in a file of %d", n, size)
	}
	return nil
}

// parquetValue converts one value as readParquet says.
func parquetValue(v any, unit time.Duration) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return x
	case []byte:
		return string(x)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case int64:
		if lim := int64(math.MaxInt64); unit > 0 && x > -lim/int64(unit) && x < lim/int64(unit) {
			return time.Unix(0, 0).Add(time.Duration(x) * unit).UTC().Format(time.RFC3339Nano)
		}
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}

// readEntry streams the records of e, of kind, to emit: a Parquet file or an event log read
// in place, any other through openEntry.
func readEntry(e entry, kind string, floor int64, emit func(record) error) (parseStats, error) {
	if kind == kindParquet || kind == kindEVTX {
		fd, size, err := e.open()
		if err != nil {
			return parseStats{}, err
		}
		defer fd.Close()
		if kind == kindEVTX {
			return readEVTX(fd, size, emit)
		}
		return readParquet(fd, size, emit)
	}
	r, err := openEntry(e, floor)
	if err != nil {
		return parseStats{}, err
	}
	defer r.Close()
	return readRecords(r, kind, emit)
}
