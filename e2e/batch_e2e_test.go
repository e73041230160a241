package e2e_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
)

// batchLine is an output line of alertchat batch.
type batchLine struct {
	ID        json.RawMessage `json:"id"`
	Line      int             `json:"line"`
	AlertID   string          `json:"alert_id"`
	HistoryID string          `json:"history_id"`
	Title     string          `json:"title"`
	Answer    string          `json:"answer"`
	Usage     record.Usage    `json:"usage"`
	Error     *string         `json:"error"`
}

// parseBatch decodes every stdout line strictly: each must be one whole JSON object.
func parseBatch(t *testing.T, stdout string) []batchLine {
	t.Helper()
	if stdout == "" {
		return nil
	}
	if !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("stdout does not end with a newline: %q", stdout)
	}
	var out []batchLine
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var b batchLine
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil || dec.More() {
			t.Fatalf("stdout line %q is not one JSON object: %v", l, err)
		}
		for _, k := range []string{`"id":`, `"line":`, `"alert_id":`, `"history_id":`, `"title":`, `"answer":`, `"usage":`, `"error":`} {
			if !strings.Contains(l, k) {
				t.Fatalf("stdout line %q lacks %s", l, k)
			}
		}
		out = append(out, b)
	}
	return out
}

func jsonl(lines ...map[string]any) string {
	var b strings.Builder
	for _, l := range lines {
		if l == nil {
			b.WriteString("\n")
			continue
		}
		data, err := json.Marshal(l)
		if err != nil {
			panic(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// slowAnswers answers titles at once and questions after the latency they ask for
// ("... sleep=200ms"); a question containing "hang" streams a first chunk and stalls.
func slowAnswers() geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		q := r.LastUserText()
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Batch Title"}
		}
		if strings.Contains(q, "hang") {
			return geminitest.Reply{Chunks: []string{"partial answer "}, Hang: true}
		}
		var latency time.Duration
		if _, after, ok := strings.Cut(q, "sleep="); ok {
			latency, _ = time.ParseDuration(strings.Fields(after)[0])
		}
		return geminitest.Reply{Text: "answer to: " + q, Latency: latency}
	})
}

func TestBatch(t *testing.T) {
	t.Parallel()
	c := newCLI(t, slowAnswers())
	gd := c.addAlert("guardduty.json")
	scc := c.addAlert("scc.json")
	earlier := c.askJSON("", "-a", gd, "-q", "first question")

	in := jsonl(
		map[string]any{"id": "a", "alert_id": gd, "query": "slowest sleep=600ms"},
		map[string]any{"id": "b", "alert_id": scc, "query": "mail bob@example.com sleep=300ms"},
		nil, // blank: skipped
		map[string]any{"id": 3, "history_id": earlier.HistoryID, "query": "follow-up one sleep=200ms"},
		map[string]any{"id": "bad", "alert_id": gd},
		map[string]any{"id": "e", "alert_id": gd, "query": "quick"},
		map[string]any{"history_id": earlier.HistoryID, "query": "follow-up two"},
	) + "{not json\n"
	path := filepath.Join(t.TempDir(), "questions.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("", "batch", "-f", path, "--concurrency", "3")
	if r.code != 1 || !strings.Contains(r.stderr, "2 of 7 questions failed") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got := parseBatch(t, r.stdout)
	wantLines := []int{1, 2, 4, 5, 6, 7, 8}
	if len(got) != len(wantLines) {
		t.Fatalf("%d output lines:\n%s", len(got), r.stdout)
	}
	for i, l := range got {
		if l.Line != wantLines[i] {
			t.Fatalf("output %d is line %d: not in input order\n%s", i, l.Line, r.stdout)
		}
	}
	if string(got[0].ID) != `"a"` || got[0].Answer != "answer to: slowest sleep=600ms" || got[0].Title != "Batch Title" || got[0].Error != nil || got[0].AlertID != gd {
		t.Fatalf("line 1: %+v", got[0])
	}
	if string(got[2].ID) != "3" || got[2].HistoryID != earlier.HistoryID || got[2].AlertID != gd || got[2].Error != nil {
		t.Fatalf("line 4: %+v", got[2])
	}
	if got[3].Error == nil || !strings.Contains(*got[3].Error, `missing "query"`) || string(got[3].ID) != `"bad"` {
		t.Fatalf("line 5: %+v", got[3])
	}
	if got[6].Error == nil || !strings.Contains(*got[6].Error, "not valid JSON") || string(got[6].ID) != "null" {
		t.Fatalf("line 8: %+v", got[6])
	}

	// Every answered question is a saved history, redacted like any other.
	for _, l := range got {
		if l.Error != nil {
			continue
		}
		h := c.history(l.HistoryID)
		for _, content := range h.Contents {
			for _, p := range content.Parts {
				if strings.Contains(p.Text, "bob@example.com") {
					t.Fatalf("history %s stores the e-mail address unredacted", h.ID)
				}
			}
		}
		if l.Usage.InputTokens == 0 || l.Usage.OutputTokens == 0 {
			t.Fatalf("line %d: no usage", l.Line)
		}
	}
	if h := c.history(got[1].HistoryID); h.Title != "Batch Title" || h.MessageCount != 2 {
		t.Fatalf("new history: %+v", h.Meta())
	}
	// Both follow-ups went to the earlier history, in input order, each carrying the turns
	// before it.
	h := c.history(earlier.HistoryID)
	if h.MessageCount != 6 || h.Contents[2].Parts[0].Text != "follow-up one sleep=200ms" || h.Contents[4].Parts[0].Text != "follow-up two" {
		t.Fatalf("continued history: %d messages", h.MessageCount)
	}
	for _, req := range c.answerRequests() {
		switch req.LastUserText() {
		case "follow-up one sleep=200ms":
			if len(req.Contents) != 3 || req.Contents[0].Parts[0].Text != "first question" {
				t.Fatalf("follow-up one sent %d contents", len(req.Contents))
			}
		case "follow-up two":
			if len(req.Contents) != 5 {
				t.Fatalf("follow-up two sent %d contents", len(req.Contents))
			}
		}
	}
}

func TestBatchRetriesTransientErrors(t *testing.T) {
	t.Parallel()
	// A third of the requests get a 429 with a retry delay, some a 503; never twice in a row
	// for one call.
	f429 := geminitest.RandomFaults(0.3, 11, geminitest.Reply{Status: 429, RetryDelay: 50 * time.Millisecond})
	f503 := geminitest.RandomFaults(0.15, 12, geminitest.Reply{Status: 503})
	c := newCLI(t, slowAnswers(), geminitest.WithFaults(geminitest.OncePerCall(func(r *geminitest.Request) *geminitest.Reply {
		if f := f429(r); f != nil {
			return f
		}
		return f503(r)
	})))
	gd := c.addAlert("guardduty.json")
	var qs []map[string]any
	for i := range 20 {
		qs = append(qs, map[string]any{"id": i, "alert_id": gd, "query": fmt.Sprintf("question %d", i)})
	}
	r := c.run(jsonl(qs...), "--max-wait", "200ms", "batch", "-f", "-", "--concurrency", "4")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got := parseBatch(t, r.stdout)
	for i, l := range got {
		if l.Error != nil || l.Line != i+1 || l.Answer != fmt.Sprintf("answer to: question %d", i) || l.Title != "Batch Title" {
			t.Fatalf("line %d: %+v", i+1, l)
		}
	}
	if len(got) != 20 || c.srv.Stats().Errors < 5 {
		t.Fatalf("%d lines, stats %+v", len(got), c.srv.Stats())
	}
}

func TestBatchPermanentFailure(t *testing.T) {
	t.Parallel()
	c := newCLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if strings.Contains(r.LastUserText(), "forbidden") {
			return geminitest.Reply{Status: 403, ErrorMessage: "Permission denied."}
		}
		return geminitest.Reply{Text: "fine"}
	}))
	gd := c.addAlert("guardduty.json")
	in := jsonl(
		map[string]any{"alert_id": gd, "query": "one"},
		map[string]any{"alert_id": gd, "query": "forbidden"},
		map[string]any{"alert_id": gd, "query": "three"},
	)
	r := c.run(in, "batch", "-f", "-", "--no-title-generation")
	if r.code != 1 || !strings.Contains(r.stderr, "1 of 3 questions failed") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got := parseBatch(t, r.stdout)
	if len(got) != 3 || got[0].Error != nil || got[2].Error != nil || got[0].Answer != "fine" || got[0].Title != "one" {
		t.Fatalf("lines: %+v", got)
	}
	if got[1].Error == nil || !strings.Contains(*got[1].Error, "refused access") || got[1].HistoryID != "" {
		t.Fatalf("failed line: %+v", got[1])
	}
	n := 0
	for _, req := range c.answerRequests() {
		if req.LastUserText() == "forbidden" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the 403 was retried: %d requests", n)
	}
}

// TestBatchInterrupt sends SIGINT to the binary in the middle of a run: finished lines are
// written whole, in order, their histories saved; the others are left out; exit 130.
func TestBatchInterrupt(t *testing.T) {
	t.Parallel()
	c := newCLI(t, slowAnswers())
	gd := c.addAlert("guardduty.json")
	// Concurrency 3. Lines 1-4 finish quickly and are written. Line 5 hangs before answering,
	// so lines 6-8, which finish, wait behind it. Line 9 streams half an answer and stalls,
	// line 10 hangs too; 11 and 12 never start.
	var qs []map[string]any
	for i := 1; i <= 12; i++ {
		q := fmt.Sprintf("question %d sleep=50ms", i)
		switch {
		case i == 5 || i == 10 || i == 11 || i == 12:
			q = fmt.Sprintf("question %d sleep=60s", i)
		case i == 9:
			q = fmt.Sprintf("question %d hang", i)
		}
		qs = append(qs, map[string]any{"id": i, "alert_id": gd, "query": q})
	}
	cmd := exec.Command(binary, "batch", "-f", "-", "--concurrency", "3")
	cmd.Env, cmd.Dir = c.env, c.dataDir
	cmd.Stdin = strings.NewReader(jsonl(qs...))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
	}()
	// Wait for lines 1-4 on stdout and for the questions of lines 6-8 to be answered.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if !eventually.Within(30*time.Second, cond) {
			_ = cmd.Process.Kill()
			t.Fatalf("timed out waiting for %s; stderr %q", what, stderr.String())
		}
	}
	waitFor("four lines", func() bool { mu.Lock(); defer mu.Unlock(); return len(lines) >= 4 })
	waitFor("the requests of lines 9 and 10", func() bool {
		seen := 0
		for _, r := range c.answerRequests() {
			if strings.HasPrefix(r.LastUserText(), "question 9 ") || strings.HasPrefix(r.LastUserText(), "question 10 ") {
				seen++
			}
		}
		return seen == 2
	})
	waitFor("line 9's first chunk", func() bool {
		for _, r := range c.answerRequests() {
			if strings.HasPrefix(r.LastUserText(), "question 9 ") && r.Chunks() > 0 {
				return true
			}
		}
		return false
	})
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-readDone
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 130 {
		t.Fatalf("exit %d (%v), stderr %q", code, err, stderr.String())
	}
	out := strings.Join(lines, "\n") + "\n"
	got := parseBatch(t, out)
	var written []int
	for _, l := range got {
		written = append(written, l.Line)
		if l.Error != nil || l.Answer != fmt.Sprintf("answer to: question %d sleep=50ms", l.Line) {
			t.Fatalf("written line %+v", l)
		}
		if h := c.history(l.HistoryID); h.MessageCount != 2 || h.Title != "Batch Title" {
			t.Fatalf("line %d: history %+v", l.Line, h.Meta())
		}
	}
	if fmt.Sprint(written) != "[1 2 3 4 6 7 8]" {
		t.Fatalf("written lines %v\nstderr %q", written, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted: 7 of 12 questions written; not answered: lines 5, 9-12") ||
		!strings.Contains(stderr.String(), "Line 9 was cancelled mid-answer; its partial answer was kept in history") {
		t.Fatalf("stderr %q", stderr.String())
	}
}
