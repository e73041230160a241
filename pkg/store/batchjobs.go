package store

import (
	"context"

	"github.com/alertchat/alertchat/pkg/record"
)

// BatchJobs is implemented by backends that record the Gemini Batch API jobs of a workspace
// (collection / table batch_jobs). Jobs of another workspace are never seen: they are
// ErrNotFound like a history of another workspace.
type BatchJobs interface {
	// PutBatchJob records j (a new job, or new state and counts of a recorded one), keyed by
	// j.ID within the store's workspace. It sets j.Workspace.
	PutBatchJob(ctx context.Context, j *record.BatchJob) error
	// GetBatchJob returns the recorded job with that ID, or the only one whose ID (or the part
	// after "batches/") starts with id when id is a prefix of 4 or more characters; two matches
	// are ErrInvalid, none ErrNotFound.
	GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error)
	// FindBatchJob returns the newest recorded job for that input and model, or ErrNotFound.
	FindBatchJob(ctx context.Context, inputSHA256, model string) (*record.BatchJob, error)
	// ListBatchJobs returns recorded jobs, newest first, at most limit (ClampLimit).
	ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error)
}
