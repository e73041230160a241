package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// smallStream makes windows small, so that tests cross many of them; the left and right
// context still hold every bounded neighbourhood (see stream.go).
var smallStream = streamSizes{window: 12 << 10, left: 9 << 10, right: 9 << 10, max: 64 << 10}

// chunkReader returns the text in reads of random sizes, as a pipe does.
type chunkReader struct {
	s   string
	rng *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := min(len(p), len(c.s), 1+c.rng.IntN(3000))
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

func copyString(t testing.TB, r *Redactor, s string, sz streamSizes, seed uint64) (string, Counts) {
	t.Helper()
	var out bytes.Buffer
	counts, err := r.copyWith(&out, &chunkReader{s: s, rng: rand.New(rand.NewPCG(seed, 7))}, sz)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), counts
}

// firstDiff describes where two outputs part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\nstream %q\nstring %q", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

func checkSame(t *testing.T, r *Redactor, s string, sz streamSizes, seed uint64) {
	t.Helper()
	want, wantCounts := r.String(s)
	got, counts := copyString(t, r, s, sz, seed)
	if got != want {
		t.Fatalf("Copy and String differ %s", firstDiff(got, want))
	}
	if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
		t.Fatalf("counts %v, String's %v", counts, wantCounts)
	}
}

// The corpora, one text after another, come out of Copy with small windows exactly as String
// writes them.
func TestCopyIsStringOnTheCorpora(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for _, path := range []string{corpusPath, evalSetPath, freshSetPath, thirdSetPath} {
		for _, rec := range loadRecords(t, path) {
			b.WriteString(rec.Text)
			b.WriteString("\n")
		}
	}
	text := b.String()
	for i, sz := range []streamSizes{smallStream, defaultStreamSizes} {
		checkSame(t, all, text, sz, uint64(i))
	}
}

// filler is neutral text: words and line breaks, nothing to redact.
func filler(n int) string {
	const words = "the quick brown fox jumps over the lazy dog while the night shift reads the logs\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words)
	}
	return b.String()[:n]
}

// Values that span lines, and long ones, put at every position around the places a window
// ends: each comes out as String writes it.
func TestCopyBoundaries(t *testing.T) {
	t.Parallel()
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z8b2xPQ3Qy5oW0XxNf7Kcs2w\n" +
		"q6Mb9oyRZtB1pMzL4k3W9Kx4V0i2DzNw8rR0yCq3ZlH2bQy7m5vA1c9uT2LsYw8b\nZq1N5nQ8cV3kH2xJ7tM4wR6yP0sD9fA1gB3hC5jE7kI9lK2mN4oQ6rS8tU0vW2xY\n" +
		"-----END RSA PRIVATE KEY-----"
	cases := map[string]string{
		"pem":              pem,
		"pem in json":      `{"key": "` + strings.ReplaceAll(pem, "\n", `\n`) + `", "ip": "10.1.2.3"}`,
		"pem without end":  `{"key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw", "next": "value"}`,
		"yaml name value":  "env:\n  - name: DB_PASSWORD\n    value: Tr0ub4dor-and-3\n  - name: REGION\n    value: us-east-1",
		"key then value":   "password:\n  Wint3r-Is-C0ming-42\nuser: alice@example.com",
		"ini":              "[database]\nhost = 10.0.0.5\npassword = hunter2hunter2\n",
		"basic auth":       "GET / HTTP/1.1\r\nAuthorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l\r\nHost: example.com\r\n",
		"long quoted":      `{"client_secret": "` + strings.Repeat("Ab9_", 400) + `"}`,
		"webhook":          "notify https://hooks.slack.com/services/T00000000/B00000000/" + strings.Repeat("X", 300) + " done",
		"fullwidth phone":  "担当者の電話は０９０－１２３４－５６７８です。\nメールは yamada@example.jp",
		"url credentials":  "mongodb://admin:S3cretPass@db.internal:27017/app?authSource=admin",
		"curl":             "curl -u deploy:Sup3r-S3cret https://ci.example.com/api",
		"card over a line": "card 4111 1111\n1111 1111 and ssn 078-05-1123",
		"placeholders":     "[REDACTED_IP] [REDACTED_EMAIL_abcdef1234] 10.9.8.7",
	}
	r := all.WithTokens(testTokenizer(t, testKey))
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// the first window holds left+window+right bytes: its target cut is at
			// left+window; sweep the case across it
			edge := smallStream.left + smallStream.window
			for p := edge - len(c) - 64; p <= edge+64; p += 1 + len(c)/48 {
				s := filler(p) + c + "\n" + filler(smallStream.window+smallStream.right)
				checkSame(t, r, s, smallStream, uint64(p))
			}
		})
	}
}

// A value longer than the largest window (a private key of 200 KB) is written as one
// placeholder, its rest dropped, as String writes it; so is a key block without an END line,
// which runs to the end of the text.
func TestCopyValueLongerThanTheLargestWindow(t *testing.T) {
	t.Parallel()
	var body strings.Builder
	for body.Len() < 200<<10 {
		body.WriteString("MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z8b2xPQ3Qy5oW0XxNf7Kcs2w\n")
	}
	for name, s := range map[string]string{
		"long key": filler(30<<10) + "-----BEGIN PRIVATE KEY-----\n" + body.String() + "-----END PRIVATE KEY-----\nafter 10.0.0.1\n" + filler(20<<10),
		"no end":   filler(30<<10) + "-----BEGIN PRIVATE KEY-----\n" + body.String() + filler(20<<10),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkSame(t, all, s, smallStream, 1)
			out, _ := copyString(t, all, s, smallStream, 2)
			if strings.Contains(out, "MIIE") || strings.Count(out, "[REDACTED_SECRET]") != 1 {
				t.Fatalf("key written: %d bytes, %d placeholders", len(out), strings.Count(out, "[REDACTED_SECRET]"))
			}
		})
	}
}

func TestCopyErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	var out bytes.Buffer
	_, err := all.Copy(&out, io.MultiReader(strings.NewReader(filler(3<<20)), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "read") {
		t.Fatalf("read error: %v", err)
	}
	_, err = all.Copy(errWriter{boom}, strings.NewReader("mail a@b.example"))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "write") {
		t.Fatalf("write error: %v", err)
	}
	// empty input, and a disabled redactor, copy as they are
	for _, r := range []*Redactor{all, New()} {
		out.Reset()
		if _, err := r.Copy(&out, strings.NewReader("")); err != nil || out.Len() != 0 {
			t.Fatalf("empty: %v %q", err, out.String())
		}
	}
	out.Reset()
	if _, err := New().Copy(&out, strings.NewReader("a@b.example")); err != nil || out.String() != "a@b.example" {
		t.Fatalf("disabled: %v %q", err, out.String())
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// logStream generates log lines without holding them: n bytes in all.
type logStream struct {
	n, line int
	pending []byte
}

func (l *logStream) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && l.n > 0 {
		if len(l.pending) == 0 {
			l.line++
			l.pending = fmt.Appendf(l.pending[:0], `2025-11-26T10:%02d:%02dZ sshd[%d]: Failed password for deploy from 203.0.%d.%d port %d ssh2; `+
				`{"user":"user%d@example.com","src_ip":"198.51.100.%d","api_key":"sk_live_%024d","msg":"ok"}`+"\n",
				l.line%60, l.line%60, 1000+l.line%9000, l.line%250, l.line%200+1, 40000+l.line%20000, l.line%500, l.line%250, l.line)
		}
		c := copy(p[k:], l.pending[:min(len(l.pending), l.n)])
		l.pending = l.pending[c:]
		k += c
		l.n -= c
	}
	return k, nil
}

// The memory Copy uses does not grow with the input: 48 MB of logs stream through a heap that
// stays far below the input's size.
func TestCopyMemoryIsBounded(t *testing.T) {
	const size = 48 << 20
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak uint64
	w := &heapWatcher{peak: &peak}
	counts, err := all.Copy(w, &logStream{n: size})
	if err != nil {
		t.Fatal(err)
	}
	if w.n < size/2 {
		t.Fatalf("wrote %d bytes", w.n)
	}
	if counts[IP] == 0 || counts[Email] == 0 || counts[APIKey] == 0 {
		t.Fatalf("counts %v", counts)
	}
	grew := int64(peak) - int64(base.HeapInuse)
	t.Logf("heap in use grew by at most %d KB", grew>>10)
	if grew > 16<<20 {
		t.Fatalf("heap in use grew by %d MB for %d MB of input", grew>>20, size>>20)
	}
}

// heapWatcher discards what is written and samples the heap in use now and then.
type heapWatcher struct {
	n, writes int
	peak      *uint64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	h.n += len(p)
	h.writes++
	if h.writes%4096 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		*h.peak = max(*h.peak, ms.HeapInuse)
	}
	return len(p), nil
}

// FuzzCopy puts any text among neutral lines, across the places windows end, and checks that
// Copy writes what String writes for the whole.
func FuzzCopy(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, uint16(0))
	}
	f.Add("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\n-----END PRIVATE KEY-----", uint16(3000))
	f.Add("password:\n  Wint3r-Is-C0ming-42", uint16(9000))
	sz := streamSizes{window: 4096, left: 2048, right: 2048, max: 1 << 20}
	f.Fuzz(func(t *testing.T, s string, at uint16) {
		if len(s) > 1024 {
			s = s[:1024]
		}
		p := int(at) % (sz.left + sz.window + 512)
		text := filler(p) + s + "\n" + filler(2*sz.window) + s + filler(700)
		want, _ := all.String(text)
		got, _ := copyString(t, all, text, sz, uint64(at))
		if got != want {
			t.Fatalf("Copy and String differ %s", firstDiff(got, want))
		}
	})
}

// BenchmarkCopy streams 32 MB of logs; BenchmarkCopyWhole redacts the same text in one
// String call, as "alertchat redact" did before it streamed.
func BenchmarkCopy(b *testing.B) {
	data, _ := io.ReadAll(&logStream{n: 32 << 20})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := all.Copy(io.Discard, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCopyWhole(b *testing.B) {
	data, _ := io.ReadAll(&logStream{n: 32 << 20})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		out, _ := all.String(string(data))
		_, _ = io.WriteString(io.Discard, out)
	}
}

func TestLastNewline(t *testing.T) {
	t.Parallel()
	for _, size := range []int{0, 1, 4095, 4096, 4097, 12288, 100000} {
		for _, at := range []int{-1, 0, 1, 4095, 4096, 4097, 8191, 8192, 50000, size - 1} {
			b := bytes.Repeat([]byte("x"), size)
			if at >= 0 && at < size {
				b[at] = '\n'
				if at > 10 {
					b[at/2] = '\n' // an earlier one must not be taken
				}
			}
			if got, want := lastNewline(b), bytes.LastIndexByte(b, '\n'); got != want {
				t.Errorf("size %d, newline at %d: lastNewline = %d, want %d", size, at, got, want)
			}
		}
	}
}
