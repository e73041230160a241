package evidence

import (
	"fmt"
	"strings"
	"sync"
)

// maxFiles bounds how many files of the folders are looked at.
const maxFiles = 100_000

// file is a file of the folders as the tools describe it.
type file struct {
	entry
	kind string
	// table is the SQL table of a structured file ("" for text).
	table string
	// err says why the file cannot be read (a gzip that is not, a gzip bomb).
	err string
}

func (f file) structured() bool {
	switch f.kind {
	case kindNDJSON, kindJSON, kindCSV, kindZeek, kindW3C, kindParquet, kindEVTX:
		return true
	}
	return false
}

// sniffKey identifies a version of a file: its kind is looked at once per version.
type sniffKey struct {
	path      string
	size, mod int64
	stamp     fileStamp
}

type kindCache struct {
	mu sync.Mutex
	m  map[sniffKey]file
}

func (c *kindCache) kind(e entry, floor int64) file {
	k := sniffKey{e.f.root + "\x00" + e.rel, e.size, e.mod, e.stamp}
	c.mu.Lock()
	f, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return f
	}
	f = file{entry: e}
	kind, err := sniff(e, floor)
	if err != nil {
		f.kind, f.err = kindText, err.Error()
		if isGzip(e.rel) || kind == kindBinary {
			f.kind = kindBinary
		}
	} else {
		f.kind = kind
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[sniffKey]file{}
	}
	c.m[k] = f
	c.mu.Unlock()
	return f
}

// catalog lists every file of the folders with its kind, and gives each structured file its
// table: the design's name, made unique in path order (a second "x" is "x_2").
func (s *Set) catalog() ([]file, error) {
	var out []file
	var objects []int // indexes in out of Cloud Storage objects whose kind is not known yet
	if err := s.files("", func(e entry) bool {
		if e.f.gcs != nil {
			objects = append(objects, len(out))
			out = append(out, file{entry: e})
		} else {
			out = append(out, s.kinds.kind(e, s.bombFloor))
		}
		return len(out) < maxFiles
	}); err != nil {
		return nil, err
	}
	s.sniffObjects(out, objects)
	taken := map[string]bool{}
	for i := range out {
		if !out[i].structured() {
			continue
		}
		base := tableName(out[i].logical())
		name := base
		for n := 2; taken[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		taken[strings.ToLower(name)] = true
		out[i].table = name
	}
	return out, nil
}

// sniffObjectsAtOnce is how many objects are read at the same time to tell their kinds: each
// first read is a request, and a listing of a thousand objects must not be a thousand waits.
const sniffObjectsAtOnce = 8

// sniffObjects tells the kinds of the objects at idx in out, several at a time.
func (s *Set) sniffObjects(out []file, idx []int) {
	sem := make(chan struct{}, sniffObjectsAtOnce)
	var wg sync.WaitGroup
	for _, i := range idx {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = s.kinds.kind(out[i].entry, s.bombFloor)
		})
	}
	wg.Wait()
}

// tables are the catalog's structured files by lower-case table name.
func tables(cat []file) map[string]file {
	m := map[string]file{}
	for _, f := range cat {
		if f.table != "" {
			m[strings.ToLower(f.table)] = f
		}
	}
	return m
}

// tableNames lists the catalog's tables, in path order.
func tableNames(cat []file) []string {
	var out []string
	for _, f := range cat {
		if f.table != "" {
			out = append(out, f.table)
		}
	}
	return out
}
