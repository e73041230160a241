package evidence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
)

// gcsScheme begins an evidence source that is a Cloud Storage prefix.
const gcsScheme = "gs://"

// gcsRetries bound the client's retries: by default it retries a refused connection until the
// context ends, and a chat's context lasts the chat. A network failure is a tool result
// error within seconds, and the chat goes on.
func gcsRetries() []storage.RetryOption {
	return []storage.RetryOption{
		storage.WithMaxAttempts(3),
		storage.WithBackoff(gax.Backoff{Initial: 200 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2}),
	}
}

// IsBucket reports whether an --evidence value names a Cloud Storage prefix (gs://BUCKET/PREFIX)
// rather than a folder.
func IsBucket(s string) bool { return strings.HasPrefix(s, gcsScheme) }

// bucketPrefix is a Cloud Storage prefix given as evidence: the objects under it are the
// folder's files, named by their path relative to it. There are no links and no folders in a
// bucket, so confinement is the prefix itself: every object read is prefix+rel with rel a
// path cleanRel accepted, in the one bucket given; an object whose relative name is not such
// a path (a "..", an empty or hidden element, a backslash) is not listed and cannot be named.
type bucketPrefix struct {
	// ctx is the chat's: object reads end with it.
	ctx    context.Context
	bucket *storage.BucketHandle
	name   string // the bucket's name
	prefix string // "" or ending in "/"
	// stall bounds each wait for Cloud Storage (objectStall; tests lower it).
	stall time.Duration
}

// objectStall bounds how long a read waits for Cloud Storage to send anything (a response, the
// next bytes of an object, a range, a page of a listing): a connection that stalls fails the
// tool call, and the chat goes on, instead of hanging the question.
const objectStall = 60 * time.Second

// errStalled is a wait for Cloud Storage given up after the stall bound.
type errStalled struct{ after time.Duration }

func (e errStalled) Error() string {
	return fmt.Sprintf("Cloud Storage sent nothing for %s; the read was given up", e.after)
}

// watchdog cancels a context when it is not fed in time: armed around each wait for Cloud
// Storage, stopped when the wait ends, so time spent between reads never counts.
type watchdog struct {
	ctx     context.Context
	cancel  context.CancelFunc
	timer   *time.Timer
	d       time.Duration
	expired atomic.Bool
}

func newWatchdog(parent context.Context, d time.Duration) *watchdog {
	w := &watchdog{d: d}
	w.ctx, w.cancel = context.WithCancel(parent)
	w.timer = time.AfterFunc(d, func() { w.expired.Store(true); w.cancel() })
	w.timer.Stop()
	return w
}

// wait runs fn with the bound armed; an error after the bound expired is errStalled.
func (w *watchdog) wait(fn func() error) error {
	w.timer.Reset(w.d)
	err := fn()
	w.timer.Stop()
	if err != nil && w.expired.Load() {
		return errStalled{w.d}
	}
	return err
}

func (w *watchdog) stop() { w.timer.Stop(); w.cancel() }

// parseBucket splits gs://BUCKET/PREFIX; the prefix is a folder, so it ends in "/" unless empty.
func parseBucket(s string) (bucket, prefix string, err error) {
	rest := strings.TrimPrefix(s, gcsScheme)
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" || strings.ContainsAny(bucket, "\x00\\ ") {
		return "", "", fmt.Errorf("no bucket name")
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if c, err := cleanRel(prefix); err != nil || c != prefix {
			return "", "", fmt.Errorf("the prefix is not a plain path")
		}
		prefix += "/"
	}
	return bucket, prefix, nil
}

// check makes the one cheap call that tells a bucket that does not exist, or that the
// credentials cannot list, from a readable one: one page of one object.
func (b *bucketPrefix) check(ctx context.Context) error {
	it := b.bucket.Objects(ctx, &storage.Query{Prefix: b.prefix})
	it.PageInfo().MaxSize = 1
	_, err := it.Next()
	if err == nil || errors.Is(err, iterator.Done) {
		return nil
	}
	if errors.Is(err, storage.ErrBucketNotExist) {
		return errors.New("does not exist")
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		switch ge.Code {
		case http.StatusNotFound:
			return errors.New("does not exist")
		case http.StatusUnauthorized, http.StatusForbidden:
			return errors.New("cannot be read with these credentials")
		}
	}
	return fmt.Errorf("cannot be read: %v", err)
}

// objectRel is the path of the object named name relative to the prefix, ok false when it is
// not a plain path (see bucketPrefix) or names a folder placeholder ("x/").
func (b *bucketPrefix) objectRel(name string) (string, bool) {
	rel, ok := strings.CutPrefix(name, b.prefix)
	if !ok || rel == "" || strings.HasSuffix(rel, "/") {
		return "", false
	}
	c, err := cleanRel(rel)
	if err != nil || c != rel {
		return "", false
	}
	return rel, true
}

// walk calls fn for every object under rel (an object, or a "folder" of them) in name order,
// listing page by page; fn returning false stops the listing.
func (b *bucketPrefix) walk(f folder, rel string, fn func(entry) bool) error {
	q := &storage.Query{Prefix: b.prefix + rel}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Generation"}); err != nil {
		return err
	}
	wd := newWatchdog(b.ctx, b.stall)
	defer wd.stop()
	it := b.bucket.Objects(wd.ctx, q)
	found := false
	for {
		var a *storage.ObjectAttrs
		err := wd.wait(func() (err error) { a, err = it.Next(); return err })
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return userErrorf("%s cannot be listed: %v", f.root, err)
		}
		r, ok := b.objectRel(a.Name)
		if !ok {
			continue
		}
		// The prefix "logs/a" also lists "logs/ab": only the object itself or those under it.
		if rel != "" && r != rel && !strings.HasPrefix(r, rel+"/") {
			continue
		}
		found = true
		if !fn(entry{f: f, rel: r, size: a.Size, mod: a.Generation}) {
			return nil
		}
	}
	if !found && rel != "" {
		return errNotFound
	}
	return nil
}

// open opens the generation of the object rel that was listed (its entry's mod): the bytes
// the index was keyed by, or an error when the object changed since.
func (b *bucketPrefix) open(rel string, generation, size int64) (evidenceFile, error) {
	if _, ok := b.objectRel(b.prefix + rel); !ok {
		return nil, errOutside
	}
	obj := b.bucket.Object(b.prefix + rel).Generation(generation)
	return &objectFile{ctx: b.ctx, obj: obj, size: size, stall: b.stall}, nil
}

// objectFile reads an object: Read streams it from the start (one request), ReadAt reads a
// range (one request each), for the formats read by their footer or chunks.
type objectFile struct {
	ctx   context.Context
	obj   *storage.ObjectHandle
	size  int64
	stall time.Duration
	r     *storage.Reader
	wd    *watchdog // the stream's, fed by each Read
}

func (o *objectFile) start() error {
	if o.r != nil {
		return nil
	}
	if o.wd == nil {
		o.wd = newWatchdog(o.ctx, o.stall)
	}
	var r *storage.Reader
	if err := o.wd.wait(func() (err error) { r, err = o.obj.NewReader(o.wd.ctx); return err }); err != nil {
		return objectError(err)
	}
	o.r = r
	return nil
}

func (o *objectFile) Read(p []byte) (int, error) {
	if err := o.start(); err != nil {
		return 0, err
	}
	var n int
	err := o.wd.wait(func() (err error) { n, err = o.r.Read(p); return err })
	return n, err
}

// transcoded reports whether the object, stored with Content-Encoding: gzip, comes
// decompressed (Cloud Storage's decompressive transcoding): a .gz is then not gunzipped again.
// (The client sets its own Accept-Encoding, so asking for the stored bytes is not possible
// with JSON reads.)
func (o *objectFile) transcoded() (bool, error) {
	if err := o.start(); err != nil {
		return false, err
	}
	return o.r.Attrs.Decompressed, nil
}

func (o *objectFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= o.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), o.size-off)
	wd := newWatchdog(o.ctx, o.stall)
	defer wd.stop()
	var r *storage.Reader
	if err := wd.wait(func() (err error) { r, err = o.obj.NewRangeReader(wd.ctx, off, n); return err }); err != nil {
		return 0, objectError(err)
	}
	defer r.Close()
	var m int
	err := wd.wait(func() (err error) { m, err = io.ReadFull(r, p[:n]); return err })
	if err == nil && m < len(p) {
		err = io.EOF
	}
	return m, err
}

func (o *objectFile) Close() error {
	if o.wd != nil {
		defer o.wd.stop()
	}
	if o.r != nil {
		return o.r.Close()
	}
	return nil
}

func objectError(err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) {
		return errors.New("the object changed or was deleted since it was listed")
	}
	return err
}
