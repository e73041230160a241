package evidence

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alertchat/alertchat/pkg/tool"
)

// Grep limits.
const (
	// MaxContext is the most lines of context around a match.
	MaxContext = 5
	// maxLineText is the most bytes of a line returned (cut at a character boundary).
	maxLineText = 1000
	// grepChunk is how much is searched at once; a line longer than twice this is split.
	grepChunk = 1 << 20
)

// GrepOptions are grep_evidence's arguments.
type GrepOptions struct {
	Pattern    string
	Path       string // a glob over the files' paths; "" for every file
	IgnoreCase bool
	Context    int
	Limit      int
}

// Match is one matching line.
type Match struct {
	Path   string
	Line   int64
	Text   string
	Before []string
	After  []string
}

// GrepResult is grep_evidence's answer.
type GrepResult struct {
	Matches       []Match
	FilesSearched int
	BytesSearched int64
	Truncated     bool
}

// Grep searches the text of the folders' files (gzip read through; binary files skipped) for
// lines matching an RE2 pattern, in path order, up to o.Limit matches.
func (s *Set) Grep(ctx context.Context, o GrepOptions) (*GrepResult, error) {
	flags := "(?m)"
	if o.IgnoreCase {
		flags = "(?mi)" // Unicode case folding: "é" finds "É", "ｋ" is not "k"
	}
	re, err := regexp.Compile(flags + o.Pattern)
	if err != nil {
		return nil, userErrorf("invalid pattern (RE2 syntax): %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	sr := newSearcher(o.Pattern, re, o.IgnoreCase)
	sel, err := s.selector(o.Path)
	if err != nil {
		return nil, err
	}
	res := &GrepResult{Matches: []Match{}}
	var ferr error
	var objects []entry // Cloud Storage objects waiting to be searched together
	flush := func() bool {
		if len(objects) > 0 {
			ferr = s.grepObjects(ctx, re, o, objects, res)
			objects = objects[:0]
		}
		return ferr == nil && !res.Truncated
	}
	walkErr := s.files(sel.root, func(e entry) bool {
		if !sel.match(e.logical()) {
			return true
		}
		if err := ctx.Err(); err != nil {
			ferr = err
			return false
		}
		if e.f.gcs != nil {
			if objects = append(objects, e); len(objects) == grepObjectsAtOnce {
				return flush()
			}
			return true
		}
		if !flush() {
			return false
		}
		if ferr = s.grepFile(ctx, re, sr, e, o, res); ferr != nil {
			return false
		}
		return !res.Truncated
	})
	if walkErr != nil {
		return nil, walkErr
	}
	if ferr == nil && !res.Truncated {
		flush()
	}
	if ferr != nil {
		return nil, ferr
	}
	return res, nil
}

// grepObjectsAtOnce is how many Cloud Storage objects grep reads at the same time: each read
// waits on the network more than on the search.
const grepObjectsAtOnce = 4

// grepObjects searches objects at the same time, each into a result of its own (memory: one
// buffer and at most o.Limit matches each), and adds their results to res in path order.
func (s *Set) grepObjects(ctx context.Context, re *regexp.Regexp, o GrepOptions, objects []entry, res *GrepResult) error {
	parts := make([]GrepResult, len(objects))
	errs := make([]error, len(objects))
	var wg sync.WaitGroup
	for i, e := range objects {
		parts[i].Matches = []Match{}
		wg.Go(func() {
			errs[i] = s.grepFile(ctx, re, newSearcher(o.Pattern, re, o.IgnoreCase), e, o, &parts[i])
		})
	}
	wg.Wait()
	for i := range parts {
		if errs[i] != nil {
			return errs[i]
		}
		res.FilesSearched += parts[i].FilesSearched
		res.BytesSearched += parts[i].BytesSearched
		for _, m := range parts[i].Matches {
			if len(res.Matches) == o.Limit {
				res.Truncated = true
				return nil
			}
			res.Matches = append(res.Matches, m)
		}
		if parts[i].Truncated {
			res.Truncated = true
			return nil
		}
	}
	return nil
}

// selector is a path argument: the part without wildcards to walk, and the glob to match.
type selector struct {
	root string
	glob string
}

func (s *Set) selector(p string) (selector, error) {
	if p == "" || p == "*" || p == "**" {
		return selector{}, nil
	}
	// The glob obeys the confinement rules too: no "..", no absolute path, no hidden name.
	c, err := cleanRel(p)
	if err != nil {
		return selector{}, err
	}
	if strings.HasPrefix(p, "./") {
		p = c
	}
	if _, err := path.Match(c, ""); err != nil {
		return selector{}, userErrorf("invalid path glob %q", p)
	}
	// Walk from the longest leading part without wildcards.
	var fixed []string
	for _, el := range strings.Split(c, "/") {
		if strings.ContainsAny(el, `*?[`) {
			break
		}
		fixed = append(fixed, el)
	}
	return selector{root: strings.Join(fixed, "/"), glob: c}, nil
}

// match reports whether the file at logical path p is selected: the glob matches the whole
// path, or (without a "/") its name, or names a folder p is in.
func (sel selector) match(p string) bool {
	g := sel.glob
	if g == "" {
		return true
	}
	if ok, _ := path.Match(g, p); ok {
		return true
	}
	if !strings.Contains(g, "/") {
		if ok, _ := path.Match(g, path.Base(p)); ok {
			return true
		}
	}
	// A folder: every file under it; "**" in a glob as any depth of folders.
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		if ok, _ := path.Match(g, d); ok {
			return true
		}
	}
	if strings.Contains(g, "**") {
		if ok, _ := path.Match(strings.ReplaceAll(g, "**/", "*/"), p); ok {
			return true
		}
		re := globDeep(g)
		return re != nil && re.MatchString(p)
	}
	return false
}

// globDeep turns a glob with "**" into a regexp where "**" crosses folders.
func globDeep(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			b.WriteString(".*")
			i++
			if i+1 < len(g) && g[i+1] == '/' {
				i++
				b.WriteString("/?")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// pending is a match still waiting for its lines of context after it.
type pending struct {
	i    int // index in res.Matches
	need int
}

func (s *Set) grepFile(ctx context.Context, re *regexp.Regexp, sr *searcher, e entry, o GrepOptions, res *GrepResult) error {
	r, err := openEntry(e, s.bombFloor)
	if err != nil {
		// It changed since the walk, or it is a .gz that is not gzip: not text to search.
		return nil
	}
	defer r.Close()
	buf := make([]byte, 2*grepChunk)
	n := 0         // bytes held in buf
	var line int64 // lines before buf[0]
	var tail [][]byte
	var waiting []pending
	first := true
	eof, more := false, false
	for !eof {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Fill to at least grepChunk bytes (gzip reads come in small pieces).
		for (n < grepChunk || more) && n < len(buf) && !eof {
			m, err := r.Read(buf[n:])
			n += m
			res.BytesSearched += int64(m)
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				var tl *errTooLarge
				if errors.As(err, &tl) {
					return userErrorf("%s", err.Error())
				}
				return userErrorf("%s cannot be read: %v", e.logical(), err)
			}
		}
		if first {
			first = false
			if bytes.IndexByte(buf[:min(n, 8192)], 0) >= 0 {
				return nil // binary
			}
			res.FilesSearched++
		}
		data := buf[:n]
		end := len(data)
		more = false
		if !eof {
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				end = i + 1
			} else if n < len(buf) {
				more = true // an incomplete line: read more
				continue
			} // else: a line longer than the buffer is split here
		}
		chunk := data[:end]
		// Lines of context owed to earlier matches come first.
		if len(waiting) > 0 {
			waiting = fillAfter(res, waiting, chunk)
		}
		sr.chunk(chunk)
		counted := 0
		pos := 0
		for pos < len(chunk) && !res.Truncated {
			loc := sr.find(chunk[pos:])
			if loc == nil {
				break
			}
			ms := pos + loc[0]
			ls := pos + bytes.LastIndexByte(chunk[pos:ms], '\n') + 1
			le := len(chunk)
			if i := bytes.IndexByte(chunk[ms:], '\n'); i >= 0 {
				le = ms + i
			}
			if pos+loc[1] > le && !re.Match(chunk[ls:le]) {
				pos = le + 1 // the match ran across lines; this line alone does not match
				continue
			}
			line += int64(bytes.Count(chunk[counted:ls], []byte{'\n'}))
			counted = ls
			if len(res.Matches) == o.Limit {
				res.Truncated = true
				break
			}
			m := Match{Path: e.logical(), Line: line + 1, Text: lineText(chunk[ls:le])}
			if o.Context > 0 {
				m.Before = before(chunk[:ls], tail, o.Context)
				m.After = []string{}
			}
			if o.Context > 0 && le < len(chunk) {
				m.After = firstLines(chunk[le+1:], o.Context)
			}
			res.Matches = append(res.Matches, m)
			if got := len(m.After); o.Context > 0 && got < o.Context && !eof {
				// The chunk ends before the lines after the match: the next one gives them.
				waiting = append(waiting, pending{i: len(res.Matches) - 1, need: o.Context - got})
			}
			pos = le + 1
		}
		if res.Truncated {
			return nil
		}
		line += int64(bytes.Count(chunk[counted:], []byte{'\n'}))
		if o.Context > 0 {
			tail = lastLines(chunk, tail, o.Context)
		}
		n = copy(buf, data[end:])
	}
	return nil
}

// fillAfter gives each waiting match the lines of text it still needs, and returns those that
// still need more. text starts at a line's beginning.
func fillAfter(res *GrepResult, waiting []pending, text []byte) []pending {
	var out []pending
	for _, w := range waiting {
		lines := firstLines(text, w.need)
		m := &res.Matches[w.i]
		m.After = append(m.After, lines...)
		if got := len(lines); got < w.need {
			out = append(out, pending{i: w.i, need: w.need - got})
		}
	}
	return out
}

// firstLines are up to n whole lines at the start of text (an unterminated last line counts
// only when it ends text at a line end, which the caller's chunking ensures).
func firstLines(text []byte, n int) []string {
	var out []string
	for len(text) > 0 && len(out) < n {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, lineText(text))
			break
		}
		out = append(out, lineText(text[:i]))
		text = text[i+1:]
	}
	return out
}

// before are the n lines before a match: from text (which ends where the match's line
// begins), then from tail (the last lines of the chunks before).
func before(text []byte, tail [][]byte, n int) []string {
	var rev []string
	t := bytes.TrimSuffix(text, []byte{'\n'})
	exhausted := len(text) == 0
	for len(rev) < n && !exhausted {
		i := bytes.LastIndexByte(t, '\n')
		rev = append(rev, lineText(t[i+1:]))
		if i < 0 {
			exhausted = true
			break
		}
		t = t[:i]
	}
	for i := len(tail) - 1; exhausted && i >= 0 && len(rev) < n; i-- {
		rev = append(rev, lineText(tail[i]))
	}
	out := make([]string, len(rev))
	for i, l := range rev {
		out[len(rev)-1-i] = l
	}
	return out
}

// lastLines keeps the last n lines of chunk, copied, with those of earlier chunks in front
// when chunk holds fewer.
func lastLines(chunk []byte, tail [][]byte, n int) [][]byte {
	var got [][]byte // last first
	t := bytes.TrimSuffix(chunk, []byte{'\n'})
	exhausted := len(chunk) == 0
	for len(got) < n && !exhausted {
		i := bytes.LastIndexByte(t, '\n')
		got = append(got, bytes.Clone(t[i+1:]))
		if i < 0 {
			exhausted = true
			break
		}
		t = t[:i]
	}
	var out [][]byte
	if exhausted {
		out = append(out, tail[max(0, len(tail)-(n-len(got))):]...)
	}
	for i := len(got) - 1; i >= 0; i-- {
		out = append(out, got[i])
	}
	return out
}

// lineText is a line as returned: without its "\r", cut to maxLineText bytes at a character
// boundary and outside a token (tool.CutText), invalid UTF-8 replaced.
func lineText(b []byte) string {
	b = bytes.TrimSuffix(b, []byte{'\r'})
	cut := false
	if len(b) > maxLineText {
		b, cut = b[:len(tool.CutText(string(b[:maxLineText+1]), maxLineText))], true
	}
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\ufffd")
	}
	if cut {
		s += "…"
	}
	return s
}
