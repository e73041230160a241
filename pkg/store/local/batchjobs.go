package local

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.BatchJobs = (*Store)(nil)

const batchJobColumns = `id, model, input_sha256, state, requests, succeeded, failed, collected, created_at, updated_at, input_file`

// PutBatchJob implements store.BatchJobs with one upsert: a zero CreatedAt keeps the stored
// one (RETURNING gives it back), anything else replaces the row.
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	if j == nil || j.ID == "" {
		return goerr.Wrap(store.ErrInvalid, "batch job without ID")
	}
	keepCreated := j.CreatedAt.IsZero()
	created, updated := j.CreatedAt, j.UpdatedAt
	if keepCreated {
		created = store.Now()
	}
	if updated.IsZero() {
		updated = store.Now()
	}
	var stored int64
	s.calls.Add("sqlite.query")
	err := s.db.QueryRowContext(ctx, `INSERT INTO batch_jobs (workspace, `+batchJobColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (workspace, id) DO UPDATE SET
	model = excluded.model, input_sha256 = excluded.input_sha256, state = excluded.state,
	requests = excluded.requests, succeeded = excluded.succeeded, failed = excluded.failed,
	collected = excluded.collected, updated_at = excluded.updated_at, input_file = excluded.input_file,
	created_at = CASE WHEN ? THEN batch_jobs.created_at ELSE excluded.created_at END
RETURNING created_at`,
		s.workspace, j.ID, j.Model, j.InputSHA256, j.State, j.Requests, j.Succeeded, j.Failed, j.Collected,
		micros(created), micros(updated), j.InputFile, keepCreated).Scan(&stored)
	if err != nil {
		if isNoSpace(err) {
			return goerr.Wrap(store.ErrNoSpace, "no space left on the device of "+s.dir+" to record batch job "+j.ID,
				goerr.V("job_id", j.ID), goerr.V("dir", s.dir), goerr.V("cause", err.Error()))
		}
		return goerr.Wrap(err, "failed to record batch job", goerr.V("job_id", j.ID))
	}
	j.Workspace = s.workspace
	j.CreatedAt = time.UnixMicro(stored).UTC()
	j.UpdatedAt = time.UnixMicro(micros(updated)).UTC()
	return nil
}

// GetBatchJob implements store.BatchJobs: one ID range per prefix of store.BatchJobPrefixes.
func (s *Store) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	var found []*record.BatchJob
	for _, p := range store.BatchJobPrefixes(id) {
		jobs, err := s.queryBatchJobs(ctx, "find batch jobs",
			`SELECT workspace, `+batchJobColumns+` FROM batch_jobs WHERE workspace = ? AND id >= ? AND id < ? ORDER BY id LIMIT ?`,
			s.workspace, p, p+"\uffff", store.BatchJobCandidates)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read batch job", goerr.V("job_id", id))
		}
		found = append(found, jobs...)
	}
	return store.PickBatchJob(id, found)
}

// FindBatchJob implements store.BatchJobs on the batch_jobs_by_input index.
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256, model string) (*record.BatchJob, error) {
	jobs, err := s.queryBatchJobs(ctx, "find batch job by input",
		`SELECT workspace, `+batchJobColumns+` FROM batch_jobs WHERE workspace = ? AND input_sha256 = ? AND model = ?
ORDER BY created_at DESC, id DESC LIMIT 1`, s.workspace, inputSHA256, model)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to find batch job", goerr.V("input_sha256", inputSHA256), goerr.V("model", model))
	}
	if len(jobs) == 0 {
		return nil, goerr.Wrap(store.ErrNotFound, "no batch job for this input and model",
			goerr.V("input_sha256", inputSHA256), goerr.V("model", model))
	}
	return jobs[0], nil
}

// ListBatchJobs implements store.BatchJobs on the batch_jobs_by_creation index.
func (s *Store) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	jobs, err := s.queryBatchJobs(ctx, "list batch jobs",
		`SELECT workspace, `+batchJobColumns+` FROM batch_jobs WHERE workspace = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
		s.workspace, store.ClampLimit(limit))
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list batch jobs")
	}
	return jobs, nil
}

func (s *Store) queryBatchJobs(ctx context.Context, what, query string, args ...any) ([]*record.BatchJob, error) {
	s.calls.Add("sqlite.query")
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to "+what)
	}
	defer rows.Close()
	var jobs []*record.BatchJob
	for rows.Next() {
		j := &record.BatchJob{}
		var created, updated int64
		if err := rows.Scan(&j.Workspace, &j.ID, &j.Model, &j.InputSHA256, &j.State, &j.Requests, &j.Succeeded, &j.Failed,
			&j.Collected, &created, &updated, &j.InputFile); err != nil {
			return nil, goerr.Wrap(err, "failed to read a batch job row", goerr.V("query", what))
		}
		j.CreatedAt, j.UpdatedAt = time.UnixMicro(created).UTC(), time.UnixMicro(updated).UTC()
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, goerr.Wrap(err, "failed to "+what)
	}
	return jobs, nil
}

// migrateBatchJobs adds the input_file column to a batch_jobs table made before it existed.
func migrateBatchJobs(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('batch_jobs') WHERE name = 'input_file'`).Scan(&n); err != nil {
		return goerr.Wrap(err, "failed to read the batch_jobs columns")
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE batch_jobs ADD COLUMN input_file TEXT NOT NULL DEFAULT ''`); err != nil {
		return goerr.Wrap(err, "failed to add the input_file column to batch_jobs")
	}
	return nil
}

const reservationColumns = `model, input_sha256, owner, beat, job, ended, updated_at`

// PutBatchReservation implements store.BatchJobs with one statement: an insert that, on a
// stored reservation, updates it only when it is prev. RETURNING says whether r was written;
// the write lock makes the whole atomic.
func (s *Store) PutBatchReservation(ctx context.Context, r, prev *record.BatchReservation) (*record.BatchReservation, error) {
	if err := store.CheckBatchReservation(r); err != nil {
		return nil, err
	}
	now := store.Now()
	var prevOwner string
	var prevBeat int64
	if prev != nil {
		prevOwner, prevBeat = prev.Owner, prev.Beat
	}
	s.calls.Add("sqlite.query")
	var owner string
	err := s.db.QueryRowContext(ctx, `INSERT INTO batch_reservations (workspace, `+reservationColumns+`)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (workspace, model, input_sha256) DO UPDATE SET
	owner = excluded.owner, beat = excluded.beat, job = excluded.job, ended = excluded.ended, updated_at = excluded.updated_at
	WHERE ? AND batch_reservations.owner = ? AND batch_reservations.beat = ?
RETURNING owner`,
		s.workspace, r.Model, r.InputSHA256, r.Owner, r.Beat, r.Job, r.Ended, micros(now),
		prev != nil, prevOwner, prevBeat).Scan(&owner)
	switch {
	case err == nil:
		r.Workspace, r.UpdatedAt = s.workspace, time.UnixMicro(micros(now)).UTC()
		return r, nil
	case !errors.Is(err, sql.ErrNoRows):
		if isNoSpace(err) {
			return nil, goerr.Wrap(store.ErrNoSpace, "no space left on the device of "+s.dir+" to reserve a batch job",
				goerr.V("dir", s.dir), goerr.V("cause", err.Error()))
		}
		return nil, goerr.Wrap(err, "failed to reserve the batch job", goerr.V("input_sha256", r.InputSHA256))
	}
	// Not written: another run's reservation is there.
	s.calls.Add("sqlite.query")
	cur := &record.BatchReservation{Workspace: s.workspace}
	var updated int64
	err = s.db.QueryRowContext(ctx, `SELECT `+reservationColumns+` FROM batch_reservations WHERE workspace = ? AND model = ? AND input_sha256 = ?`,
		s.workspace, r.Model, r.InputSHA256).Scan(&cur.Model, &cur.InputSHA256, &cur.Owner, &cur.Beat, &cur.Job, &cur.Ended, &updated)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the batch job's reservation", goerr.V("input_sha256", r.InputSHA256))
	}
	cur.UpdatedAt = time.UnixMicro(updated).UTC()
	return cur, nil
}
