// Package inputhist keeps the line editor's input history on disk redacted: every question is
// passed through the redaction step (the workspace's keyed redactor) whole before it is written,
// so the file never holds what was typed raw. The editor keeps its own in-memory history of the
// session (raw, for recall with the arrow keys); this file only seeds the next session.
//
// A question is redacted and stored whole, never line by line: a private key pasted into the
// chat or typed in a """ block is one value only as a whole (its body lines alone are not
// recognisable), and so are other values a line break cuts. The file therefore holds one
// question an entry, its line breaks escaped (see escape), after a header line that names the
// format. A file without the header, written by an earlier version one line an entry, is
// redacted as one text when opened (so a key spread over its lines is still found) and
// rewritten in this format.
//
// The line editor (github.com/ergochat/readline) writes its history file itself, with no hook,
// so it is configured without one (HistoryFile "", DisableAutoSaveHistory true) and the
// caller feeds it: Entries() at start through SaveToHistory, and each question read to Add.
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

// DefaultLimit is the number of questions kept when Open is given none.
const DefaultLimit = 1000

// header is the first line of a file in this format: one escaped question a line.
const header = "#alertchat input history v2"

// File is the redacted input history file. It is safe for concurrent use.
type File struct {
	path  string
	red   Redactor
	limit int

	mu      sync.Mutex
	entries []string
}

// Open reads the history file at path (missing: empty), keeping the newest limit questions.
// Questions already there pass through r too, so a file written raw by an earlier version (or
// under another key) is redacted, and rewritten, on first use.
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
	if rest, ok := bytes.CutPrefix(data, []byte(header+"\n")); ok {
		sc := bufio.NewScanner(bytes.NewReader(rest))
		sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
		for sc.Scan() {
			entry := unescape(sc.Text())
			if strings.TrimSpace(entry) == "" {
				continue
			}
			red, _ := r.RedactString(entry)
			changed = changed || red != entry
			f.entries = append(f.entries, red)
		}
		if err := sc.Err(); err != nil {
			return nil, goerr.Wrap(err, "failed to read the input history", goerr.V("path", path))
		}
	} else if len(data) > 0 {
		// an earlier version's file, one line an entry: redact it as one text first, so a value
		// written over several of its lines is found whole
		red, _ := r.RedactString(string(data))
		for _, line := range strings.Split(red, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				f.entries = append(f.entries, line)
			}
		}
		changed = true
	}
	if len(f.entries) > limit {
		f.entries = f.entries[len(f.entries)-limit:]
		changed = true
	}
	if changed {
		if err := f.rewrite(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Entries returns the stored (redacted) questions, oldest first. A question of several lines
// is one entry holding its line breaks.
func (f *File) Entries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.entries...)
}

// Add redacts the question whole and appends it to the file (0600) as one entry. A blank
// question is not kept.
func (f *File) Add(question string) error {
	question = strings.TrimSpace(strings.ReplaceAll(question, "\r\n", "\n"))
	if question == "" {
		return nil
	}
	red, _ := f.red.RedactString(question)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.entries = append(f.entries, red)
	if len(f.entries) > 2*f.limit {
		f.entries = append([]string(nil), f.entries[len(f.entries)-f.limit:]...)
		return f.rewrite()
	}
	st, err := os.Stat(f.path)
	if err != nil || st.Size() == 0 {
		// no file yet (or an empty one): write it whole, header first
		return f.rewrite()
	}
	fh, err := os.OpenFile(f.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return goerr.Wrap(err, "failed to open the input history", goerr.V("path", f.path))
	}
	_, werr := fh.WriteString(escape(red) + "\n")
	cerr := fh.Close()
	if werr != nil || cerr != nil {
		return goerr.Wrap(errorsJoin(werr, cerr), "failed to write the input history", goerr.V("path", f.path))
	}
	return nil
}

// rewrite replaces the file with f.entries (temp file and rename, 0600).
func (f *File) rewrite() error {
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, ".input_history-*")
	if err != nil {
		return goerr.Wrap(err, "failed to rewrite the input history", goerr.V("path", f.path))
	}
	name := tmp.Name()
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, e := range f.entries {
		b.WriteString(escape(e))
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

// escape writes an entry on one line: a backslash as \\, a line break as \n, a carriage
// return as \r.
func escape(s string) string {
	if !strings.ContainsAny(s, "\\\n\r") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescape is escape's inverse; a backslash before any other byte stands for itself.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(c)
			continue
		}
		i++
	}
	return b.String()
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
