package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// remoteAnswers answers each Batch API request from its key and its question.
func remoteAnswers() geminitest.Option {
	return geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		if strings.HasPrefix(r.Key, "t") {
			return geminitest.Reply{Text: "Remote title " + strings.TrimPrefix(r.Key, "t")}
		}
		return geminitest.Reply{Text: "remote answer to " + r.LastUserText()}
	})
}

// TestRemoteBatch: submitted once with --no-wait, found again by the same command, collected
// in input order; the same as a local batch's lines; batch jobs lists it.
func TestRemoteBatch(t *testing.T) {
	t.Parallel()
	c := newCLI(t, remoteAnswers())
	alert := c.addAlert("guardduty.json")
	input := filepath.Join(c.dataDir, "q.jsonl")
	var lines []map[string]any
	for i := range 5 {
		lines = append(lines, map[string]any{"id": i, "alert_id": alert, "query": fmt.Sprintf("question %d about 203.0.113.%d", i, i)})
	}
	if err := os.WriteFile(input, []byte(jsonl(lines...)), 0o600); err != nil {
		t.Fatal(err)
	}

	sub := c.run("", "batch", "-f", input, "--remote", "--no-wait")
	var job struct{ Job string }
	if sub.code != 0 || json.Unmarshal([]byte(sub.stdout), &job) != nil || !strings.HasPrefix(job.Job, "batches/") {
		t.Fatalf("submit: exit %d, stdout %q, stderr %q", sub.code, sub.stdout, sub.stderr)
	}
	// Not done yet: waiting is interrupted by a signal, the job goes on.
	cmd := exec.Command(binary, "batch", "-f", input, "--remote", "--poll-interval", "1s")
	cmd.Env, cmd.Dir = c.env, c.dataDir
	var errOut strings.Builder
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupted once it has looked at the job and is waiting for the next look.
	eventually.True(t, 30*time.Second, "the job looked at", func() bool { return c.srv.BatchStats().Gets >= 1 }, func() string { return "no look at the job" })
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(errOut.String(), "run the same command again") {
		t.Fatalf("interrupted wait: %v, stderr %q", err, errOut.String())
	}

	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()
	got := c.run("", "batch", "-f", input, "--remote")
	if got.code != 0 {
		t.Fatalf("collect: exit %d, stderr %q", got.code, got.stderr)
	}
	out := parseBatch(t, got.stdout)
	if len(out) != 5 {
		t.Fatalf("%d lines", len(out))
	}
	for i, l := range out {
		if l.Line != i+1 || l.Error != nil || !strings.Contains(l.Answer, fmt.Sprintf("question %d", i)) || l.Title != fmt.Sprintf("Remote title %d", i+1) {
			t.Fatalf("line %d: %+v", i+1, l)
		}
		h := c.history(l.HistoryID)
		if h.Title != l.Title || len(h.Contents) != 2 || strings.Contains(h.Contents[0].Parts[0].Text, fmt.Sprintf("203.0.113.%d", i)) {
			t.Fatalf("history %s: %q, %d contents, %q", l.HistoryID, h.Title, len(h.Contents), h.Contents[0].Parts[0].Text)
		}
	}
	if c.srv.BatchStats().Created != 1 {
		t.Fatalf("%d jobs created", c.srv.BatchStats().Created)
	}
	b, _ := c.srv.Batch(job.Job)
	for _, r := range b.Requests {
		if len(r.Tools) != 0 {
			t.Fatalf("a remote batch declared tools: %s", r.Key)
		}
	}

	jobs := c.run("", "batch", "jobs", "-o", "json")
	var listed []map[string]any
	if jobs.code != 0 || json.Unmarshal([]byte(jobs.stdout), &listed) != nil || len(listed) != 1 {
		t.Fatalf("batch jobs: exit %d, %q", jobs.code, jobs.stdout)
	}
	want := []string{"id", "state", "model", "input_sha256", "requests", "succeeded", "failed", "created_at", "updated_at"}
	if len(listed[0]) != len(want) {
		t.Fatalf("batch jobs fields: %v", listed[0])
	}
	for _, k := range want {
		if _, ok := listed[0][k]; !ok {
			t.Fatalf("batch jobs lacks %q: %v", k, listed[0])
		}
	}
	if listed[0]["id"] != job.Job || listed[0]["state"] != "JOB_STATE_SUCCEEDED" || listed[0]["succeeded"] != float64(5) || listed[0]["requests"] != float64(5) {
		t.Fatalf("batch jobs: %v", listed[0])
	}
}

// TestRemoteBatchKilledWhileCollecting: a collector killed halfway and run again saves every
// history exactly once.
func TestRemoteBatchKilledWhileCollecting(t *testing.T) {
	t.Parallel()
	c := newCLI(t, remoteAnswers())
	alert := c.addAlert("guardduty.json")
	input := filepath.Join(c.dataDir, "q.jsonl")
	const n = 300
	var lines []map[string]any
	for i := range n {
		lines = append(lines, map[string]any{"alert_id": alert, "query": fmt.Sprintf("question %d", i)})
	}
	if err := os.WriteFile(input, []byte(jsonl(lines...)), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := c.run("", "batch", "-f", input, "--remote", "--no-wait"); r.code != 0 {
		t.Fatalf("submit: %d %s", r.code, r.stderr)
	}
	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "batch", "-f", input, "--remote", "--concurrency", "1")
	cmd.Env, cmd.Dir = c.env, c.dataDir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	written := 0
	for sc.Scan() {
		if written++; written == 10 {
			_ = cmd.Process.Kill() // the collector dies without a word
			break
		}
	}
	_ = cmd.Wait()
	s, err := local.Open(context.Background(), local.Options{Dir: filepath.Join(c.dataDir, "data"), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.ListHistories(context.Background(), store.HistoryQuery{Limit: store.MaxLimit})
	if err != nil || len(page.Histories) < 10 || len(page.Histories) >= n {
		t.Fatalf("%v: %d histories after the kill: not halfway", err, len(page.Histories))
	}
	t.Logf("killed after %d lines, %d histories saved", written, len(page.Histories))

	got := c.run("", "batch", "-f", input, "--remote")
	if got.code != 0 {
		t.Fatalf("rerun: exit %d, %s", got.code, got.stderr)
	}
	out := parseBatch(t, got.stdout)
	ids := map[string]bool{}
	for _, l := range out {
		if l.Error != nil || ids[l.HistoryID] {
			t.Fatalf("line %d: %+v", l.Line, l)
		}
		ids[l.HistoryID] = true
	}
	page, err = s.ListHistories(context.Background(), store.HistoryQuery{Limit: store.MaxLimit})
	if err != nil || len(out) != n || len(page.Histories) != n {
		t.Fatalf("%v: %d lines, %d histories, want %d of each", err, len(out), len(page.Histories), n)
	}
	for _, h := range page.Histories {
		if !ids[string(h.ID)] || h.MessageCount != 2 {
			t.Fatalf("history %s: %d messages, in output %v", h.ID, h.MessageCount, ids[string(h.ID)])
		}
	}
}

// TestRemoteBatchBadInput: a bad line fails before anything is submitted (exit 2, naming it).
func TestRemoteBatchBadInput(t *testing.T) {
	t.Parallel()
	c := newCLI(t, remoteAnswers())
	alert := c.addAlert("guardduty.json")
	in := jsonl(map[string]any{"alert_id": alert, "query": "fine"}, map[string]any{"alert_id": "0123456789abcdef", "query": "unknown"})
	r := c.run(in, "batch", "-f", "-", "--remote")
	if r.code != 2 || !strings.Contains(r.stderr, "line 2") || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if c.srv.BatchStats().Created != 0 {
		t.Fatal("a job was submitted")
	}
	if r := c.run("", "batch", "cancel", "batches/nosuch"); r.code != 3 {
		t.Fatalf("cancel of an unknown job: exit %d, %q", r.code, r.stderr)
	}
	if r := c.run(in, "batch", "-f", "-", "--no-wait"); r.code != 2 || !strings.Contains(r.stderr, "--remote") {
		t.Fatalf("--no-wait without --remote: exit %d, %q", r.code, r.stderr)
	}
}

// BenchmarkRemoteBatchRSS runs a 10,000-question remote batch through a binary built without
// the race detector: the submission (an uploaded file, titles included) and the collection
// into the local store. It reports each command's peak RSS and the collection's rate. The fake
// Gemini server runs in the benchmark's process, so the RSS is alertchat's own.
//
//	go test -run '^$' -bench RemoteBatchRSS -benchtime 1x ./e2e
func BenchmarkRemoteBatchRSS(b *testing.B) {
	bin := buildPlain(b)
	const n = 10_000
	for b.Loop() {
		b.StopTimer()
		c := newCLI(b, remoteAnswers(), geminitest.WithoutRecording())
		alert := c.addAlert("guardduty.json")
		input := filepath.Join(c.dataDir, "q.jsonl")
		var lines []map[string]any
		for i := range n {
			lines = append(lines, map[string]any{"id": i, "alert_id": alert, "query": fmt.Sprintf("question %d: did 198.51.100.%d reach bob%d@example.com?", i, i%250, i)})
		}
		if err := os.WriteFile(input, []byte(jsonl(lines...)), 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sub := runMeasured(b, c, bin, nil, "batch", "-f", input, "--remote", "--no-wait")
		c.srv.AdvanceBatches()
		c.srv.AdvanceBatches()
		col := runMeasured(b, c, bin, nil, "batch", "-f", input, "--remote", "--concurrency", "8")
		b.ReportMetric(sub.rssMB, "submit-MB")
		b.ReportMetric(sub.took.Seconds(), "submit-s")
		b.ReportMetric(col.rssMB, "collect-MB")
		b.ReportMetric(float64(n)/col.took.Seconds(), "histories/s")
	}
}

// TestRemoteBatchCancelled: `batch cancel` takes a unique prefix; the same command then ends
// with exit 1 naming the state. On Vertex AI without the cloud store, a remote batch stops with
// exit 2 and says what to set.
func TestRemoteBatchCancelled(t *testing.T) {
	t.Parallel()
	c := newCLI(t, remoteAnswers())
	alert := c.addAlert("guardduty.json")
	in := jsonl(map[string]any{"alert_id": alert, "query": "one"}, map[string]any{"alert_id": alert, "query": "two"})
	sub := c.run(in, "batch", "-f", "-", "--remote", "--no-wait")
	var job struct{ Job string }
	if sub.code != 0 || json.Unmarshal([]byte(sub.stdout), &job) != nil {
		t.Fatalf("submit: %d %q %q", sub.code, sub.stdout, sub.stderr)
	}
	prefix := strings.TrimPrefix(job.Job, "batches/")[:6]
	if r := c.run("", "batch", "cancel", prefix); r.code != 0 || !strings.Contains(r.stderr, "CANCELLED") {
		t.Fatalf("cancel %s: exit %d, %q", prefix, r.code, r.stderr)
	}
	r := c.run(in, "batch", "-f", "-", "--remote")
	if r.code != 1 || !strings.Contains(r.stderr, "JOB_STATE_CANCELLED") || r.stdout != "" {
		t.Fatalf("after cancel: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	listed := c.mustRun("", "batch", "jobs")
	if !strings.Contains(listed, job.Job) || !strings.Contains(listed, "CANCELLED") {
		t.Fatalf("batch jobs: %q", listed)
	}

	v := *c
	v.env = append(append([]string{}, c.env...), "GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_CLOUD_PROJECT=p", "GOOGLE_CLOUD_LOCATION=us-central1")
	r = v.run(in, "batch", "-f", "-", "--remote", "--resubmit")
	if r.code != 2 || !strings.Contains(r.stderr, "--firestore-project and --bucket") {
		t.Fatalf("Vertex AI without the cloud store: exit %d, %q", r.code, r.stderr)
	}
	if c.srv.BatchStats().Created != 1 {
		t.Fatalf("%d jobs created", c.srv.BatchStats().Created)
	}
}
