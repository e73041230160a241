// Package inputhist keeps the line editor's input history on disk redacted: every line is
// passed through the redaction step (the workspace's keyed redactor) before it is written, so
// the file never holds what was typed raw. The editor keeps its own in-memory history of the
// session (raw, for recall with the arrow keys); this file only seeds the next session.
//
// The line editor (github.com/ergochat/readline) writes its history file itself, with no hook,
// so it is configured without one (HistoryFile "", DisableAutoSaveHistory true) and the
// caller feeds it: Lines() at start through SaveToHistory, and each line read to both
// SaveToHistory and Add.
package inputhist

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/m-mizutani/goerr/v2"
)

// Redactor is the redaction step (redacthist.Redactor has this method).
type Redactor interface {
	RedactString(s string) (string, map[string]int)
}

// DefaultLimit is the number of lines kept when Open is given none.
const DefaultLimit = 1000

// File is the redacted input history file. It is safe for concurrent use.
type File struct {
	path  string
	red   Redactor
	limit int

	mu    sync.Mutex
	lines []string
}

// Open reads the history file at path (missing: empty), keeping the newest limit lines. Lines
// already there pass through r too, so a file written raw by an earlier version is redacted
// (and rewritten) on first use.
func Open(path string, r Redactor, limit int) (*File, error) {
	if r == nil {
		return nil, goerr.New("input history needs a redactor")
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	f := &File{path: path, red: r, limit: limit}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, goerr.Wrap(err, "failed to read the input history", goerr.V("path", path))
	}
	changed := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		red, _ := r.RedactString(line)
		if red != line {
			changed = true
		}
		f.lines = append(f.lines, red)
	}
	if len(f.lines) > limit {
		f.lines = f.lines[len(f.lines)-limit:]
		changed = true
	}
	if changed {
		if err := f.rewrite(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Lines returns the stored (redacted) lines, oldest first.
func (f *File) Lines() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

// Add redacts input and appends its non-empty lines to the file (0600).
func (f *File) Add(input string) error {
	var add []string
	for _, line := range strings.Split(input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		red, _ := f.red.RedactString(line)
		add = append(add, red)
	}
	if len(add) == 0 {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, add...)
	if len(f.lines) > 2*f.limit {
		f.lines = append([]string(nil), f.lines[len(f.lines)-f.limit:]...)
		return f.rewrite()
	}
	fh, err := os.OpenFile(f.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return goerr.Wrap(err, "failed to open the input history", goerr.V("path", f.path))
	}
	_, werr := fh.WriteString(strings.Join(add, "\n") + "\n")
	cerr := fh.Close()
	if werr != nil || cerr != nil {
		return goerr.Wrap(errorsJoin(werr, cerr), "failed to write the input history", goerr.V("path", f.path))
	}
	return nil
}

// rewrite replaces the file with f.lines (temp file and rename, 0600).
func (f *File) rewrite() error {
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, ".input_history-*")
	if err != nil {
		return goerr.Wrap(err, "failed to rewrite the input history", goerr.V("path", f.path))
	}
	name := tmp.Name()
	var b strings.Builder
	for _, l := range f.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, werr := tmp.WriteString(b.String())
	cerr := tmp.Close()
	if werr == nil && cerr == nil {
		werr = os.Rename(name, f.path)
		if werr == nil {
			return nil
		}
	}
	_ = os.Remove(name)
	return goerr.Wrap(errorsJoin(werr, cerr), "failed to rewrite the input history", goerr.V("path", f.path))
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
