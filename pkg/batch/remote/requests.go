package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/session"
)

// A job of plain requests (SubmitRequests, CollectRequests) is a remote batch without
// questions or histories: a caller with requests of its own (an evaluation) gets their
// answers, in request order, through the same job records, reservations, submission, waits
// and result reading as a remote batch. Request i is keyed as a question on input line i+1.

// RequestsSHA256 identifies a job of plain requests: the hex SHA-256 of kind (which keeps
// the jobs of one caller apart from other inputs) and the requests' JSON. The same requests
// find the same recorded job.
func RequestsSHA256(kind string, reqs []session.Request) (string, error) {
	b, err := jsonOf(kind, reqs)
	if err != nil {
		return "", err
	}
	return InputSHA256(b), nil
}

// SubmitRequests finds the job recorded for the same requests (sha, from RequestsSHA256),
// workspace and model, or submits one asking reqs and records it. Only Service, Jobs and
// Model of o are needed; Store and NewSession are not used.
func SubmitRequests(ctx context.Context, sha string, reqs []session.Request, o Options) (*Outcome, error) {
	if o.Service == nil || o.Jobs == nil || o.Model == "" {
		return nil, goerr.New("a job of requests needs a service, a job store and a model")
	}
	if len(reqs) == 0 {
		return nil, goerr.New("a batch job needs at least one request")
	}
	o.defaults()
	oc := &Outcome{}
	prepare := func(emit func(item) error) error {
		for i, r := range reqs {
			if err := emit(item{key: key{line: i + 1}, req: r}); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := o.findOrSubmit(ctx, sha, len(reqs), func() error { return nil }, prepare, oc); err != nil {
		return oc.orNil(), err
	}
	return oc, nil
}

// CollectRequests waits for the job of oc (from SubmitRequests) to end and returns its
// answers, one per request in request order (n of them): a request the job has no answer to
// has an Err saying so, never a missing answer. It records the job's state and counts and
// then deletes the job's files (they hold the requests and answers unredacted).
//
// A job that failed or was cancelled without any answer returns ErrJobEnded and no answers; a
// job that ended otherwise than SUCCEEDED with some answers (expired, partial) returns them
// all and ErrJobEnded with its state. An interrupted wait is ErrDetached: the job goes on.
func CollectRequests(ctx context.Context, oc *Outcome, n int, o Options) ([]session.Answer, error) {
	o.defaults()
	rec := oc.Job
	job, err := o.wait(ctx, rec, nil)
	if err != nil {
		return nil, err
	}
	res, err := o.read(ctx, rec, job)
	if errors.Is(err, ErrResultsDeleted) && rec.Collected {
		return nil, goerr.Wrap(ErrCollected, fmt.Sprintf("batch job %s was collected already and its results were deleted; --resubmit asks again", rec.ID), goerr.V("job", rec.ID))
	}
	if err != nil {
		return nil, err
	}
	if err := o.endedEmpty(ctx, oc, job, res); err != nil {
		return nil, err
	}
	state := job.State
	answers := make([]session.Answer, n)
	rec.Succeeded, rec.Failed = 0, 0
	for i := range answers {
		a, ok := res.answers[i+1]
		switch {
		case !ok:
			msg := fmt.Sprintf("the batch job (%s) has no answer to this request", state)
			if res.unmatched > 0 {
				msg += fmt.Sprintf(" (%d of its result lines named no request)", res.unmatched)
			}
			answers[i].Err = goerr.Wrap(ErrJobError, msg)
		case a.err != nil:
			answers[i].Err = a.err
		default:
			answers[i].Response = a.resp
		}
		if answers[i].Err != nil {
			rec.Failed++
		} else {
			rec.Succeeded++
		}
	}
	rec.State, rec.UpdatedAt, rec.Collected = string(state), o.Now(), true
	if perr := o.Jobs.PutBatchJob(context.WithoutCancel(ctx), rec); perr != nil {
		return nil, goerr.Wrap(perr, "failed to record the collected batch job", goerr.V("job", rec.ID))
	}
	o.OnState(rec, o.Now().Sub(rec.CreatedAt))
	oc.CleanErr = o.Service.Clean(context.WithoutCancel(ctx), rec, job)
	if state != genai.JobStateSucceeded {
		return answers, goerr.Wrap(ErrJobEnded, fmt.Sprintf("the batch job ended %s; %d of %d requests were answered (--resubmit asks again)", state, rec.Succeeded, n),
			goerr.V("job", rec.ID), goerr.V("state", string(state)))
	}
	return answers, nil
}

// jsonOf is what RequestsSHA256 hashes.
func jsonOf(kind string, reqs []session.Request) ([]byte, error) {
	type req struct {
		Contents []*genai.Content             `json:"contents"`
		Config   *genai.GenerateContentConfig `json:"config,omitempty"`
	}
	all := struct {
		Kind     string `json:"kind"`
		Requests []req  `json:"requests"`
	}{Kind: kind, Requests: make([]req, len(reqs))}
	for i, r := range reqs {
		all.Requests[i] = req{Contents: r.Contents, Config: r.Config}
	}
	b, err := json.Marshal(all)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to encode the job's requests")
	}
	return b, nil
}
