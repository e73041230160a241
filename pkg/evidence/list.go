package evidence

import (
	"context"
	"errors"
	"slices"
)

// sampleRecords is how many records of a file not yet indexed name its columns in a listing.
const sampleRecords = 200

// FileInfo is a file as list_evidence describes it.
type FileInfo struct {
	Path  string
	Bytes int64
	Kind  string
	// Table and Columns are a structured file's; the columns are the index's when the table
	// is built, otherwise those of the first records.
	Table   string
	Columns []string
	// Types are the columns' types, where the source has them (BigQuery).
	Types []string
	// Indexed says Rows and Skipped (malformed lines or rows left out) are known.
	Indexed       bool
	Rows, Skipped int64
	// Error says why the file cannot be read.
	Error string
}

// List describes the files under the logical path p ("" for all), at most limit of them.
func (s *Set) List(ctx context.Context, p string, limit int) ([]FileInfo, bool, error) {
	if IsDataset(p) {
		return s.listDatasets(ctx, p, limit)
	}
	if len(s.folders) == 0 {
		if p != "" {
			return nil, false, errNotFound
		}
		return s.listDatasets(ctx, "", limit)
	}
	files, truncated, err := s.listFolders(ctx, p, limit)
	if err != nil || truncated || p != "" || len(s.datasets) == 0 {
		return files, truncated, err
	}
	tables, truncated, err := s.listDatasets(ctx, "", limit-len(files))
	return append(files, tables...), truncated, err
}

// listFolders describes the folders' files under p.
func (s *Set) listFolders(ctx context.Context, p string, limit int) ([]FileInfo, bool, error) {
	cat, err := s.catalog()
	if err != nil {
		return nil, false, err
	}
	want := map[string]bool{}
	if p != "" {
		if err := s.files(p, func(e entry) bool {
			want[e.logical()] = true
			return true
		}); err != nil {
			return nil, false, err
		}
	}
	var out []FileInfo
	for _, f := range cat {
		if p != "" && !want[f.logical()] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		if len(out) == limit {
			return out, true, nil
		}
		out = append(out, s.describe(ctx, f))
	}
	return out, false, nil
}

func (s *Set) describe(ctx context.Context, f file) FileInfo {
	fi := FileInfo{Path: f.logical(), Bytes: f.size, Kind: f.kind, Table: f.table, Error: f.err}
	if f.table == "" {
		return fi
	}
	if b, ok := s.idx.known(ctx, f); ok {
		fi.Columns, fi.Indexed, fi.Rows, fi.Skipped = b.columns, true, b.rows, b.skipped
		if b.err != "" {
			fi.Error, fi.Columns = b.err, nil
		}
		return fi
	}
	cols, err := sampleColumns(f, s.bombFloor)
	if err != nil {
		fi.Error = err.Error()
	}
	fi.Columns = cols
	return fi
}

var errEnough = errors.New("enough records")

// sampleColumns are the columns of f's first records, named as the index names them.
func sampleColumns(f file, floor int64) ([]string, error) {
	t := &tableBuilder{byKey: map[string]int{}, lower: map[string]bool{}, created: true, dryRun: true}
	n := 0
	_, err := readEntry(f.entry, f.kind, floor, func(rec record) error {
		switch {
		case rec.header != nil:
			if err := t.columns(rec.header); err != nil {
				return err
			}
			return errEnough
		case rec.keys != nil:
			if err := t.addJSON(rec); err != nil {
				return err
			}
			if rec.schema {
				return errEnough // a log's header names its columns
			}
		}
		n++
		if n == sampleRecords {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return slices.Clone(t.names), err
}

// FolderSummary is a folder as /evidence shows it.
type FolderSummary struct {
	Root   string
	Files  int
	Bytes  int64
	Tables []FileInfo // Path and Table of each structured file
}

// Summary describes each folder: its files and its tables, without reading them.
func (s *Set) Summary() ([]FolderSummary, error) {
	cat, err := s.catalog()
	if err != nil {
		return nil, err
	}
	out := make([]FolderSummary, len(s.folders))
	for i, f := range s.folders {
		out[i].Root = f.root
	}
	for _, f := range cat {
		i := slices.IndexFunc(s.folders, func(x folder) bool { return x.root == f.f.root })
		if i < 0 {
			continue
		}
		out[i].Files++
		out[i].Bytes += f.size
		if f.table != "" {
			out[i].Tables = append(out[i].Tables, FileInfo{Path: f.logical(), Table: f.table, Kind: f.kind})
		}
	}
	return out, nil
}
