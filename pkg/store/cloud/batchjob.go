package cloud

import (
	"context"
	"time"

	"cloud.google.com/go/firestore"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/grpc/codes"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

var _ store.BatchJobs = (*Store)(nil)

// batchJobDoc is the Firestore document of a batch job.
type batchJobDoc struct {
	ID          string    `firestore:"id"`
	Workspace   string    `firestore:"workspace"`
	Model       string    `firestore:"model"`
	InputSHA256 string    `firestore:"input_sha256"`
	State       string    `firestore:"state"`
	Requests    int64     `firestore:"requests"`
	Succeeded   int64     `firestore:"succeeded"`
	Failed      int64     `firestore:"failed"`
	Collected   bool      `firestore:"collected"`
	InputFile   string    `firestore:"input_file"`
	CreatedAt   time.Time `firestore:"created_at"`
	UpdatedAt   time.Time `firestore:"updated_at"`
}

// maxBatchJobID bounds a job name so that its document ID stays under Firestore's 1,500 bytes.
const maxBatchJobID = 1024

// batchJobDocID is the document ID of a batch job: "{workspace}:{job name}", with '%' and '/'
// of the name ("batches/abc") percent-escaped, like alertDocID. Escaping keeps prefixes: a
// name starts with p exactly when its escaped form starts with p's.
func batchJobDocID(workspace, id string) string {
	return workspace + ":" + idEscaper.Replace(id)
}

func (d *batchJobDoc) job() *record.BatchJob {
	return &record.BatchJob{
		ID: d.ID, Workspace: d.Workspace, Model: d.Model, InputSHA256: d.InputSHA256, State: d.State,
		Requests: int(d.Requests), Succeeded: int(d.Succeeded), Failed: int(d.Failed), Collected: d.Collected,
		InputFile: d.InputFile, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(),
	}
}

// PutBatchJob implements store.BatchJobs: one Set of the whole document, or, when CreatedAt is
// zero, a transaction that keeps the stored creation time.
func (s *Store) PutBatchJob(ctx context.Context, j *record.BatchJob) error {
	if j == nil || j.ID == "" || len(j.ID) > maxBatchJobID {
		return goerr.Wrap(store.ErrInvalid, "invalid batch job ID")
	}
	doc := &batchJobDoc{
		ID: j.ID, Workspace: s.workspace, Model: j.Model, InputSHA256: j.InputSHA256, State: j.State,
		Requests: int64(j.Requests), Succeeded: int64(j.Succeeded), Failed: int64(j.Failed), Collected: j.Collected,
		InputFile: j.InputFile, CreatedAt: normTime(j.CreatedAt), UpdatedAt: normTime(j.UpdatedAt),
	}
	ref := s.batchJobs().Doc(batchJobDocID(s.workspace, j.ID))
	var err error
	if j.CreatedAt.IsZero() {
		s.calls.Add("firestore.tx")
		err = s.fs.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
			doc.CreatedAt = normTime(time.Time{})
			snap, err := tx.Get(ref)
			switch {
			case isCode(err, codes.NotFound):
			case err != nil:
				return err
			default:
				var old batchJobDoc
				if err := snap.DataTo(&old); err != nil {
					return goerr.Wrap(err, "failed to decode batch job", goerr.V("job_id", j.ID))
				}
				doc.CreatedAt = old.CreatedAt.UTC()
			}
			return tx.Set(ref, doc)
		})
	} else {
		s.calls.Add("firestore.set")
		_, err = ref.Set(ctx, doc)
	}
	if err != nil {
		return goerr.Wrap(err, "failed to record batch job", goerr.V("job_id", j.ID))
	}
	j.Workspace, j.CreatedAt, j.UpdatedAt = s.workspace, doc.CreatedAt, doc.UpdatedAt
	return nil
}

// GetBatchJob implements store.BatchJobs: one document ID range of the workspace per prefix
// of store.BatchJobPrefixes.
func (s *Store) GetBatchJob(ctx context.Context, id string) (*record.BatchJob, error) {
	coll := s.batchJobs()
	var found []*record.BatchJob
	for _, p := range store.BatchJobPrefixes(id) {
		if len(p) > maxBatchJobID {
			continue
		}
		from := batchJobDocID(s.workspace, p)
		s.calls.Add("firestore.query")
		snaps, err := coll.Where(firestore.DocumentID, ">=", coll.Doc(from)).
			Where(firestore.DocumentID, "<", coll.Doc(from+"\uf8ff")).
			OrderBy(firestore.DocumentID, firestore.Asc).Limit(store.BatchJobCandidates).Documents(ctx).GetAll()
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read batch job", goerr.V("job_id", id))
		}
		jobs, err := s.decodeBatchJobs(snaps)
		if err != nil {
			return nil, err
		}
		found = append(found, jobs...)
	}
	return store.PickBatchJob(id, found)
}

// FindBatchJob implements store.BatchJobs: one query on the (workspace, input_sha256, model,
// created_at desc, __name__ desc) index.
func (s *Store) FindBatchJob(ctx context.Context, inputSHA256, model string) (*record.BatchJob, error) {
	s.calls.Add("firestore.query")
	snaps, err := s.batchJobs().Where("workspace", "==", s.workspace).
		Where("input_sha256", "==", inputSHA256).Where("model", "==", model).
		OrderBy("created_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc).
		Limit(1).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to find batch job", goerr.V("input_sha256", inputSHA256), goerr.V("model", model))
	}
	jobs, err := s.decodeBatchJobs(snaps)
	if err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, goerr.Wrap(store.ErrNotFound, "no batch job for this input and model",
			goerr.V("input_sha256", inputSHA256), goerr.V("model", model))
	}
	return jobs[0], nil
}

// ListBatchJobs implements store.BatchJobs: one query on the (workspace, created_at desc,
// __name__ desc) index.
func (s *Store) ListBatchJobs(ctx context.Context, limit int) ([]*record.BatchJob, error) {
	s.calls.Add("firestore.query")
	snaps, err := s.batchJobs().Where("workspace", "==", s.workspace).
		OrderBy("created_at", firestore.Desc).OrderBy(firestore.DocumentID, firestore.Desc).
		Limit(store.ClampLimit(limit)).Documents(ctx).GetAll()
	if err != nil {
		return nil, goerr.Wrap(err, "failed to list batch jobs", goerr.V("workspace", s.workspace))
	}
	return s.decodeBatchJobs(snaps)
}

// decodeBatchJobs decodes query results, dropping any document of another workspace (the
// queries never return one; the check keeps isolation independent of them).
func (s *Store) decodeBatchJobs(snaps []*firestore.DocumentSnapshot) ([]*record.BatchJob, error) {
	jobs := make([]*record.BatchJob, 0, len(snaps))
	for _, snap := range snaps {
		var d batchJobDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, goerr.Wrap(err, "failed to decode batch job", goerr.V("doc", snap.Ref.ID))
		}
		if d.Workspace != s.workspace {
			continue
		}
		jobs = append(jobs, d.job())
	}
	return jobs, nil
}

// reservationDoc is the Firestore document of a batch job's reservation.
type reservationDoc struct {
	Workspace   string    `firestore:"workspace"`
	Model       string    `firestore:"model"`
	InputSHA256 string    `firestore:"input_sha256"`
	Owner       string    `firestore:"owner"`
	Beat        int64     `firestore:"beat"`
	Job         string    `firestore:"job"`
	Ended       bool      `firestore:"ended"`
	UpdatedAt   time.Time `firestore:"updated_at"`
}

// reservationDocID is "{workspace}:{input_sha256}:{model}", the model escaped as in
// batchJobDocID.
func reservationDocID(workspace, sha, model string) string {
	return workspace + ":" + sha + ":" + idEscaper.Replace(model)
}

func (d *reservationDoc) reservation() *record.BatchReservation {
	return &record.BatchReservation{Workspace: d.Workspace, Model: d.Model, InputSHA256: d.InputSHA256,
		Owner: d.Owner, Beat: d.Beat, Job: d.Job, Ended: d.Ended, UpdatedAt: d.UpdatedAt.UTC()}
}

// PutBatchReservation implements store.BatchJobs: a conditional create (Create fails on an
// existing document) or, to replace prev, an update conditional on the update time of the
// document read, so two runs can never both hold the reservation.
func (s *Store) PutBatchReservation(ctx context.Context, r, prev *record.BatchReservation) (*record.BatchReservation, error) {
	if err := store.CheckBatchReservation(r); err != nil {
		return nil, err
	}
	ref := s.reservations().Doc(reservationDocID(s.workspace, r.InputSHA256, r.Model))
	doc := &reservationDoc{Workspace: s.workspace, Model: r.Model, InputSHA256: r.InputSHA256,
		Owner: r.Owner, Beat: r.Beat, Job: r.Job, Ended: r.Ended, UpdatedAt: store.Now()}
	wrap := func(err error) error {
		return goerr.Wrap(err, "failed to reserve the batch job", goerr.V("input_sha256", r.InputSHA256), goerr.V("model", r.Model))
	}
	written := func() (*record.BatchReservation, error) {
		r.Workspace, r.UpdatedAt = s.workspace, doc.UpdatedAt
		return r, nil
	}
	// A few rounds: a reservation may appear or vanish between a write and the read after it.
	for range 3 {
		var snap *firestore.DocumentSnapshot
		if prev != nil {
			s.calls.Add("firestore.get")
			var err error
			snap, err = ref.Get(ctx)
			switch {
			case isCode(err, codes.NotFound):
				snap = nil
			case err != nil:
				return nil, wrap(err)
			}
		}
		if snap != nil {
			cur, err := decodeReservation(snap)
			if err != nil {
				return nil, err
			}
			if cur.Owner != prev.Owner || cur.Beat != prev.Beat {
				return cur, nil
			}
			s.calls.Add("firestore.update")
			_, err = ref.Update(ctx, []firestore.Update{
				{Path: "owner", Value: doc.Owner}, {Path: "beat", Value: doc.Beat}, {Path: "job", Value: doc.Job},
				{Path: "ended", Value: doc.Ended}, {Path: "updated_at", Value: doc.UpdatedAt},
			}, firestore.LastUpdateTime(snap.UpdateTime))
			switch {
			case err == nil:
				return written()
			case !isCode(err, codes.FailedPrecondition) && !isCode(err, codes.NotFound):
				return nil, wrap(err)
			}
			// Changed meanwhile: read again.
			continue
		}
		s.calls.Add("firestore.create")
		_, err := ref.Create(ctx, doc)
		switch {
		case err == nil:
			return written()
		case !isCode(err, codes.AlreadyExists):
			return nil, wrap(err)
		}
		s.calls.Add("firestore.get")
		got, err := ref.Get(ctx)
		switch {
		case isCode(err, codes.NotFound):
			continue
		case err != nil:
			return nil, wrap(err)
		}
		cur, err := decodeReservation(got)
		if err != nil {
			return nil, err
		}
		if prev == nil || cur.Owner != prev.Owner || cur.Beat != prev.Beat {
			return cur, nil
		}
		// It is prev after all (created between our read and our create): replace it.
	}
	return nil, wrap(goerr.New("the reservation kept changing"))
}

func decodeReservation(snap *firestore.DocumentSnapshot) (*record.BatchReservation, error) {
	var d reservationDoc
	if err := snap.DataTo(&d); err != nil {
		return nil, goerr.Wrap(err, "failed to decode the batch job's reservation", goerr.V("doc", snap.Ref.ID))
	}
	return d.reservation(), nil
}
