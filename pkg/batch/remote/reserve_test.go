package remote_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

// backend is what a remote batch needs of a store.
type backend interface {
	remote.Store
	store.HistorySaver
	store.BatchJobs
}

// backends are the stores a reservation test runs on: the local one and the cloud one
// (Firestore emulator and fake-gcs-server), with the env's alerts.
var backends = []struct {
	name string
	open func(t *testing.T, e *env) (backend, store.BatchJobs)
}{
	{"local", func(t *testing.T, e *env) (backend, store.BatchJobs) { return e.store, e.store }},
	{"cloud", func(t *testing.T, e *env) (backend, store.BatchJobs) {
		c := testenv.CloudEnv(t)
		s, err := cloud.New(cloud.Config{Firestore: c.Firestore, Bucket: c.BucketHandle(), Workspace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []record.AlertID{"alert-dns", "alert-scan"} {
			a, err := e.store.GetAlert(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.PutAlert(t.Context(), a); err != nil {
				t.Fatal(err)
			}
		}
		return s, s
	}},
}

// on makes o use st and jobs.
func on(e *env, o remote.Options, st backend, jobs store.BatchJobs) remote.Options {
	o.Store, o.Jobs = st, jobs
	o.NewSession = func(a *record.Alert, h *record.History) (*session.Session, error) {
		return session.New(session.Options{LLM: failingGenerator{}, Store: st, Redactor: secretRedactor{}, Model: "gemini-test", Titles: true, CompactAt: -1}, a, h)
	}
	return o
}

// blockingCreate holds every Create until release is closed.
type blockingCreate struct {
	remote.Service
	release chan struct{}
}

func (b blockingCreate) Create(ctx context.Context, model string, src *genai.BatchJobSource, name string) (*genai.BatchJob, error) {
	<-b.release
	return b.Service.Create(ctx, model, src, name)
}

// TestOverlappingRunsSubmitOnce: two runs of the same input at once submit one job: the
// second finds the first's reservation, waits for its job and uses it.
func TestOverlappingRunsSubmitOnce(t *testing.T) {
	t.Parallel()
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			st, jobs := be.open(t, e)
			input := `{"alert_id": "alert-dns", "query": "one"}` + "\n" + `{"alert_id": "alert-scan", "query": "two"}` + "\n"
			// Whichever run holds the reservation creates its job only once the other waits.
			waiting := make(chan struct{})
			var once sync.Once
			var waits sync.WaitGroup
			runs := make([]run, 2)
			for i := range runs {
				o := on(e, e.options(), st, jobs)
				o.NoWait = true
				o.Service = blockingCreate{e.svc, waiting}
				o.OnWaiting = func(r *record.BatchReservation) {
					if r.Owner == "" || r.Job != "" {
						t.Errorf("waiting on %+v", r)
					}
					once.Do(func() { close(waiting) })
				}
				o.Sleep = func(ctx context.Context, d time.Duration) error {
					time.Sleep(5 * time.Millisecond)
					return ctx.Err()
				}
				waits.Go(func() { runs[i] = e.run(t, t.Context(), input, o) })
			}
			waits.Wait()
			for i, r := range runs {
				if r.err != nil || r.oc == nil {
					t.Fatalf("run %d: %v", i, r.err)
				}
			}
			a, b := runs[0].oc, runs[1].oc
			if a.Submitted == b.Submitted || a.Found == b.Found || a.Job.ID != b.Job.ID {
				t.Fatalf("runs: %+v and %+v, want one submission and one found", a, b)
			}
			if n := e.srv.BatchStats().Created; n != 1 {
				t.Fatalf("%d jobs created, want 1", n)
			}
			// Both then collect the one job.
			e.srv.AdvanceBatches()
			e.srv.AdvanceBatches()
			r := e.run(t, t.Context(), input, on(e, e.options(), st, jobs))
			if r.err != nil || len(r.results) != 2 || r.oc.Job.ID != a.Job.ID {
				t.Fatalf("collect: %v, %+v", r.err, r.results)
			}
		})
	}
}

// TestReservationTakenOver: a reservation whose run died is taken over, after the timeout
// without a sign of life, or at once when its run ended without a job.
func TestReservationTakenOver(t *testing.T) {
	t.Parallel()
	for _, be := range backends {
		for _, ended := range []bool{false, true} {
			name := be.name + "/silent"
			if ended {
				name = be.name + "/ended"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				st, jobs := be.open(t, e)
				input := `{"alert_id": "alert-dns", "query": "one"}`
				dead := &record.BatchReservation{Model: "gemini-test", InputSHA256: remote.InputSHA256([]byte(input)), Owner: "dead-run", Ended: ended}
				if _, err := jobs.PutBatchReservation(t.Context(), dead, nil); err != nil {
					t.Fatal(err)
				}
				// A clock of the test's: each pause moves it a minute on.
				now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
				var mu sync.Mutex
				pauses, waited := 0, 0
				o := on(e, e.options(), st, jobs)
				o.NoWait = true
				o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
				o.Sleep = func(ctx context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					pauses++
					now = now.Add(time.Minute)
					return ctx.Err()
				}
				o.OnWaiting = func(r *record.BatchReservation) {
					if r.Owner != "dead-run" {
						t.Errorf("waiting on %+v", r)
					}
					waited++
				}
				r := e.run(t, t.Context(), input, o)
				if r.err != nil || !r.oc.Submitted || e.srv.BatchStats().Created != 1 {
					t.Fatalf("%v: %+v", r.err, r.oc)
				}
				want := 2 // two minutes without a sign of life
				if ended {
					want = 0
				}
				if pauses != want || waited != min(want, 1) {
					t.Fatalf("%d pauses, %d waits, want %d", pauses, waited, want)
				}
				got, err := jobs.PutBatchReservation(t.Context(), &record.BatchReservation{Model: "gemini-test", InputSHA256: dead.InputSHA256, Owner: "probe"}, nil)
				if err != nil || got.Job != r.oc.Job.ID || strings.Contains(got.Owner, "dead") {
					t.Fatalf("reservation after the run: %+v, %v", got, err)
				}
			})
		}
	}
}
