package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// binary is the alertchat binary built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// End-to-end tests build the binary and start servers: the quick loop (-short) leaves
		// them to the full run.
		fmt.Fprintln(os.Stderr, "e2e: skipped under -short")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "alertchat-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "alertchat")
	// The tags the Makefile builds with: the binary under test is the one that ships.
	build := exec.Command("go", "build", "-race", "-tags", "disable_grpc_modules", "-o", binary, "..")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building alertchat:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the binary against one data directory and one fake Gemini server.
type cli struct {
	t       testing.TB
	dataDir string
	srv     *geminitest.Server
	env     []string
}

func newCLI(t testing.TB, opts ...geminitest.Option) *cli {
	t.Helper()
	srv := geminitest.NewServer(t, opts...)
	dir := t.TempDir()
	return &cli{t: t, dataDir: dir, srv: srv, env: []string{
		"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, "xdg"), "PATH=" + os.Getenv("PATH"),
		"GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL=" + srv.URL(),
		"ALERTCHAT_DATA_DIR=" + filepath.Join(dir, "data"), "ALERTCHAT_MODEL=gemini-test",
	}}
}

type result struct {
	stdout, stderr string
	code           int
}

func (c *cli) run(stdin string, args ...string) result {
	c.t.Helper()
	// A hang ends here rather than at go test's timeout; the bound is generous because a
	// loaded CI machine with the race detector runs a collection ten times slower than a laptop.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = c.env
	cmd.Dir = c.dataDir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("running %v: %v", args, err)
	}
	return result{out.String(), errOut.String(), code}
}

func (c *cli) mustRun(stdin string, args ...string) string {
	c.t.Helper()
	r := c.run(stdin, args...)
	if r.code != 0 {
		c.t.Fatalf("%v: exit %d\nstderr: %s", args, r.code, r.stderr)
	}
	return r.stdout
}

func (c *cli) addAlert(file string) string {
	c.t.Helper()
	return strings.TrimSpace(c.mustRun("", "alert", "add", "-f", filepath.Join(repoDir(c.t), "testdata", "alerts", file)))
}

func repoDir(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// store opens the CLI's local store directly, to check what was written.
func (c *cli) history(id string) *record.History {
	c.t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: filepath.Join(c.dataDir, "data"), Workspace: "default"})
	if err != nil {
		c.t.Fatal(err)
	}
	defer s.Close()
	h, err := s.GetHistory(context.Background(), record.HistoryID(id))
	if err != nil {
		c.t.Fatalf("history %s: %v", id, err)
	}
	return h
}

func (c *cli) answerRequests() []*geminitest.Request {
	var out []*geminitest.Request
	for _, r := range c.srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			out = append(out, r)
		}
	}
	return out
}

// chatOut is chat -o json's object.
type chatOut struct {
	HistoryID string `json:"history_id"`
	AlertID   string `json:"alert_id"`
	Title     string `json:"title"`
	Answer    string `json:"answer"`
	Usage     struct {
		InputTokens   int64 `json:"input_tokens"`
		OutputTokens  int64 `json:"output_tokens"`
		ThoughtTokens int64 `json:"thought_tokens"`
	} `json:"usage"`
	Error *string `json:"error"`
	// ToolCalls' Error is "" for a call that succeeded (null), when decoded into a fresh object.
	ToolCalls []struct {
		Name  string `json:"name"`
		Error string `json:"error"`
	} `json:"tool_calls"`
}

func (c *cli) askJSON(stdin string, args ...string) chatOut {
	c.t.Helper()
	out := c.mustRun(stdin, append([]string{"chat", "-o", "json"}, args...)...)
	var got chatOut
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		c.t.Fatalf("chat -o json printed %q: %v", out, err)
	}
	return got
}

func titleAnswer(title string) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: title}
		}
		return geminitest.Reply{Text: "answer to: " + r.LastUserText(),
			Usage: nil}
	})
}

func TestOneShot(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Drop Point DNS Query"))
	alertID := c.addAlert("guardduty.json")

	// Text: the answer alone on stdout.
	r := c.run("", "chat", "-a", alertID, "-q", "What happened?")
	if r.code != 0 || r.stdout != "answer to: What happened?\n" {
		t.Fatalf("one-shot text: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// JSON, with the contract's fields.
	got := c.askJSON("", "-a", alertID, "-q", "Is it bad?")
	if got.AlertID != alertID || got.Answer != "answer to: Is it bad?" || got.Title != "Drop Point DNS Query" || len(got.HistoryID) != 36 {
		t.Fatalf("one-shot json: %+v", got)
	}
	if got.Usage.InputTokens == 0 || got.Usage.OutputTokens == 0 {
		t.Fatalf("usage missing: %+v", got.Usage)
	}
	h := c.history(got.HistoryID)
	if h.MessageCount != 2 || h.Title != got.Title || h.Contents[0].Parts[0].Text != "Is it bad?" {
		t.Fatalf("stored: %+v", h.Meta())
	}
	req := c.answerRequests()
	if !strings.Contains(req[len(req)-1].SystemText(), "783957204773") {
		t.Fatal("the alert is not in the system instruction")
	}

	// Stdin is the question when it is not a terminal and -q is absent.
	got = c.askJSON("Explain the finding\nin two lines", "-a", alertID)
	if got.Answer != "answer to: Explain the finding\nin two lines" {
		t.Fatalf("stdin question: %+v", got)
	}
}

func TestResume(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("First Question Title"))
	alertID := c.addAlert("guardduty.json")
	other := c.addAlert("scc.json")
	first := c.askJSON("", "-a", alertID, "-q", "first question")
	c.askJSON("", "-a", other, "-q", "about another alert")

	tests := []struct {
		name string
		args []string
	}{
		{"full ID", []string{"--history", first.HistoryID}},
		{"prefix", []string{"--history", first.HistoryID[:8]}},
		{"continue", []string{"-a", alertID, "--continue"}},
		{"ID with alert", []string{"-a", alertID, "--history", first.HistoryID}},
	}
	for i, tc := range tests {
		q := fmt.Sprintf("follow-up %d", i)
		got := c.askJSON("", append(tc.args, "-q", q)...)
		if got.HistoryID != first.HistoryID || got.AlertID != alertID {
			t.Fatalf("%s: resumed %+v", tc.name, got)
		}
		if got.Title != "First Question Title" {
			t.Fatalf("%s: title changed to %q", tc.name, got.Title)
		}
		reqs := c.answerRequests()
		last := reqs[len(reqs)-1]
		if len(last.Contents) != 2*(i+1)+1 || last.Contents[0].Parts[0].Text != "first question" || last.LastUserText() != q {
			t.Fatalf("%s: request does not carry the earlier turns: %d contents", tc.name, len(last.Contents))
		}
		if !strings.Contains(last.SystemText(), "783957204773") {
			t.Fatalf("%s: alert missing from the resumed request", tc.name)
		}
	}
	h := c.history(first.HistoryID)
	if h.MessageCount != 2+2*len(tests) {
		t.Fatalf("stored %d messages", h.MessageCount)
	}
	titles := 0
	for _, r := range c.srv.Requests() {
		if r.Kind == geminitest.KindGenerateContent {
			titles++
		}
	}
	if titles != 2 {
		t.Fatalf("%d title requests for 2 new histories", titles)
	}
}

func TestManualTitleAndHistoryCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t, titleAnswer("Generated Title"))
	alertID := c.addAlert("guardduty.json")
	got := c.askJSON("", "-a", alertID, "--title", "My own title", "-q", "q1")
	if got.Title != "My own title" {
		t.Fatalf("manual title: %q", got.Title)
	}
	got = c.askJSON("", "--history", got.HistoryID, "-q", "q2")
	if got.Title != "My own title" {
		t.Fatalf("manual title overwritten: %q", got.Title)
	}

	list := c.mustRun("", "history", "list", "-o", "json")
	var hs []map[string]any
	if err := json.Unmarshal([]byte(list), &hs); err != nil || len(hs) != 1 {
		t.Fatalf("history list -o json: %v %q", err, list)
	}
	for _, k := range []string{"id", "alert_id", "title", "created_at", "updated_at", "message_count"} {
		if _, ok := hs[0][k]; !ok {
			t.Fatalf("history list -o json lacks %q: %v", k, hs[0])
		}
	}
	if hs[0]["message_count"] != 4.0 || hs[0]["title"] != "My own title" {
		t.Fatalf("history list: %v", hs[0])
	}
	show := c.mustRun("", "history", "show", got.HistoryID[:8])
	if !strings.Contains(show, "q2") || !strings.Contains(show, "answer to: q2") {
		t.Fatalf("history show: %q", show)
	}
	c.mustRun("", "history", "rename", got.HistoryID, "Renamed")
	if h := c.history(got.HistoryID); h.Title != "Renamed" {
		t.Fatalf("rename: %q", h.Title)
	}
	c.mustRun("", "history", "rm", "-y", got.HistoryID)
	if r := c.run("", "history", "show", got.HistoryID); r.code != 3 {
		t.Fatalf("show after rm: exit %d", r.code)
	}
}

func TestChatExitCodes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	alertID := c.addAlert("guardduty.json")
	tests := []struct {
		name  string
		stdin string
		args  []string
		env   []string
		code  int
		msg   string
	}{
		{"no alert", "", []string{"chat", "-q", "x"}, nil, 2, "which alert"},
		{"unknown alert", "", []string{"chat", "-a", "00000000-0000-0000-0000-000000000000", "-q", "x"}, nil, 3, "no alert"},
		{"unknown history", "", []string{"chat", "--history", "00000000-0000-4000-8000-000000000000", "-q", "x"}, nil, 3, ""},
		{"short prefix", "", []string{"chat", "--history", "0000", "-q", "x"}, nil, 2, ""},
		{"empty question", "  \n", []string{"chat", "-a", alertID}, nil, 2, "empty"},
		{"both -a and -f", "", []string{"chat", "-a", alertID, "-f", "x.json", "-q", "x"}, nil, 2, "not both"},
		{"bad output", "", []string{"chat", "-a", alertID, "-q", "x", "-o", "xml"}, nil, 2, "output"},
		{"no key", "", []string{"chat", "-a", alertID, "-q", "x"}, []string{"GEMINI_API_KEY="}, 2, "GEMINI_API_KEY"},
		{"bad alert file", "", []string{"chat", "-f", "/nonexistent.json", "-q", "x"}, nil, 2, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cc := *c
			cc.t = t
			cc.env = append(append([]string{}, c.env...), tc.env...)
			r := cc.run(tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if r.stdout != "" {
				t.Fatalf("stdout on failure: %q", r.stdout)
			}
			if !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("stderr %q does not say %q", r.stderr, tc.msg)
			}
		})
	}
}

func TestModelErrorsExitOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reply geminitest.Reply
		msg   string
	}{
		{geminitest.Reply{Status: 404, ErrorMessage: "models/x is not found", ErrorStatus: "NOT_FOUND"}, "model"},
		{geminitest.Reply{Status: 429, ErrorMessage: "quota", ErrorStatus: "RESOURCE_EXHAUSTED"}, "quota"},
		{geminitest.Reply{Status: 503, ErrorMessage: "overloaded", ErrorStatus: "UNAVAILABLE"}, "unavailable"},
		{geminitest.Reply{BlockReason: "SAFETY"}, "declined"},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply { return tc.reply }))
			alertID := c.addAlert("guardduty.json")
			r := c.run("", "chat", "-a", alertID, "-q", "hello", "--no-title-generation")
			if r.code != 1 || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "test-key") {
				t.Fatal("the API key was printed")
			}
		})
	}
}

// TestSlowTitleDoesNotDelayAnswer reads the binary's stdout as it streams: the first bytes of
// the answer arrive well before a 300 ms title call could have finished.
func TestSlowTitleDoesNotDelayAnswer(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Slow Title", Latency: 300 * time.Millisecond}
		}
		return geminitest.Reply{Chunks: []string{"first-chunk ", "second-chunk"}, ChunkDelay: 400 * time.Millisecond}
	}))
	alertID := c.addAlert("guardduty.json")
	cmd := exec.Command(binary, "chat", "-a", alertID, "-q", "What happened?", "--raw")
	cmd.Env, cmd.Dir = c.env, c.dataDir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := stdout.Read(buf)
	firstByte := time.Now()
	if err != nil || !strings.HasPrefix(string(buf[:n]), "first-chunk") {
		t.Fatalf("first read %q: %v", buf[:n], err)
	}
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := string(buf[:n]) + string(rest); got != "first-chunk second-chunk\n" {
		t.Fatalf("answer %q", got)
	}
	var answerAt time.Time
	for _, r := range c.srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			answerAt = r.Time
		}
	}
	if d := firstByte.Sub(answerAt); d >= 300*time.Millisecond {
		t.Fatalf("first answer bytes %v after the request: the title call delayed them", d)
	}
	list := c.mustRun("", "history", "list", "-o", "json")
	if !strings.Contains(list, `"title": "Slow Title"`) {
		t.Fatalf("title not stored: %s", list)
	}
}
