package batch_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/clitest"
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
			out, errOut, code := clitest.Run(t, t.TempDir(), tc.stdin, tc.args...)
			if code != cmdutil.ExitUsage {
				t.Fatalf("exit %d, want %d (stderr %q)", code, cmdutil.ExitUsage, errOut)
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
	out, errOut, code := clitest.Run(t, t.TempDir(), "\n  \n", "batch", "-f", "-")
	if code != cmdutil.ExitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestRetryFlagsFromEnvironment(t *testing.T) {
	t.Setenv("ALERTCHAT_MAX_ATTEMPTS", "0")
	_, errOut, code := clitest.Run(t, t.TempDir(), "", "alert", "list")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "--max-attempts") {
		t.Fatalf("ALERTCHAT_MAX_ATTEMPTS ignored: exit %d, %q", code, errOut)
	}
	t.Setenv("ALERTCHAT_MAX_ATTEMPTS", "7")
	t.Setenv("ALERTCHAT_MAX_WAIT", "5s")
	t.Setenv("ALERTCHAT_CALL_TIMEOUT", "90s")
	var got cmdutil.Config
	ios, _, _ := cmdutil.TestIO("", false)
	code = cmd.RunWith(t.Context(), []string{"alertchat", "--data-dir", t.TempDir(), "alert", "list"}, ios, cmd.RunOptions{
		Customize: func(f *factory.Factory) {
			open := f.OpenStore
			f.OpenStore = func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error) {
				got = f.Config()
				return open(ctx, o)
			}
		},
	})
	if code != 0 || got.Retry != (cmdutil.RetryConfig{MaxAttempts: 7, MaxWait: 5 * time.Second, CallTimeout: 90 * time.Second}) {
		t.Fatalf("exit %d, retry options %+v", code, got.Retry)
	}
}
