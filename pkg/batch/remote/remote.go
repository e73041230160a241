// Package remote answers a batch through the Gemini Batch API: the whole input becomes one
// server-side job (about half the price of asking one question at a time, answered within
// hours), recorded in the store the moment it exists so that the same input asked again finds
// it instead of paying twice. When the job is done, each answer is saved as a history exactly
// as a local batch saves it (pkg/batch: the same sessions, redaction, titles and output
// lines), and a collection that is run again saves nothing twice.
package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/retry"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// Limits of the service, checked before anything is uploaded.
const (
	// InlineLimit is the largest create request sent with its requests inlined; a larger job
	// uploads them as a file.
	InlineLimit = 10 << 20
	// MaxFileBytes is the largest input file the Batch API takes.
	MaxFileBytes = 2 << 30
	// DefaultPollInterval is how often a waiting job is asked for its state.
	DefaultPollInterval = 30 * time.Second
	// maxPollInterval bounds the backoff after errors; maxPollFailures ends a wait whose looks
	// keep failing (about four hours of them).
	maxPollInterval = 5 * time.Minute
	maxPollFailures = 50
	// submitTimeout bounds the upload and the create, which a Ctrl-C does not interrupt: a job
	// the service made must be recorded.
	submitTimeout = 10 * time.Minute
	// DefaultReservationTimeout is how long a reservation of an input's job that shows no sign
	// of life (see Options.ReservationTimeout) keeps other runs waiting.
	DefaultReservationTimeout = 2 * time.Minute
)

// Service is the Gemini Batch API as a remote batch uses it.
type Service interface {
	// Create starts a job of model answering src, named name for a person (and for finding a
	// job whose creation was not recorded).
	Create(ctx context.Context, model string, src *genai.BatchJobSource, name string) (*genai.BatchJob, error)
	// Get returns a job's state and, once it is done, its output.
	Get(ctx context.Context, name string) (*genai.BatchJob, error)
	// Cancel asks the service to stop a job.
	Cancel(ctx context.Context, name string) error
	// Upload stores an input file of size bytes (JSONL) and returns the job source naming it;
	// id names the input among others (its SHA-256).
	Upload(ctx context.Context, id string, r io.Reader, size int64) (*genai.BatchJobSource, error)
	// Results opens the results file of a done job whose input was a file.
	Results(ctx context.Context, job *genai.BatchJob) (io.ReadCloser, error)
	// Input opens the input file of a job, where the service gives it back (Vertex AI), to
	// match results that name no key.
	Input(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) (io.ReadCloser, error)
	// Clean deletes what a collected job left in storage: its input file and, on Vertex AI,
	// its predictions. They hold the questions and answers unredacted.
	Clean(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) error
}

// Reader is what a remote batch reads.
type Reader interface {
	batch.Reader
	GetHistoryMeta(ctx context.Context, id record.HistoryID) (*record.History, error)
}

// Options are a remote batch's dependencies and settings.
type Options struct {
	Service Service
	Jobs    store.BatchJobs
	Store   Reader
	// NewSession starts the session of a question, as a local batch's: no tools (a job cannot
	// run calls) and no summaries (they would be one more request).
	NewSession func(a *record.Alert, h *record.History) (*session.Session, error)
	Model      string
	// Resubmit submits a new job even when one for the same input is recorded.
	Resubmit bool
	// NoWait returns once the job is recorded.
	NoWait bool
	// PollInterval is the pause between two looks at a waiting job (default
	// DefaultPollInterval); errors back off from it.
	PollInterval time.Duration
	// Concurrency is how many histories are saved at once when the job is collected.
	Concurrency int
	// DescribeError turns a question's error into its line's "error" (default err.Error()).
	DescribeError func(error) string
	// OnRecorded is told of the job once it is recorded (submitted now) or found recorded.
	OnRecorded func(oc *Outcome)
	// OnState is told of the job as it is recorded, after every look while it waits, and when
	// it is collected; elapsed counts from the job's creation.
	OnState func(j *record.BatchJob, elapsed time.Duration)
	// Sleep waits d or until ctx is done (tests: a clock of their own); Now is the clock of the
	// records.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// TempDir is where a file job's input is written before it is uploaded ("" the system's).
	TempDir string
	// FileOnly sends the requests as a file whatever their size (Vertex AI takes no inlined
	// requests).
	FileOnly bool
	// KeyLabels puts each request's key in its labels as well (Vertex AI, whose predictions
	// echo the request and may drop the line's key).
	KeyLabels bool
	// ReservationTimeout is how long another run's reservation of the input's job may show no
	// sign of life before this run takes it over (default DefaultReservationTimeout); the
	// holder gives one every quarter of it.
	ReservationTimeout time.Duration
	// OnWaiting is told, once, that another run holds the reservation: this run waits for
	// that run's job.
	OnWaiting func(r *record.BatchReservation)
	// InlineLimit and MaxFileBytes replace the package's limits (tests).
	InlineLimit  int
	MaxFileBytes int64
}

// Outcome is what Run did.
type Outcome struct {
	// Job is the job as recorded last.
	Job *record.BatchJob
	// Found is set when the job was found recorded rather than submitted now.
	Found bool
	// Submitted is set when the job was submitted now; Inlined when its requests were sent
	// inline rather than as a file.
	Submitted, Inlined bool
	// Summary is the collection's, nil when nothing was collected (NoWait, interrupted).
	Summary *batch.Summary
	// CleanErr is why the job's files could not be deleted after its collection (they stay:
	// say so).
	CleanErr error
}

// SentAs says how a submitted job's requests were sent, for the line that reports it.
func (oc *Outcome) SentAs() string {
	if oc.Inlined {
		return "inline"
	}
	return "as a file"
}

// Errors of a run.
var (
	// ErrInvalidInput: a line cannot be asked; nothing was submitted.
	ErrInvalidInput = errors.New("invalid batch input")
	// ErrJobEnded: the job failed, was cancelled or expired.
	ErrJobEnded = errors.New("the batch job did not succeed")
	// ErrDetached: the wait was interrupted; the job goes on.
	ErrDetached = errors.New("stopped waiting; the batch job goes on")
	// ErrCollected: the job was collected already and its results deleted.
	ErrCollected = errors.New("the batch job was collected already")
)

// displayName names a job by its input, so that a job whose creation could not be recorded can
// still be told apart in the service's own list.
func displayName(sha string) string { return "alertchat " + sha[:16] }

// InputSHA256 is the hex SHA-256 of a batch's input bytes, which identifies its job.
func InputSHA256(input []byte) string {
	sum := sha256.Sum256(input)
	return hex.EncodeToString(sum[:])
}

// Run answers qs (parsed from input) through a job: it finds the job recorded for the same
// input, workspace and model or submits one, waits for it and collects it, writing the output
// lines to out in input order.
func Run(ctx context.Context, input []byte, qs []batch.Question, out io.Writer, o Options) (*Outcome, error) {
	if o.Service == nil || o.Jobs == nil || o.Store == nil || o.NewSession == nil || o.Model == "" {
		return nil, goerr.New("a remote batch needs a service, a job store, a store, sessions and a model")
	}
	o.defaults()
	sha := InputSHA256(input)
	oc := &Outcome{}
	job, err := o.findOrSubmit(ctx, sha, len(qs), func() error { return check(qs) },
		func(emit func(item) error) error { return o.prepare(ctx, qs, emit) }, oc)
	if err != nil {
		return oc.orNil(), err
	}
	if o.NoWait {
		return oc, nil
	}
	job, err = o.wait(ctx, oc.Job, job)
	if err != nil {
		return oc, err
	}
	sum, err := o.collect(ctx, qs, oc, job, out)
	oc.Summary = sum
	return oc, err
}

// findOrSubmit fills oc with the job recorded for the input sha (unless Resubmit), or, when
// there is none, checks the input, reserves it and submits its n requests (prepare), unless
// another run reserved it and recorded its job meanwhile. It returns the job when it submitted
// one (nil when found), and tells OnRecorded and OnState.
func (o *Options) findOrSubmit(ctx context.Context, sha string, n int, check func() error, prepare func(emit func(item) error) error, oc *Outcome) (*genai.BatchJob, error) {
	if !o.Resubmit {
		rec, err := o.Jobs.FindBatchJob(ctx, sha, o.Model)
		switch {
		case err == nil:
			oc.Job, oc.Found = rec, true
		case !errors.Is(err, store.ErrNotFound):
			return nil, goerr.Wrap(err, "failed to look for a recorded batch job")
		}
	}
	var job *genai.BatchJob
	if oc.Job == nil {
		if err := check(); err != nil {
			return nil, err
		}
		h, found, err := o.reserve(ctx, sha)
		if err != nil {
			return nil, err
		}
		if found != nil {
			oc.Job, oc.Found = found, true
		} else if job, err = o.submitReserved(ctx, sha, n, prepare, h, oc); err != nil {
			return nil, err
		}
	}
	o.OnRecorded(oc)
	o.OnState(oc.Job, o.Now().Sub(oc.Job.CreatedAt))
	return job, nil
}

// orNil is oc once it names a job (so a caller can tell it), else nil.
func (oc *Outcome) orNil() *Outcome {
	if oc.Job == nil {
		return nil
	}
	return oc
}

// submitReserved submits the job of the input held by h (n questions, their requests given
// by prepare), records it and releases the reservation with its name (or, when nothing was
// submitted, as ended).
func (o *Options) submitReserved(ctx context.Context, sha string, n int, prepare func(emit func(item) error) error, h *holder, oc *Outcome) (*genai.BatchJob, error) {
	sub, err := o.submit(ctx, sha, prepare, func() error { return h.confirm(context.WithoutCancel(ctx)) })
	if err != nil {
		h.release(ctx, "")
		return nil, err
	}
	job := sub.job
	oc.Submitted, oc.Inlined = true, sub.inlined
	oc.Job = &record.BatchJob{ID: job.Name, Model: o.Model, InputSHA256: sha, Requests: n,
		State: string(job.State), InputFile: sub.inputFile, CreatedAt: o.Now(), UpdatedAt: o.Now()}
	err = o.Jobs.PutBatchJob(context.WithoutCancel(ctx), oc.Job)
	h.release(ctx, job.Name)
	if err != nil {
		// The job exists and costs money: say its name, so it can be found or cancelled.
		return nil, goerr.Wrap(err, "the batch job was created but could not be recorded; cancel it with `batch cancel "+job.Name+"` or wait for it", goerr.V("job", job.Name))
	}
	return job, nil
}

func (o *Options) defaults() {
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Concurrency < 1 {
		o.Concurrency = 4
	}
	if o.DescribeError == nil {
		o.DescribeError = func(err error) string { return err.Error() }
	}
	if o.OnState == nil {
		o.OnState = func(*record.BatchJob, time.Duration) {}
	}
	if o.OnRecorded == nil {
		o.OnRecorded = func(*Outcome) {}
	}
	if o.Sleep == nil {
		o.Sleep = retry.Sleep
	}
	if o.Now == nil {
		o.Now = store.Now
	}
	if o.InlineLimit <= 0 {
		o.InlineLimit = InlineLimit
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = MaxFileBytes
	}
	if o.ReservationTimeout <= 0 {
		o.ReservationTimeout = DefaultReservationTimeout
	}
	if o.OnWaiting == nil {
		o.OnWaiting = func(*record.BatchReservation) {}
	}
}

// check refuses an input with a line that cannot be asked, naming the line, before anything is
// submitted, and an input that continues one history twice: a job asks its questions at once,
// so the second could not see the first's answer.
func check(qs []batch.Question) error {
	seen := map[record.HistoryID]int{}
	for _, q := range qs {
		if q.Err != nil {
			return goerr.Wrap(ErrInvalidInput, fmt.Sprintf("line %d: %v", q.Line, q.Err), goerr.V("line", q.Line))
		}
		if q.HistoryID == "" {
			continue
		}
		if first, ok := seen[q.HistoryID]; ok {
			return goerr.Wrap(ErrInvalidInput, fmt.Sprintf("lines %d and %d continue the same history %s: a remote batch asks its questions at once, so ask the second in another run (or run the batch locally)", first, q.Line, q.HistoryID))
		}
		seen[q.HistoryID] = q.Line
	}
	return nil
}

// prepare builds the requests of every question, as its session would send them, and gives
// them to emit one question at a time. A line naming an alert or a history that does not exist
// fails the whole input, naming the line.
func (o *Options) prepare(ctx context.Context, qs []batch.Question, emit func(item) error) error {
	alerts := map[record.AlertID]*record.Alert{}
	alert := func(q batch.Question, id record.AlertID) (*record.Alert, error) {
		if a, ok := alerts[id]; ok {
			return a, nil
		}
		a, err := o.Store.GetAlert(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, goerr.Wrap(ErrInvalidInput, fmt.Sprintf("line %d: no alert %s", q.Line, id), goerr.V("line", q.Line))
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read an alert", goerr.V("alert_id", id))
		}
		alerts[id] = a
		return a, nil
	}
	for _, q := range qs {
		var h *record.History
		alertID := q.AlertID
		if q.HistoryID != "" {
			var err error
			h, err = o.Store.GetHistory(ctx, q.HistoryID)
			if errors.Is(err, store.ErrNotFound) {
				return goerr.Wrap(ErrInvalidInput, fmt.Sprintf("line %d: no history %s", q.Line, q.HistoryID), goerr.V("line", q.Line))
			}
			if err != nil {
				return goerr.Wrap(err, "failed to read a history", goerr.V("history_id", q.HistoryID))
			}
			if alertID != "" && alertID != h.AlertID {
				return goerr.Wrap(ErrInvalidInput, fmt.Sprintf("line %d: history %s is about alert %s, not %s", q.Line, h.ID, h.AlertID, alertID))
			}
			alertID = h.AlertID
		}
		a, err := alert(q, alertID)
		if err != nil {
			return err
		}
		s, err := o.NewSession(a, h)
		if err != nil {
			return goerr.Wrap(err, "failed to start a session", goerr.V("line", q.Line))
		}
		ans, title, err := s.Prepare(q.Query)
		if err != nil {
			return goerr.Wrap(ErrInvalidInput, fmt.Sprintf("line %d: %v", q.Line, err))
		}
		k := key{line: q.Line}
		if h != nil {
			k.at = len(h.Contents)
		}
		if err := emit(item{key: k, req: ans}); err != nil {
			return err
		}
		if title != nil {
			if err := emit(item{key: key{title: true, line: q.Line}, req: *title}); err != nil {
				return err
			}
		}
	}
	return nil
}

// submitted is what submit made.
type submitted struct {
	job     *genai.BatchJob
	inlined bool
	// inputFile names the uploaded input (record.BatchJob.InputFile).
	inputFile string
}

// submit prepares the requests and creates the job: inlined while the create request stays
// under the inline limit, else through an uploaded JSONL file. held says whether this run
// still holds the input's reservation; it is asked before the job is created.
func (o *Options) submit(ctx context.Context, sha string, prepare func(emit func(item) error) error, held func() error) (*submitted, error) {
	sub := newSubmission(o.Model, o.InlineLimit, o.FileOnly, o.KeyLabels, o.TempDir)
	defer sub.close()
	if err := prepare(sub.add); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, goerr.Wrap(err, "interrupted before the batch job was submitted")
	}
	// From here on an interruption could lose a job the service has made and charges for.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), submitTimeout)
	defer cancel()
	if reqs, ok := sub.inline(); ok {
		if err := held(); err != nil {
			return nil, err
		}
		job, err := o.Service.Create(ctx, o.Model, &genai.BatchJobSource{InlinedRequests: reqs}, displayName(sha))
		if err != nil {
			return nil, goerr.Wrap(err, "failed to create the batch job")
		}
		return &submitted{job: job, inlined: true}, nil
	}
	f, n, err := sub.file()
	if err != nil {
		return nil, err
	}
	if n > o.MaxFileBytes {
		return nil, goerr.Wrap(ErrInvalidInput, fmt.Sprintf("the job's input file would be %d bytes, more than the Batch API's limit of %d: split the input", n, o.MaxFileBytes))
	}
	// Unique per submission: a resubmission never overwrites the input of a job still running.
	src, err := o.Service.Upload(ctx, sha[:16]+"-"+uuid.NewString()[:8], f, n)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to upload the job's input file", goerr.V("bytes", n))
	}
	s := &submitted{inputFile: src.FileName}
	if len(src.GCSURI) > 0 {
		s.inputFile = src.GCSURI[0]
	}
	if err := held(); err != nil {
		o.cleanUnused(ctx, s.inputFile)
		return nil, err
	}
	if s.job, err = o.Service.Create(ctx, o.Model, src, displayName(sha)); err != nil {
		o.cleanUnused(ctx, s.inputFile)
		return nil, goerr.Wrap(err, "failed to create the batch job")
	}
	return s, nil
}

// cleanUnused deletes an uploaded input that no job will read.
func (o *Options) cleanUnused(ctx context.Context, inputFile string) {
	_ = o.Service.Clean(ctx, &record.BatchJob{InputFile: inputFile}, nil)
}

// done reports whether a job's state is final.
func done(s genai.JobState) bool {
	switch s {
	case genai.JobStateSucceeded, genai.JobStateFailed, genai.JobStateCancelled, genai.JobStateExpired, genai.JobStatePartiallySucceeded:
		return true
	}
	return false
}

// wait polls the job until its state is final, recording each change. job, when set, is what
// the service said last.
func (o *Options) wait(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) (*genai.BatchJob, error) {
	pause := o.PollInterval
	failures := 0
	for first := true; ; first = false {
		if job != nil && done(job.State) {
			return job, nil
		}
		if !first || job != nil {
			if err := o.Sleep(ctx, pause); err != nil {
				return nil, o.detached(rec, err)
			}
		}
		got, err := o.Service.Get(ctx, rec.ID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, o.detached(rec, ctx.Err())
			}
			// The job goes on whatever happened to this look: back off, and honour the delay
			// a 429 asks for. An answer that will not change (the job is gone, the key is
			// refused) ends the wait, and so do many failed looks in a row.
			failures++
			if !llm.Retryable(err) || failures >= maxPollFailures {
				return nil, goerr.Wrap(err, fmt.Sprintf("could not look at batch job %s (%d tries); it may still run: run the same command again later", rec.ID, failures), goerr.V("job", rec.ID))
			}
			pause = max(o.PollInterval, min(2*pause, maxPollInterval))
			if d, ok := llm.RetryDelay(err); ok && d > pause {
				pause = d
			}
			continue
		}
		failures = 0
		pause = o.PollInterval
		job = got
		if string(job.State) != rec.State {
			rec.State, rec.UpdatedAt = string(job.State), o.Now()
			// A record that cannot be updated now is updated at collection: the wait goes on.
			_ = o.Jobs.PutBatchJob(context.WithoutCancel(ctx), rec)
		}
		o.OnState(rec, o.Now().Sub(rec.CreatedAt))
	}
}

func (o *Options) detached(rec *record.BatchJob, cause error) error {
	return goerr.Wrap(ErrDetached, "run the same command again to wait for it and collect its answers (or `alertchat batch cancel "+rec.ID+"`)",
		goerr.V("job", rec.ID), goerr.V("cause", cause.Error()))
}

// collect saves the answers of a done job and writes the output lines; a job that did not
// succeed saves what it answered (an expired job's partial results) and returns ErrJobEnded.
// Once every answer is saved (or the job ended with none), the job's files are deleted.
func (o *Options) collect(ctx context.Context, qs []batch.Question, oc *Outcome, job *genai.BatchJob, out io.Writer) (*batch.Summary, error) {
	rec := oc.Job
	state := job.State
	res, err := o.read(ctx, rec, job)
	if errors.Is(err, ErrResultsDeleted) && rec.Collected {
		return nil, goerr.Wrap(ErrCollected, fmt.Sprintf("batch job %s was collected already (%d answered, %d failed), and its files were deleted: its answers are in the histories (`alertchat history list`); --resubmit asks again",
			rec.ID, rec.Succeeded, rec.Failed), goerr.V("job", rec.ID))
	}
	if err != nil {
		return nil, err
	}
	if err := o.endedEmpty(ctx, oc, job, res); err != nil {
		return nil, err
	}

	sum, err := batch.Run(ctx, qs, out, batch.Options{
		Store:         o.Store,
		NewSession:    o.NewSession,
		Concurrency:   o.Concurrency,
		DescribeError: o.DescribeError,
		NewHistory: func(ctx context.Context, q batch.Question) (*record.History, error) {
			return o.newHistory(ctx, rec, q)
		},
		Ask: func(ctx context.Context, s *session.Session, q batch.Question) (*session.Turn, error) {
			return complete(ctx, s, q, res, state)
		},
	})
	if sum != nil {
		rec.Succeeded, rec.Failed = sum.Succeeded, sum.Failed
	}
	rec.State, rec.UpdatedAt = string(state), o.Now()
	rec.Collected = err == nil && sum != nil && len(sum.Unfinished) == 0
	if perr := o.Jobs.PutBatchJob(context.WithoutCancel(ctx), rec); perr != nil && err == nil {
		err = goerr.Wrap(perr, "failed to record the collected batch job", goerr.V("job", rec.ID))
	}
	o.OnState(rec, o.Now().Sub(rec.CreatedAt))
	if rec.Collected {
		// Every answer is saved (redacted): the raw questions and answers go.
		oc.CleanErr = o.Service.Clean(context.WithoutCancel(ctx), rec, job)
	}
	if err != nil {
		return sum, err
	}
	if state != genai.JobStateSucceeded {
		return sum, goerr.Wrap(ErrJobEnded, fmt.Sprintf("the batch job ended %s; %d of %d answers were saved (--resubmit asks again)", state, sum.Succeeded, sum.Total),
			goerr.V("job", rec.ID), goerr.V("state", string(state)))
	}
	return sum, nil
}

// read reads the results of the done job: inlined in the job, or its results file. A file
// the collection deleted is ErrResultsDeleted.
func (o *Options) read(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) (*results, error) {
	res := newResults()
	res.input = func() (io.ReadCloser, error) { return o.Service.Input(ctx, rec, job) }
	if job.Dest == nil {
		return res, nil
	}
	switch {
	case len(job.Dest.InlinedResponses) > 0:
		res.addInlined(job.Dest.InlinedResponses)
	case job.Dest.FileName != "" || job.Dest.GCSURI != "" || (job.OutputInfo != nil && job.OutputInfo.GCSOutputDirectory != ""):
		rc, err := o.Service.Results(ctx, job)
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read the batch job's results", goerr.V("job", rec.ID))
		}
		err = res.readFile(rc)
		_ = rc.Close()
		if err != nil {
			return nil, goerr.Wrap(err, "failed to read the batch job's results", goerr.V("job", rec.ID))
		}
	}
	return res, nil
}

// endedEmpty returns ErrJobEnded, with the job's state and error, for a job that failed or was
// cancelled without an answer; its record is updated and its files deleted (nothing in them
// is of use any more).
func (o *Options) endedEmpty(ctx context.Context, oc *Outcome, job *genai.BatchJob, res *results) error {
	rec, state := oc.Job, job.State
	if (state != genai.JobStateFailed && state != genai.JobStateCancelled) || len(res.answers) > 0 {
		return nil
	}
	rec.State, rec.UpdatedAt = string(state), o.Now()
	_ = o.Jobs.PutBatchJob(context.WithoutCancel(ctx), rec)
	oc.CleanErr = o.Service.Clean(context.WithoutCancel(ctx), rec, job)
	msg := "the batch job ended " + string(state)
	if job.Error != nil && job.Error.Message != "" {
		msg += ": " + job.Error.Message
	}
	msg += " (--resubmit asks again)"
	return goerr.Wrap(ErrJobEnded, msg, goerr.V("job", rec.ID), goerr.V("state", string(state)))
}

// historyNamespace derives the IDs of a job's new histories.
var historyNamespace = uuid.MustParse("6f1c2a4e-8d0b-4c52-9a57-3b8e0f6d2c19")

// HistoryID is the ID of the new history that the question on input line of a job starts: the
// same whenever the job is collected, so a second collection finds the first's.
func HistoryID(job string, line int) record.HistoryID {
	return record.HistoryID(uuid.NewSHA1(historyNamespace, fmt.Appendf(nil, "%s#%d", job, line)).String())
}

// newHistory is the history a new conversation of the job starts as: the one a previous
// collection saved, or a new one with the job's ID for the line.
func (o *Options) newHistory(ctx context.Context, rec *record.BatchJob, q batch.Question) (*record.History, error) {
	id := HistoryID(rec.ID, q.Line)
	h, err := o.Store.GetHistory(ctx, id)
	switch {
	case err == nil:
		return h, nil
	case errors.Is(err, store.ErrNotFound):
		return &record.History{ID: id, AlertID: q.AlertID}, nil
	}
	return nil, goerr.Wrap(err, "failed to read a history", goerr.V("history_id", id))
}

// complete ends the question's turn with the job's answer, unless a previous collection saved
// it already: then the line is written from the job's answer and nothing is saved again.
func complete(ctx context.Context, s *session.Session, q batch.Question, res *results, state genai.JobState) (*session.Turn, error) {
	a, ok := res.answers[q.Line]
	if !ok {
		msg := fmt.Sprintf("the batch job (%s) has no answer to this question", state)
		if res.unmatched > 0 {
			msg += fmt.Sprintf(" (%d of its result lines named no question)", res.unmatched)
		}
		return nil, goerr.New(msg)
	}
	if a.err != nil {
		return nil, a.err
	}
	if s.Holds(a.at, q.Query) {
		return savedTurn(a.resp)
	}
	return s.Complete(ctx, q.Query, session.Answer{Response: a.resp, Title: res.titles[q.Line]})
}

// savedTurn is the turn of an answer saved by an earlier collection, with the error the
// collection reported for it (an answer without text was saved as a question left unanswered).
func savedTurn(resp *genai.GenerateContentResponse) (*session.Turn, error) {
	text, usage, err := session.Answered(resp)
	return &session.Turn{Answer: text, Usage: usage, Partial: err != nil}, err
}

// JobLine is the line `--no-wait` prints.
func JobLine(name string) ([]byte, error) {
	b, err := json.Marshal(map[string]string{"job": name})
	if err != nil {
		return nil, goerr.Wrap(err, "failed to encode the job line")
	}
	return append(b, '\n'), nil
}
