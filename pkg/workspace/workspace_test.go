package workspace

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// A batch job recorded through the stack reaches the backend, with the cloud settings' extra
// layer (the alert cache) too.
func TestStackFindsBatchJobs(t *testing.T) {
	t.Parallel()
	for _, project := range []string{"", "some-project"} {
		t.Run("project="+project, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			backend, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Settings{DataDir: dir, Workspace: "default", FirestoreProject: project, BackendID: "local:" + dir,
				SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
			st := Stack(backend, cfg, redact.AllTypes(), Options{})
			t.Cleanup(func() { _ = st.Close() })
			if err := st.PutBatchJob(ctx, &record.BatchJob{ID: "batches/stack1", Model: "m", InputSHA256: "sha"}); err != nil {
				t.Fatal(err)
			}
			if j, err := backend.GetBatchJob(ctx, "stack1"); err != nil || j.Workspace != "default" {
				t.Fatalf("the job did not reach the backend: %v, %v", j, err)
			}
		})
	}
}

// hangingKeys is a key store that never answers.
type hangingKeys struct{}

func (hangingKeys) WorkspaceKey(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestKeyedRedactorWithoutAKey: when the workspace's key cannot be had in time, redaction goes
// on with plain placeholders, and the caller is told.
func TestKeyedRedactorWithoutAKey(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	k := NewKeyedRedactor(redact.AllTypes(), hangingKeys{}, "", func(err error) { warn.WriteString(err.Error()) }, slog.New(slog.DiscardHandler), 50*time.Millisecond)
	out, _ := k.RedactString("mail jane@example.com")
	if out != "mail [REDACTED_EMAIL]" || !strings.Contains(warn.String(), "deadline") {
		t.Fatalf("redacted %q, told %q", out, warn.String())
	}
}
