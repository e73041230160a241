package local_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// TestBatchJobsGainInputFile: a database made before batch jobs recorded their input file
// opens, keeps its jobs, and records input files from then on.
func TestBatchJobsGainInputFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, local.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE batch_jobs (workspace TEXT NOT NULL, id TEXT NOT NULL, model TEXT NOT NULL, input_sha256 TEXT NOT NULL,
			state TEXT NOT NULL, requests INTEGER NOT NULL, succeeded INTEGER NOT NULL, failed INTEGER NOT NULL,
			collected INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (workspace, id))`,
		`INSERT INTO batch_jobs VALUES ('default', 'batches/old', 'm', 'sha', 'JOB_STATE_SUCCEEDED', 2, 2, 0, 1, 1, 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_ = db.Close()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, err := s.GetBatchJob(context.Background(), "batches/old")
	if err != nil || old.InputFile != "" || old.Requests != 2 {
		t.Fatalf("old job: %+v, %v", old, err)
	}
	j := &record.BatchJob{ID: "batches/new", Model: "m", InputSHA256: "sha", State: "JOB_STATE_PENDING", InputFile: "files/abc"}
	if err := s.PutBatchJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetBatchJob(context.Background(), "batches/new"); err != nil || got.InputFile != "files/abc" {
		t.Fatalf("new job: %+v, %v", got, err)
	}
}
