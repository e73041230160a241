package remote

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// Two runs of the same input (workspace, model and input bytes) must not both submit: the
// second would pay for the same answers again and save every history twice. Before a run
// submits, it reserves the input's job in the store (store.BatchJobs.PutBatchReservation, a
// conditional create); a run that finds another's reservation waits for that run's job.
//
// A reservation is taken over, so that a run that died cannot block the input forever:
//   - at once, when it has ended without a job (its run refused the input, or failed to
//     upload or create) or, for --resubmit, when it names a job that was recorded before this
//     run looked (an earlier run's, which --resubmit means not to reuse);
//   - when its run shows no sign of life for Options.ReservationTimeout (2 minutes), as
//     measured on the waiting run's own clock: the holder rewrites its reservation (Beat) every
//     quarter of that while it prepares, uploads and creates the job, so only a run that died
//     or hung stays silent that long. No clocks of two machines are compared.
//
// A take-over is conditional on the reservation being exactly the one seen (Owner and Beat):
// of runs taking over at once, one wins and the others wait for it. A holder checks that its
// reservation is still its own before it creates the job.

// holder is this run's reservation, kept alive until it is released.
type holder struct {
	jobs store.BatchJobs
	mu   sync.Mutex
	cur  *record.BatchReservation
	lost bool

	stop chan struct{}
	done chan struct{}
}

// reservationPoll is how often a waiting run looks at another run's reservation.
func (o *Options) reservationPoll() time.Duration {
	return min(o.PollInterval, 10*time.Second, o.ReservationTimeout/4)
}

// reserve takes the reservation of the input's job for this run, or waits for the run that
// holds it and returns that run's recorded job.
func (o *Options) reserve(ctx context.Context, sha string) (*holder, *record.BatchJob, error) {
	mine := &record.BatchReservation{Model: o.Model, InputSHA256: sha, Owner: uuid.NewString()}
	var (
		prev   *record.BatchReservation // the reservation to take over
		seen   *record.BatchReservation // another run's, as first seen in its present state
		seenAt time.Time
		waited bool
	)
	for {
		got, err := o.Jobs.PutBatchReservation(ctx, mine, prev)
		if err != nil {
			return nil, nil, goerr.Wrap(err, "failed to reserve the batch job of this input")
		}
		prev = nil
		if got.Owner == mine.Owner {
			return o.hold(mine), nil, nil
		}
		switch {
		case got.Ended:
			prev = got
			continue
		case got.Job != "":
			if o.Resubmit && !waited {
				prev = got
				continue
			}
			rec, err := o.Jobs.GetBatchJob(ctx, got.Job)
			if err == nil {
				return nil, rec, nil
			}
			if !errors.Is(err, store.ErrNotFound) {
				return nil, nil, goerr.Wrap(err, "failed to read the batch job another run submitted", goerr.V("job", got.Job))
			}
			prev = got // its run could not record it: this run submits
			continue
		}
		now := o.Now()
		switch {
		case seen == nil:
			o.OnWaiting(got)
			seen, seenAt = got, now
		case seen.Owner != got.Owner || seen.Beat != got.Beat:
			seen, seenAt = got, now
		case now.Sub(seenAt) >= o.ReservationTimeout:
			prev = got // no sign of life: taken over
			continue
		}
		waited = true
		if err := o.Sleep(ctx, o.reservationPoll()); err != nil {
			return nil, nil, goerr.Wrap(err, "interrupted while waiting for another run to submit the batch job of this input")
		}
	}
}

// hold starts the signs of life of the reservation r, just written.
func (o *Options) hold(r *record.BatchReservation) *holder {
	h := &holder{jobs: o.Jobs, cur: r, stop: make(chan struct{}), done: make(chan struct{})}
	every := o.ReservationTimeout / 4
	go func() {
		defer close(h.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-t.C:
				// A failed write is tried again at the next tick: a reservation is taken over
				// only after several ticks without one.
				_ = h.write(context.Background(), func(*record.BatchReservation) {}, every)
			}
		}
	}()
	return h
}

// write replaces the reservation with a changed copy, conditional on it being the one this
// run wrote last; a reservation found taken over is lost for good.
func (h *holder) write(ctx context.Context, change func(*record.BatchReservation), timeout time.Duration) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost {
		return nil
	}
	next := *h.cur
	next.Beat++
	change(&next)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	got, err := h.jobs.PutBatchReservation(ctx, &next, h.cur)
	if err != nil {
		return err
	}
	if got.Owner != next.Owner {
		h.lost = true
		return nil
	}
	h.cur = got
	return nil
}

// check reports an error when the reservation was taken over: another run submits.
func (h *holder) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost {
		return goerr.New("another run took over the submission of this input while this one showed no sign of life; run the same command again to wait for its job")
	}
	return nil
}

// confirm reads the reservation as the store holds it, right before the job is created: a
// conditional rewrite of the one this run wrote last, so a reservation another run took over
// meanwhile (between two signs of life) is seen now, not at the next tick, and this run does
// not submit a second job. A store that cannot be asked is no confirmation either.
func (h *holder) confirm(ctx context.Context) error {
	if err := h.write(ctx, func(*record.BatchReservation) {}, 30*time.Second); err != nil {
		return goerr.Wrap(err, "failed to confirm this run's reservation of the batch job before submitting it")
	}
	return h.check()
}

// release stops the signs of life and leaves the reservation with the job submitted, or as
// ended when there is none. A release that fails leaves a reservation that others take over
// after its timeout, or find the job of through its record.
func (h *holder) release(ctx context.Context, job string) {
	close(h.stop)
	<-h.done
	_ = h.write(context.WithoutCancel(ctx), func(r *record.BatchReservation) {
		if job != "" {
			r.Job = job
		} else {
			r.Ended = true
		}
	}, 30*time.Second)
}
