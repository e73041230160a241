package resilient

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// FileMemory is a Memory kept in one small file (0600), written atomically. A file that is
// missing, unreadable or written for another backend means "closed": forgetting an outage only
// costs one call's budget, never a turn.
type FileMemory struct {
	path    string
	backend string
}

// NewFileMemory returns the memory kept at path for the backend named backend.
func NewFileMemory(path, backend string) *FileMemory {
	return &FileMemory{path: path, backend: backend}
}

type memoryRecord struct {
	Backend  string    `json:"backend"`
	OpenedAt time.Time `json:"opened_at"`
}

// Load implements Memory.
func (m *FileMemory) Load() (time.Time, bool) {
	data, err := os.ReadFile(m.path)
	if err != nil {
		return time.Time{}, false
	}
	var r memoryRecord
	if json.Unmarshal(data, &r) != nil || r.Backend != m.backend || r.OpenedAt.IsZero() {
		return time.Time{}, false
	}
	return r.OpenedAt, true
}

// Opened implements Memory. Failing to record is harmless (see FileMemory), so errors are
// dropped.
func (m *FileMemory) Opened(at time.Time) {
	data, err := json.Marshal(memoryRecord{Backend: m.backend, OpenedAt: at})
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(m.path), ".breaker-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), m.path) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// Closed implements Memory.
func (m *FileMemory) Closed() { _ = os.Remove(m.path) }
