// Package evidence gives the chat read-only access to the folders of logs and exports an
// analyst collected (chat --evidence DIR), and to Cloud Storage prefixes used as folders
// (--evidence gs://BUCKET/PREFIX, gcs.go): list_evidence lists their files, grep_evidence
// searches their text, query_evidence runs SQL over their structured files. BigQuery datasets
// (--evidence bq://PROJECT.DATASET, bigquery.go) are listed and queried in GoogleSQL, under a
// byte limit and confined to the datasets given.
//
// The folders and everything in them are untrusted, as are the model's arguments (a log line
// can carry a prompt injection). So:
//   - every path is confined to its folder: no "..", no absolute path, no hidden file or folder,
//     no symlink that resolves outside, nothing but regular files, no hard link; the resolved
//     path of every file opened is checked, not only the argument, and files are opened
//     through an os.Root, so the kernel keeps the open inside the folder (confine.go);
//   - a bucket's objects are confined to its prefix: only prefix+rel is read, rel a path that
//     passes the same checks, at the generation listed (gcs.go);
//   - nothing is ever written into a folder: the SQL index lives in the cache directory, keyed
//     by the file's path, size, modification time, device, inode and change time (index.go),
//     or an object's name, generation and size;
//   - only reading SQL runs, on a read-only connection, under a time limit, a row cap, a bound
//     on the result's bytes (counted while rows are read) and a length limit on values
//     (query.go);
//   - decompression and records are bounded, so a gzip bomb or a line of gigabytes costs
//     bounded time and memory (read.go).
//
// Indexing happens on the first query that needs a table, never when a chat starts.
package evidence

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/storage"

	"github.com/m-mizutani/goerr/v2"
)

// ErrOutside is the one answer to a path that leaves a folder, names a hidden entry or is not
// a regular file or folder: the model is told no more than that.
const ErrOutside = "outside the evidence folder"

// folder is one evidence folder.
type folder struct {
	// root is the folder's resolved absolute path (symlinks followed once, at start).
	root string
	// name prefixes the folder's paths when there are several folders ("" with one).
	name string
	// r opens what is under root: the kernel refuses any path that leads out of it.
	r *os.Root
	// gcs, when set, is a Cloud Storage prefix (root is then its gs:// URL, r nil).
	gcs *bucketPrefix
}

// Set is the evidence folders of one chat.
type Set struct {
	folders  []folder
	cacheDir string
	idx      *indexer
	kinds    kindCache
	// datasets are the BigQuery datasets; bqMaxBytes bounds each query's scan, bqBytes counts
	// what the queries scanned.
	datasets   []*bqDatasetSource
	bqMaxBytes int64
	bqBytes    atomic.Int64
	// bombFloor and timeout are the package's bounds (tests lower them).
	bombFloor int64
	timeout   time.Duration
}

// Options configure a Set.
type Options struct {
	// CacheDir is where indexes are kept (the user's cache directory + alertchat/evidence).
	CacheDir string
	// Storage reads the gs:// sources, with the user's credentials (nil: none may be given).
	Storage *storage.Client
	// BigQuery makes the client of a bq:// source's project, with the user's credentials (nil:
	// none may be given). The Set closes the clients it made.
	BigQuery func(ctx context.Context, project string) (*bigquery.Client, error)
	// BQMaxBytes bounds what one BigQuery query may scan (0: DefaultBQMaxBytes).
	BQMaxBytes int64
	// bqEngine replaces BigQuery in tests of the guard.
	bqEngine func(project, dataset string) bqEngine
}

// DirError is a folder given on the command line that cannot be used: missing, or a file.
type DirError struct {
	Dir    string
	Reason string
}

func (e *DirError) Error() string {
	if IsDataset(e.Dir) {
		return fmt.Sprintf("evidence dataset %s %s", e.Dir, e.Reason)
	}
	if IsBucket(e.Dir) {
		return fmt.Sprintf("evidence bucket %s %s", e.Dir, e.Reason)
	}
	return fmt.Sprintf("evidence folder %s %s", e.Dir, e.Reason)
}

// Open is OpenContext without a context of its own.
func Open(dirs []string, o Options) (*Set, error) { return OpenContext(context.Background(), dirs, o) }

// OpenContext checks dirs (each an existing folder, or gs://BUCKET/PREFIX) and returns their
// Set. Nothing is read beyond the folders' own metadata and one listing call per bucket:
// indexes are built on the first query. Objects are read under ctx.
func OpenContext(ctx context.Context, dirs []string, o Options) (_ *Set, err error) {
	s := &Set{cacheDir: o.CacheDir, bombFloor: bombFloor, timeout: QueryTimeout, bqMaxBytes: o.BQMaxBytes}
	if s.bqMaxBytes <= 0 {
		s.bqMaxBytes = DefaultBQMaxBytes
	}
	defer func() {
		if err != nil {
			s.closeRoots() // the folders opened before the one refused
		}
	}()
	seen := map[string]bool{}
	names := map[string]int{}
	for _, d := range dirs {
		if strings.TrimSpace(d) == "" {
			continue
		}
		if IsDataset(d) {
			ds, err := openDataset(ctx, d, o)
			if err != nil {
				return nil, err
			}
			if seen[ds.url()] {
				_ = ds.eng.close()
				continue
			}
			seen[ds.url()] = true
			s.datasets = append(s.datasets, ds)
			continue
		}
		if IsBucket(d) {
			f, err := openBucket(ctx, d, o.Storage)
			if err != nil {
				return nil, err
			}
			if seen[f.root] {
				continue
			}
			seen[f.root] = true
			names[f.name]++
			if n := names[f.name]; n > 1 {
				f.name = fmt.Sprintf("%s_%d", f.name, n)
			}
			s.folders = append(s.folders, f)
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, &DirError{Dir: d, Reason: "cannot be resolved"}
		}
		root, err := filepath.EvalSymlinks(abs)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, &DirError{Dir: d, Reason: "does not exist"}
			}
			return nil, &DirError{Dir: d, Reason: "cannot be read"}
		}
		fi, err := os.Stat(root)
		if err != nil {
			return nil, &DirError{Dir: d, Reason: "cannot be read"}
		}
		if !fi.IsDir() {
			return nil, &DirError{Dir: d, Reason: "is not a folder"}
		}
		if seen[root] {
			continue
		}
		seen[root] = true
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, &DirError{Dir: d, Reason: "cannot be read"}
		}
		base := safeName(filepath.Base(root))
		names[base]++
		if n := names[base]; n > 1 {
			base = fmt.Sprintf("%s_%d", base, n)
		}
		s.folders = append(s.folders, folder{root: root, name: base, r: r})
	}
	if len(s.folders) == 1 {
		s.folders[0].name = ""
	}
	if len(s.folders) == 0 && len(s.datasets) == 0 {
		return nil, goerr.New("no evidence folder given")
	}
	s.idx = newIndexer(s)
	return s, nil
}

// Folders are the folders' resolved paths, in the order given.
func (s *Set) Folders() []string {
	out := make([]string, len(s.folders))
	for i, f := range s.folders {
		out[i] = f.root
	}
	return out
}

// Close releases the index's database and the folders.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var err error
	if s.idx != nil {
		err = s.idx.close()
	}
	s.closeRoots()
	return err
}

func (s *Set) closeRoots() {
	for _, f := range s.folders {
		if f.r != nil {
			_ = f.r.Close()
		}
	}
	for _, d := range s.datasets {
		_ = d.eng.close()
	}
}

// openDataset checks the BigQuery dataset d with one call: a dataset that does not exist or
// that the credentials cannot read is named before the chat starts.
func openDataset(ctx context.Context, d string, o Options) (*bqDatasetSource, error) {
	project, dataset, err := parseDataset(d)
	if err != nil {
		return nil, err
	}
	ds := &bqDatasetSource{project: project, dataset: dataset}
	switch {
	case o.bqEngine != nil:
		ds.eng = o.bqEngine(project, dataset)
	case o.BigQuery != nil:
		c, err := o.BigQuery(ctx, project)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to create the BigQuery client", goerr.V("project", project))
		}
		ds.eng = newClientEngine(c, project, dataset)
	default:
		return nil, &DirError{Dir: d, Reason: "cannot be read: no BigQuery client"}
	}
	if err := ds.eng.check(ctx); err != nil {
		_ = ds.eng.close()
		switch bqStatus(err) {
		case 404:
			return nil, &DirError{Dir: d, Reason: "does not exist"}
		case 401, 403:
			return nil, &DirError{Dir: d, Reason: "cannot be read with these credentials: " + bqMessage(err)}
		}
		return nil, &DirError{Dir: d, Reason: "cannot be read: " + bqMessage(err)}
	}
	return ds, nil
}

// jsonText is v as JSON text (nested values are text in a result, as in a folder's tables).
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// openBucket checks the Cloud Storage prefix d with one listing call.
func openBucket(ctx context.Context, d string, c *storage.Client) (folder, error) {
	bucket, prefix, err := parseBucket(d)
	if err != nil {
		return folder{}, &DirError{Dir: d, Reason: "is not gs://BUCKET/PREFIX: " + err.Error()}
	}
	if c == nil {
		return folder{}, &DirError{Dir: d, Reason: "cannot be read: no Cloud Storage client"}
	}
	b := &bucketPrefix{ctx: ctx, bucket: c.Bucket(bucket).Retryer(gcsRetries()...), name: bucket, prefix: prefix, stall: objectStall}
	if err := b.check(ctx); err != nil {
		return folder{}, &DirError{Dir: d, Reason: err.Error()}
	}
	base := bucket
	if prefix != "" {
		base = path.Base(strings.TrimSuffix(prefix, "/"))
	}
	return folder{root: gcsScheme + bucket + "/" + prefix, name: safeName(base), gcs: b}, nil
}

// safeName makes a folder's base name a path element and identifier part.
func safeName(s string) string {
	s = identifier(s)
	if s == "" || s == "_" {
		return "evidence"
	}
	return s
}
