package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/batch"
)

func TestBatchUsageErrors(t *testing.T) {
	t.Parallel()
	good := `{"alert_id": "a", "query": "q"}` + "\n"
	tests := []struct {
		name  string
		stdin string
		args  []string
		msg   string
	}{
		{"no -f", good, []string{"batch"}, "file"},
		{"missing file", "", []string{"batch", "-f", "/does/not/exist.jsonl"}, "no such file"},
		{"directory", "", []string{"batch", "-f", t.TempDir()}, "directory"},
		{"zero concurrency", good, []string{"batch", "-f", "-", "--concurrency", "0"}, "--concurrency"},
		{"negative rpm", good, []string{"batch", "-f", "-", "--rpm", "-1"}, "--rpm"},
		{"bad concurrency", good, []string{"batch", "-f", "-", "--concurrency", "many"}, "concurrency"},
		{"extra args", good, []string{"batch", "-f", "-", "what"}, "unexpected"},
		{"too many questions", strings.Repeat(good, batch.MaxQuestions+1), []string{"batch", "-f", "-"}, "more than the limit"},
		{"zero attempts", good, []string{"--max-attempts", "0", "batch", "-f", "-"}, "--max-attempts"},
		{"zero wait", good, []string{"--max-wait", "0s", "batch", "-f", "-"}, "--max-wait"},
		{"bad timeout", good, []string{"--call-timeout", "soon", "batch", "-f", "-"}, "call-timeout"},
		{"negative timeout", good, []string{"--call-timeout=-1s", "chat", "-a", "x", "-q", "y"}, "--call-timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runCLI(t, t.TempDir(), tc.stdin, tc.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", code, ExitUsage, errOut)
			}
			if out != "" || !strings.Contains(errOut, tc.msg) {
				t.Fatalf("stdout %q, stderr %q (want %q)", out, errOut, tc.msg)
			}
		})
	}
}

func TestBatchEmptyInput(t *testing.T) {
	t.Parallel()
	// Nothing to ask: no credentials needed, nothing written.
	out, errOut, code := runCLI(t, t.TempDir(), "\n  \n", "batch", "-f", "-")
	if code != ExitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestRetryFlagsFromEnvironment(t *testing.T) {
	t.Setenv("ALERTCHAT_MAX_ATTEMPTS", "0")
	_, errOut, code := runCLI(t, t.TempDir(), "", "alert", "list")
	if code != ExitUsage || !strings.Contains(errOut, "--max-attempts") {
		t.Fatalf("ALERTCHAT_MAX_ATTEMPTS ignored: exit %d, %q", code, errOut)
	}
	root, g := newRoot(&IOStreams{})
	t.Setenv("ALERTCHAT_MAX_ATTEMPTS", "7")
	t.Setenv("ALERTCHAT_MAX_WAIT", "5s")
	t.Setenv("ALERTCHAT_CALL_TIMEOUT", "90s")
	if err := root.Run(t.Context(), []string{"alertchat", "--data-dir", t.TempDir(), "alert", "list"}); err != nil {
		t.Fatal(err)
	}
	if g.retry != (retryOptions{MaxAttempts: 7, MaxWait: 5 * time.Second, CallTimeout: 90 * time.Second}) {
		t.Fatalf("retry options %+v", g.retry)
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p       batch.Progress
		retries int64
		elapsed time.Duration
		want    string
	}{
		{batch.Progress{Total: 200}, 0, 0, "[....................] 0/200  --/min  ETA --"},
		{batch.Progress{Total: 200, Done: 50, Failed: 2}, 3, time.Minute, "[#####...............] 50/200  2 failed  3 retries  50/min  ETA 3m0s"},
		{batch.Progress{Total: 10, Done: 10}, 0, 30 * time.Second, "[####################] 10/10  20/min  ETA 0s"},
	} {
		if got := progressLine(tc.p, tc.retries, tc.elapsed); got != tc.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestLineRanges(t *testing.T) {
	t.Parallel()
	if got := lineRanges([]int{3, 7, 8, 9, 12, 15, 16}, 20); got != "3, 7-9, 12, 15-16" {
		t.Fatal(got)
	}
	if got := lineRanges([]int{1, 3, 5, 7}, 2); got != "1, 3, ..." {
		t.Fatal(got)
	}
}
