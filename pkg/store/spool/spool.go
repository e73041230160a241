// Package spool keeps, on local disk, the histories a store could not take (an outage), so
// that no turn is lost, and uploads them later.
//
// # Layout
//
// A spool is a directory per backend and workspace: {root}/{hash of backend identity and
// workspace}/, mode 0700. Each entry is one file, mode 0600, written atomically (temporary
// file, fsync, rename, directory fsync):
//
//	{key}.{seq}.json   key = {first spool time, unix ns, 19 digits}-{random}, seq = 1, 2, ...
//
// holding one JSON object (Entry): the format tag, the backend identity and workspace, the
// time, the history's metadata exactly as the session would have saved it (revision,
// parent_id and fork_point included), the store's content version, and the transcript, a JSON
// array of genai.Content. Everything in it has passed the redaction step: the session redacts
// before any write, and Put redacts again when the spool has a Redactor.
//
// A session owns one key. Each Put writes the next seq and then removes the older ones, so a
// crash in between leaves two files of the key, and the newest wins: a session's later state
// always contains its earlier ones. Nothing is ever rewritten in place, so a flush in another
// process can never remove a state it has not uploaded.
//
// # Flush
//
// Flush uploads the entries oldest key first (so the first writer of a history keeps it and a
// later one forks), each through store.SaveOrFork with the revision it was loaded at. That
// makes a flush idempotent: an entry uploaded by a flush that crashed before removing it is
// found already stored (the stored transcript begins with all of its contents) and nothing is
// written; an entry whose history another writer continued meanwhile becomes a fork. After a
// successful upload the files of the key up to the uploaded seq are removed. A failure stops
// the flush and leaves the spool intact; only an entry the store refuses as invalid, or one
// that cannot be read, is moved to rejected/ so it cannot block the others.
package spool

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/store"
)

// Format tags an entry file.
const Format = "alertchat-spool/1"

// alertReadTimeout bounds the read of a spooled history's alert: a spool is written when the
// store is failing, and a turn must not wait long for it.
const alertReadTimeout = 2 * time.Second

// Options configure Open.
type Options struct {
	// Root is the directory holding the spools of every backend, e.g. {data-dir}/spool.
	Root string
	// Backend identifies the store the entries belong to (e.g. "local:/path|prefix" or
	// "cloud:project/database/bucket/prefix"): a spool is only ever flushed into its own
	// backend.
	Backend string
	// Workspace is the workspace the entries belong to.
	Workspace string
	// Redactor, when set, redacts every history Put is given (the session already did; this
	// makes the spool's guarantee its own).
	Redactor redacthist.Redactor
	// Alerts, when set, gives the alert of a history Put is given, so that its values are kept
	// as the session's own write keeps them (see redacthist.ForHistory): a replayed save
	// then writes what a direct save would have.
	Alerts redacthist.AlertGetter
	// Now defaults to time.Now.
	Now func() time.Time
}

// Spool is the spool of one backend and workspace. It is safe for concurrent use, and for
// several processes at once.
type Spool struct {
	o   Options
	dir string

	mu  sync.Mutex
	seq map[string]int // last seq written per key by this process
}

var _ store.Spool = (*Spool)(nil)

// Open returns the spool of o.Backend and o.Workspace; its directory is created on the first
// Put.
func Open(o Options) (*Spool, error) {
	if o.Root == "" || o.Backend == "" || !store.ValidWorkspace(o.Workspace) {
		return nil, goerr.Wrap(store.ErrInvalid, "spool needs a root directory, a backend and a workspace")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	sum := sha256.Sum256([]byte(o.Backend + "\x00" + o.Workspace))
	return &Spool{o: o, dir: filepath.Join(o.Root, hex.EncodeToString(sum[:8])), seq: map[string]int{}}, nil
}

// Dir is the spool's directory.
func (s *Spool) Dir() string { return s.dir }

// Entry is one spooled history, as stored in its file.
type Entry struct {
	Format         string          `json:"format"`
	Backend        string          `json:"backend"`
	Workspace      string          `json:"workspace"`
	Key            string          `json:"key"`
	Seq            int             `json:"seq"`
	SpooledAt      time.Time       `json:"spooled_at"`
	History        *record.History `json:"history"`
	ContentVersion int64           `json:"content_version,omitempty"`
	Contents       json.RawMessage `json:"contents"`

	path string
}

// history returns the entry's history with its transcript.
func (e *Entry) history() (*record.History, error) {
	h := *e.History
	contents, err := store.DecodeTranscript(h.ID, e.Contents)
	if err != nil {
		return nil, goerr.Wrap(err, "corrupt spool entry "+filepath.Base(e.path))
	}
	h.Contents = contents
	h.ContentVersion = e.ContentVersion
	return &h, nil
}

// newKey returns a fresh entry key; keys sort by creation time.
func (s *Spool) newKey() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%019d-%s", s.o.Now().UnixNano(), hex.EncodeToString(b[:]))
}

// Put implements store.Spool: it writes h as the next state of key's entry (a new key when
// key is "") and removes the key's older states.
func (s *Spool) Put(key string, h *record.History) (string, error) {
	if key == "" {
		key = s.newKey()
	} else if !validKey(key) {
		return "", goerr.Wrap(store.ErrInvalid, "invalid spool key", goerr.V("key", key))
	}
	if s.o.Redactor != nil {
		// Put has no context of its own: the alert comes from a local copy or the store layers'
		// bounded retries, and a failed read means the stricter redaction.
		ctx, cancel := context.WithTimeout(context.Background(), alertReadTimeout)
		redacthist.History(redacthist.ForHistory(ctx, s.o.Redactor, s.o.Alerts, h), h)
		cancel()
	}
	contents, err := store.EncodeTranscript(h.Contents)
	if err != nil {
		return "", err
	}
	if err := s.ensureDir(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.seq[key]
	if seq == 0 {
		for _, f := range s.filesOf(key) {
			seq = max(seq, f.seq)
		}
	}
	seq++
	e := &Entry{
		Format: Format, Backend: s.o.Backend, Workspace: s.o.Workspace, Key: key, Seq: seq,
		SpooledAt: s.o.Now().UTC(), History: h.Meta(), ContentVersion: h.ContentVersion, Contents: contents,
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", goerr.Wrap(err, "failed to encode spool entry")
	}
	name := fileName(key, seq)
	if err := writeAtomic(s.dir, name, data); err != nil {
		return "", goerr.Wrap(err, "failed to write spool entry", goerr.V("dir", s.dir), goerr.V("history_id", h.ID))
	}
	s.seq[key] = seq
	s.removeUpTo(key, seq-1)
	return key, nil
}

// Remove implements store.Spool: every state of key's entry written so far goes.
func (s *Spool) Remove(key string) error {
	if !validKey(key) {
		return goerr.Wrap(store.ErrInvalid, "invalid spool key", goerr.V("key", key))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeUpTo(key, int(^uint(0)>>1))
}

func (s *Spool) ensureDir() error {
	for _, d := range []string{s.o.Root, s.dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return goerr.Wrap(err, "failed to create spool directory", goerr.V("dir", d))
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return goerr.Wrap(err, "failed to restrict spool directory", goerr.V("dir", d))
		}
	}
	return nil
}

// file is one entry file's name, parsed.
type file struct {
	name string
	key  string
	seq  int
}

func fileName(key string, seq int) string { return key + "." + strconv.Itoa(seq) + ".json" }

func validKey(key string) bool {
	ts, rnd, ok := strings.Cut(key, "-")
	if !ok || len(ts) != 19 || len(rnd) != 12 {
		return false
	}
	for _, c := range ts + rnd {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func parseName(name string) (file, bool) {
	base, ok := strings.CutSuffix(name, ".json")
	if !ok {
		return file{}, false
	}
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return file{}, false
	}
	seq, err := strconv.Atoi(base[i+1:])
	if err != nil || seq <= 0 || !validKey(base[:i]) {
		return file{}, false
	}
	return file{name: name, key: base[:i], seq: seq}, true
}

// files lists the entry files, oldest key first and, per key, by seq.
func (s *Spool) files() ([]file, error) {
	des, err := os.ReadDir(s.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read spool directory", goerr.V("dir", s.dir))
	}
	var out []file
	for _, de := range des {
		if f, ok := parseName(de.Name()); ok && de.Type().IsRegular() {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].key != out[j].key {
			return out[i].key < out[j].key
		}
		return out[i].seq < out[j].seq
	})
	return out, nil
}

func (s *Spool) filesOf(key string) []file {
	all, _ := s.files()
	var out []file
	for _, f := range all {
		if f.key == key {
			out = append(out, f)
		}
	}
	return out
}

// removeUpTo removes key's files with seq <= upTo.
func (s *Spool) removeUpTo(key string, upTo int) error {
	var errs []error
	for _, f := range s.filesOf(key) {
		if f.seq <= upTo {
			if err := os.Remove(filepath.Join(s.dir, f.name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return goerr.Wrap(err, "failed to remove spool entry", goerr.V("key", key))
	}
	return nil
}

// Entries returns the newest state of every entry, oldest key first. Contents are kept raw;
// an unreadable file is reported in the error and skipped.
func (s *Spool) Entries() ([]*Entry, error) {
	fs, err := s.files()
	if err != nil {
		return nil, err
	}
	var out []*Entry
	var errs []error
	for i, f := range fs {
		if i+1 < len(fs) && fs[i+1].key == f.key {
			continue // superseded by a newer state
		}
		e, err := s.read(f)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) { // flushed meanwhile
				errs = append(errs, err)
			}
			continue
		}
		out = append(out, e)
	}
	return out, errors.Join(errs...)
}

func (s *Spool) read(f file) (*Entry, error) {
	p := filepath.Join(s.dir, f.name)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, goerr.Wrap(err, "corrupt spool entry", goerr.V("file", p))
	}
	if e.Format != Format || e.History == nil || !store.ValidHistoryID(e.History.ID) {
		return nil, goerr.New("unknown spool entry format", goerr.V("file", p), goerr.V("format", e.Format))
	}
	e.path = p
	return &e, nil
}

// Pending returns the metadata of the newest spooled state of every history that has one, by
// history ID.
func (s *Spool) Pending() (map[record.HistoryID]*record.History, error) {
	es, err := s.Entries()
	out := map[record.HistoryID]*record.History{}
	for _, e := range es {
		if e.Backend != s.o.Backend || e.Workspace != s.o.Workspace {
			continue
		}
		out[e.History.ID] = e.History
	}
	return out, err
}

// Uploaded is one entry a flush saved.
type Uploaded struct {
	HistoryID record.HistoryID // where its contents are now
	// ForkedFrom is set when the history had been continued by another writer meanwhile: the
	// entry went to a new history forked from it.
	ForkedFrom record.HistoryID
	// AlreadySaved is set when the store already held every content of the entry (a flush
	// that crashed before removing it, or the session saved it itself).
	AlreadySaved bool
	Messages     int
}

// Report is what a flush did.
type Report struct {
	Uploaded []Uploaded
	// Rejected lists entries the store refused as invalid; they were moved to rejected/.
	Rejected []string
	// Pending is how many entries are left.
	Pending int
}

// Flush uploads every entry into st (the store of this spool's backend and workspace; its
// writes must pass the redaction step), oldest first. It stops at the first failure that a
// later flush may overcome and returns it, leaving that entry and the following ones in place.
func (s *Spool) Flush(ctx context.Context, st store.HistorySaver) (*Report, error) {
	es, err := s.Entries()
	rep := &Report{}
	if err != nil {
		rep.Pending = len(es)
		return rep, err
	}
	for i, e := range es {
		if e.Backend != s.o.Backend || e.Workspace != s.o.Workspace {
			rep.Pending++ // not ours: never uploaded into another backend
			continue
		}
		h, err := e.history()
		if err == nil {
			var res store.SaveResult
			res, err = store.SaveOrFork(ctx, st, h, nil)
			if err == nil {
				rep.Uploaded = append(rep.Uploaded, Uploaded{
					HistoryID: res.History.ID, ForkedFrom: res.ForkedFrom, Messages: len(h.Contents),
					AlreadySaved: res.History != h && res.ForkedFrom == "",
				})
				s.mu.Lock()
				rerr := s.removeUpTo(e.Key, e.Seq)
				s.mu.Unlock()
				if rerr != nil {
					// Left in place, it is found already saved by the next flush.
					rep.Pending++
				}
				continue
			}
		}
		if errors.Is(err, store.ErrInvalid) || isCorrupt(err) {
			if dest, merr := s.reject(e); merr == nil {
				rep.Rejected = append(rep.Rejected, dest)
				continue
			}
		}
		rep.Pending += len(es) - i
		return rep, goerr.Wrap(err, "failed to upload spooled history "+string(e.History.ID), goerr.V("history_id", e.History.ID), goerr.V("spool_entry", e.path))
	}
	return rep, nil
}

func isCorrupt(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te) || strings.Contains(err.Error(), "corrupt spool entry")
}

// reject moves an entry the store will never take to {dir}/rejected/, out of the flush's way.
func (s *Spool) reject(e *Entry) (string, error) {
	d := filepath.Join(s.dir, "rejected")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	dest := filepath.Join(d, filepath.Base(e.path))
	return dest, os.Rename(e.path, dest)
}

// writeAtomic writes data to dir/name through a synced temporary file and a rename, then
// syncs dir: a reader sees the whole file or none of it, and a crash loses neither.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil // the rename is done; only its durability is unconfirmed
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

// Transcript decodes an entry's transcript.
func (e *Entry) Transcript() ([]*genai.Content, error) {
	h, err := e.history()
	if err != nil {
		return nil, err
	}
	return h.Contents, nil
}
