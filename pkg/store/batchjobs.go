package store

import (
	"context"
	"slices"
	"strings"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
)

// BatchJobs records the Gemini Batch API jobs of a workspace
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
	// PutBatchReservation writes r, the reservation of the job of an input (keyed by r's Model
	// and InputSHA256 within the store's workspace), when none is stored (a conditional
	// create) or when the stored one is prev (same Owner and Beat; a conditional update). It
	// returns the reservation stored afterwards: r when it was written, else the other one,
	// unchanged. It sets r.Workspace and r.UpdatedAt.
	PutBatchReservation(ctx context.Context, r, prev *record.BatchReservation) (*record.BatchReservation, error)
}

// MaxBatchModel bounds the model name of a batch reservation, which is part of its key.
const MaxBatchModel = 256

// CheckBatchReservation refuses a reservation that cannot be stored.
func CheckBatchReservation(r *record.BatchReservation) error {
	if r == nil || r.Owner == "" || r.Model == "" || len(r.Model) > MaxBatchModel || len(r.InputSHA256) != 64 {
		return goerr.Wrap(ErrInvalid, "invalid batch reservation")
	}
	return nil
}

// BatchJobNamePrefix starts every job name of the Gemini API; GetBatchJob accepts IDs
// without it, as a user copies them from a listing.
const BatchJobNamePrefix = "batches/"

// MinBatchJobPrefix is the shortest prefix GetBatchJob resolves: a shorter id only matches an
// ID exactly.
const MinBatchJobPrefix = 4

// BatchJobCandidates is how many jobs a backend reads per prefix of BatchJobPrefixes: enough to
// see the exact match (the first in ID order) and to name the candidates of an ambiguous one.
const BatchJobCandidates = 6

// BatchJobPrefixes returns the ID prefixes GetBatchJob(id) searches: id itself and, unless id
// already starts with it, BatchJobNamePrefix+id.
func BatchJobPrefixes(id string) []string {
	if strings.HasPrefix(id, BatchJobNamePrefix) {
		return []string{id}
	}
	return []string{id, BatchJobNamePrefix + id}
}

// PickBatchJob resolves GetBatchJob(id) among the jobs a backend found for BatchJobPrefixes(id)
// (at most BatchJobCandidates each, in ID order): an exact match wins, else the only job of a
// long enough prefix; several are ErrInvalid naming them, none ErrNotFound.
func PickBatchJob(id string, found []*record.BatchJob) (*record.BatchJob, error) {
	prefixes := BatchJobPrefixes(id)
	for _, p := range prefixes {
		for _, j := range found {
			if j.ID == p {
				return j, nil
			}
		}
	}
	nf := goerr.Wrap(ErrNotFound, "batch job "+id+" not found", goerr.V("job_id", id))
	if len(id) < MinBatchJobPrefix {
		return nil, nf
	}
	// The two prefixes' ranges overlap when id is itself a prefix of BatchJobNamePrefix.
	var names []string
	var only *record.BatchJob
	for _, j := range found {
		if !slices.Contains(names, j.ID) {
			names = append(names, j.ID)
			only = j
		}
	}
	switch len(names) {
	case 0:
		return nil, nf
	case 1:
		return only, nil
	}
	slices.Sort(names)
	more := ""
	if len(names) > BatchJobCandidates-1 {
		names, more = names[:BatchJobCandidates-1], ", ..."
	}
	return nil, goerr.Wrap(ErrInvalid, "batch job ID "+id+" is ambiguous: it matches "+strings.Join(names, ", ")+more,
		goerr.V("job_id", id), goerr.V("candidates", names))
}
