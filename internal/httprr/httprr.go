// Package httprr reads recordings of real HTTP traffic in the "httprr trace v1" format
// (golang.org/x/oscar's httprr, as google/adk-go records its Gemini tests through go-genai),
// and replays them to a client from a loopback server, so that tests drive the real genai SDK
// with what the real API sent.
//
// Recordings of third parties are not copied into this repository: Module obtains a Go
// module's files (e.g. google.golang.org/adk, Apache-2.0) from the module proxy at test time
// with `go mod download`, and reads them from the module cache.
package httprr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// header is the first line of a recording.
const header = "httprr trace v1\n"

// Exchange is one recorded request and its response.
type Exchange struct {
	Method, Path, RawQuery string
	RequestHeader          http.Header
	RequestBody            []byte

	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}

// Parse reads a recording: the header line, then for each exchange a line "<reqlen> <resplen>"
// followed by that many bytes of raw HTTP request and of raw HTTP response.
func Parse(data []byte) ([]Exchange, error) {
	if !bytes.HasPrefix(data, []byte(header)) {
		return nil, errors.New("not an httprr trace v1 recording")
	}
	rest := data[len(header):]
	var out []Exchange
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("exchange %d: no length line", len(out)+1)
		}
		var reqLen, respLen int
		fields := bytes.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("exchange %d: bad length line %q", len(out)+1, line)
		}
		var err1, err2 error
		reqLen, err1 = strconv.Atoi(string(fields[0]))
		respLen, err2 = strconv.Atoi(string(fields[1]))
		if err1 != nil || err2 != nil || reqLen < 0 || respLen < 0 || reqLen > len(after) || respLen > len(after)-reqLen {
			return nil, fmt.Errorf("exchange %d: bad lengths %q", len(out)+1, line)
		}
		ex, err := parseExchange(after[:reqLen], after[reqLen:reqLen+respLen])
		if err != nil {
			return nil, fmt.Errorf("exchange %d: %w", len(out)+1, err)
		}
		out = append(out, ex)
		rest = after[reqLen+respLen:]
	}
	return out, nil
}

func parseExchange(rawReq, rawResp []byte) (Exchange, error) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rawReq)))
	if err != nil {
		return Exchange{}, fmt.Errorf("request: %w", err)
	}
	reqBody, err := io.ReadAll(req.Body)
	if err != nil {
		return Exchange{}, fmt.Errorf("request body: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rawResp)), req)
	if err != nil {
		return Exchange{}, fmt.Errorf("response: %w", err)
	}
	respBody, err := io.ReadAll(resp.Body)
	if err != nil {
		return Exchange{}, fmt.Errorf("response body: %w", err)
	}
	return Exchange{
		Method: req.Method, Path: req.URL.Path, RawQuery: req.URL.RawQuery, RequestHeader: req.Header, RequestBody: reqBody,
		Status: resp.StatusCode, ResponseHeader: resp.Header, ResponseBody: respBody,
	}, nil
}

// Contents returns the "contents" of a recorded generateContent request body, as JSON values
// (for comparing with another request's regardless of key order and spacing).
func (e Exchange) Contents() ([]any, error) {
	var body struct {
		Contents []any `json:"contents"`
	}
	if err := json.Unmarshal(e.RequestBody, &body); err != nil {
		return nil, err
	}
	return body.Contents, nil
}

// Module returns the directory of a Go module in the module cache, downloading it through the
// module proxy (`go mod download -json module@version`) when it is not there yet. Without the
// go command or the proxy the test is skipped, or fails under CI=true.
func Module(t testing.TB, module, version string) string {
	t.Helper()
	key := module + "@" + version
	modMu.Lock()
	m, ok := mods[key]
	if !ok {
		m = &modResult{}
		mods[key] = m
	}
	modMu.Unlock()
	m.once.Do(func() { m.dir, m.err = download(key) })
	if m.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("recordings of real traffic (%s) could not be obtained: %v", key, m.err)
		}
		t.Skipf("recordings of real traffic (%s) could not be obtained: %v", key, m.err)
	}
	return m.dir
}

type modResult struct {
	once sync.Once
	dir  string
	err  error
}

var (
	modMu sync.Mutex
	mods  = map[string]*modResult{}
)

func download(key string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", key)
	// Outside any module, so that the project's go.mod is neither read nor changed.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir   string
		Error string
	}
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", errors.New(info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", key, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in %q", key, out)
	}
	return info.Dir, nil
}

// Load reads and parses a recording at path (relative to a module's directory, see Module).
func Load(t testing.TB, dir, path string) []Exchange {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ex
}

// Replay is a loopback server that answers the n-th request it receives with the n-th
// recorded response, and keeps the requests (their bodies) for the test to compare with the
// recorded ones. A request beyond the recording, or for another method and path than the
// recorded one, is answered 500 with a message saying so.
type Replay struct {
	srv *httptest.Server
	ex  []Exchange

	mu   sync.Mutex
	got  []Exchange
	errs []string
}

// NewReplay starts a Replay of ex, closed when the test ends.
func NewReplay(t testing.TB, ex []Exchange) *Replay {
	t.Helper()
	r := &Replay{ex: ex}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the server's base URL (genai.HTTPOptions.BaseURL, GOOGLE_GEMINI_BASE_URL).
func (r *Replay) URL() string { return r.srv.URL }

// Requests are the requests received, in order.
func (r *Replay) Requests() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.got...)
}

// Mismatches are the requests that did not match the recording's.
func (r *Replay) Mismatches() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func (r *Replay) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	n := len(r.got)
	r.got = append(r.got, Exchange{Method: req.Method, Path: req.URL.Path, RawQuery: req.URL.RawQuery, RequestHeader: req.Header.Clone(), RequestBody: body})
	var want *Exchange
	if n < len(r.ex) {
		want = &r.ex[n]
	}
	msg := ""
	switch {
	case want == nil:
		msg = fmt.Sprintf("request %d (%s %s) is beyond the recording's %d", n+1, req.Method, req.URL.Path, len(r.ex))
	case want.Method != req.Method || want.Path != req.URL.Path:
		msg = fmt.Sprintf("request %d is %s %s, the recording's %s %s", n+1, req.Method, req.URL.Path, want.Method, want.Path)
	}
	if msg != "" {
		r.errs = append(r.errs, msg)
	}
	r.mu.Unlock()
	if msg != "" {
		http.Error(w, msg, http.StatusInternalServerError)
		return
	}
	for k, vs := range want.ResponseHeader {
		if k == "Content-Length" || k == "Connection" || k == "Transfer-Encoding" {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(want.Status)
	_, _ = w.Write(want.ResponseBody)
}
