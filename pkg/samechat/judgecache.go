package samechat

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
)

// Judge cache bounds.
const (
	DefaultJudgeCacheEntries = 1000
	judgeCacheTTL            = 30 * 24 * time.Hour
	judgeCacheVersion        = 1
	// maxJudgeCacheFile refuses to read a cache file that grew absurdly (it is then rebuilt).
	maxJudgeCacheFile = 4 << 20
)

// JudgeCache keeps same-conversation answers in a small JSON file (0600), keyed by a hash of
// the question, the history ID and the history's revision: a history that changed is judged
// again. It holds at most a bounded number of entries, the oldest going first, and forgets
// entries after 30 days. Concurrent processes may each add entries; a save merges with what is
// on disk. The methods of a nil *JudgeCache do nothing. It is safe for concurrent use.
type JudgeCache struct {
	path string
	max  int
	now  func() time.Time

	mu      sync.Mutex
	loaded  bool
	entries map[string]judgeEntry
	added   map[string]judgeEntry
}

type judgeEntry struct {
	Answer string    `json:"v"`
	At     time.Time `json:"t"`
}

type judgeFile struct {
	Version int                   `json:"version"`
	Entries map[string]judgeEntry `json:"entries"`
}

// NewJudgeCache returns the cache kept in the file at path, holding at most maxEntries
// (DefaultJudgeCacheEntries when <= 0). The file is read on first use.
func NewJudgeCache(path string, maxEntries int) *JudgeCache {
	if maxEntries <= 0 {
		maxEntries = DefaultJudgeCacheEntries
	}
	return &JudgeCache{path: path, max: maxEntries, now: time.Now}
}

func judgeKey(qh string, id record.HistoryID, rev int64) string {
	return qh + "|" + string(id) + "|" + strconv.FormatInt(rev, 10)
}

// Get returns the cached answer of (question hash, history, revision).
func (c *JudgeCache) Get(qh string, id record.HistoryID, rev int64) (string, bool) {
	if c == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	e, ok := c.entries[judgeKey(qh, id, rev)]
	if !ok || c.now().Sub(e.At) > judgeCacheTTL {
		return "", false
	}
	return e.Answer, true
}

// Put records a answer; Save writes it.
func (c *JudgeCache) Put(qh string, id record.HistoryID, rev int64, answer string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	e := judgeEntry{Answer: answer, At: c.now().UTC()}
	k := judgeKey(qh, id, rev)
	c.entries[k] = e
	if c.added == nil {
		c.added = map[string]judgeEntry{}
	}
	c.added[k] = e
}

// load reads the file once; a missing or unreadable file is an empty cache.
func (c *JudgeCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = c.read()
}

func (c *JudgeCache) read() map[string]judgeEntry {
	out := map[string]judgeEntry{}
	st, err := os.Stat(c.path)
	if err != nil || st.Size() > maxJudgeCacheFile {
		return out
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return out
	}
	var f judgeFile
	if json.Unmarshal(data, &f) != nil || f.Version != judgeCacheVersion {
		return out
	}
	for k, e := range f.Entries {
		if e.Answer == AnswerSame || e.Answer == AnswerDifferent {
			out[k] = e
		}
	}
	return out
}

// Save merges the answers added since the last save into the file, trimmed to the bound, and
// writes it atomically with mode 0600.
func (c *JudgeCache) Save() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.added) == 0 {
		return nil
	}
	merged := c.read()
	for k, e := range c.added {
		merged[k] = e
	}
	now := c.now()
	keys := make([]string, 0, len(merged))
	for k, e := range merged {
		if now.Sub(e.At) > judgeCacheTTL {
			delete(merged, k)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) > c.max {
		slices.SortFunc(keys, func(a, b string) int { return merged[b].At.Compare(merged[a].At) })
		for _, k := range keys[c.max:] {
			delete(merged, k)
		}
	}
	data, err := json.Marshal(judgeFile{Version: judgeCacheVersion, Entries: merged})
	if err != nil {
		return goerr.Wrap(err, "failed to encode the judge cache")
	}
	if err := writeFileAtomic(c.path, data); err != nil {
		return err
	}
	c.entries, c.added = merged, nil
	return nil
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return goerr.Wrap(err, "failed to create the judge cache directory", goerr.V("dir", dir))
	}
	f, err := os.CreateTemp(dir, ".judge-cache-*")
	if err != nil {
		return goerr.Wrap(err, "failed to write the judge cache", goerr.V("dir", dir))
	}
	tmp := f.Name()
	defer func() {
		if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return goerr.Wrap(err, "failed to write the judge cache")
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return goerr.Wrap(err, "failed to write the judge cache")
	}
	if err := f.Close(); err != nil {
		return goerr.Wrap(err, "failed to write the judge cache")
	}
	if err := os.Rename(tmp, path); err != nil {
		return goerr.Wrap(err, "failed to write the judge cache", goerr.V("path", path))
	}
	return nil
}
