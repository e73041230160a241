package factory

import (
	"context"
	"log/slog"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
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
			cfg := cmdutil.Config{DataDir: dir, Workspace: "default", Redact: "all", FirestoreProject: project}
			ios, _, _ := cmdutil.TestIO("", false)
			st := Stack(ctx, ios, cfg, slog.New(slog.DiscardHandler), backend, redact.AllTypes(), StoreOptions{})
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
