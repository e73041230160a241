package remote_test

import (
	"context"
	"database/sql"
	"path/filepath"
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
	"github.com/alertchat/alertchat/pkg/store/local"
)

// backend is what a remote batch needs of a store.
type backend interface {
	remote.Reader
	store.HistorySaver
	store.BatchJobs
	ListHistories(ctx context.Context, q store.HistoryQuery) (*store.HistoryPage, error)
}

// backends are the stores a reservation test runs on: the local one and the cloud one
// (Firestore emulator and fake-gcs-server), with the env's alerts.
var backends = []struct {
	name string
	open func(t *testing.T, e *env) (backend, store.BatchJobs)
}{
	{"local", func(t *testing.T, e *env) (backend, store.BatchJobs) { return e.store, e.store }},
	{"cloud", func(t *testing.T, e *env) (backend, store.BatchJobs) {
		s := cloudStore(t, e, testenv.CloudEnv(t))
		return s, s
	}},
}

// cloudStore is a cloud store on c holding the env's alerts.
func cloudStore(t *testing.T, e *env, c *testenv.Cloud) *cloud.Store {
	t.Helper()
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
	return s
}

// on makes o use st and jobs.
func on(e *env, o remote.Options, st backend, jobs store.BatchJobs) remote.Options {
	o.Store, o.Jobs = st, jobs
	o.NewSession = func(a *record.Alert, h *record.History) (*session.Session, error) {
		return session.New(session.Options{LLM: failingGenerator{}, Store: st, Redactor: secretRedactor{}, Model: "gemini-test", Titles: true, CompactAt: -1}, a, h)
	}
	return o
}

// blockingCreate holds every Create until release is closed. Should nothing ever wait (two
// runs that both submit), a minute lets them go on, and the test fails on their two jobs
// instead of hanging.
type blockingCreate struct {
	remote.Service
	release chan struct{}
}

func (b blockingCreate) Create(ctx context.Context, model string, src *genai.BatchJobSource, name string) (*genai.BatchJob, error) {
	select {
	case <-b.release:
	case <-time.After(time.Minute):
	}
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

// TestCollectorDiedBetweenWrites: a collector that died between a new history's transcript
// write and its metadata write leaves a transcript without metadata under the history's
// derived ID; collecting again makes that history, once, on both stores.
func TestCollectorDiedBetweenWrites(t *testing.T) {
	t.Parallel()
	for _, be := range []struct {
		name string
		open func(t *testing.T, e *env) (backend, func(id record.HistoryID))
	}{
		{"local", func(t *testing.T, e *env) (backend, func(record.HistoryID)) {
			db, err := sql.Open("sqlite", filepath.Join(e.store.Dir(), local.DBFile))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return e.store, func(id record.HistoryID) {
				if _, err := db.Exec(`DELETE FROM histories WHERE id = ?`, string(id)); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"cloud", func(t *testing.T, e *env) (backend, func(record.HistoryID)) {
			c := testenv.CloudEnv(t)
			s := cloudStore(t, e, c)
			return s, func(id record.HistoryID) {
				if _, err := c.Firestore.Collection("histories").Doc(string(id)).Delete(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(be.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			st, dropMeta := be.open(t, e)
			input := `{"alert_id": "alert-dns", "query": "one"}` + "\n" + `{"alert_id": "alert-scan", "query": "two"}` + "\n"
			o := on(e, e.options(), st, st)
			first := e.run(t, t.Context(), input, o)
			if first.err != nil || len(first.results) != 2 {
				t.Fatalf("%v: %+v", first.err, first.results)
			}
			id := first.results[0].HistoryID
			dropMeta(id) // as if the collector died before the metadata write
			for round := range 2 {
				r := e.run(t, t.Context(), input, on(e, e.options(), st, st))
				if r.err != nil || len(r.results) != 2 || r.results[0].HistoryID != id || r.results[0].Error != nil {
					t.Fatalf("collection %d: %v, %+v", round+2, r.err, r.results)
				}
				page, err := st.ListHistories(t.Context(), store.HistoryQuery{Limit: 10})
				if err != nil || len(page.Histories) != 2 {
					t.Fatalf("collection %d: %v, %d histories, want 2", round+2, err, len(page.Histories))
				}
			}
			h, err := st.GetHistory(t.Context(), id)
			if err != nil || len(h.Contents) != 2 || h.Title != "Title 1" {
				t.Fatalf("history %s: %+v, %v", id, h, err)
			}
		})
	}
}

// stealing is a store in which another run takes over this run's reservation as soon as it is
// written, before any sign of life could tell this run.
type stealing struct {
	store.BatchJobs
	once sync.Once
}

func (s *stealing) PutBatchReservation(ctx context.Context, r, prev *record.BatchReservation) (*record.BatchReservation, error) {
	got, err := s.BatchJobs.PutBatchReservation(ctx, r, prev)
	if err == nil && got.Owner == r.Owner && r.Owner != "thief" {
		s.once.Do(func() {
			_, err = s.BatchJobs.PutBatchReservation(ctx, &record.BatchReservation{Model: r.Model, InputSHA256: r.InputSHA256, Owner: "thief"}, got)
		})
	}
	return got, err
}

// TestReservationCheckedInTheStoreBeforeCreate: a run whose reservation was taken over while it
// prepared does not create a job: the check before the create reads the store, not a flag the
// next sign of life would set.
func TestReservationCheckedInTheStoreBeforeCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	jobs := &stealing{BatchJobs: e.store}
	o := on(e, e.options(), e.store, jobs)
	o.NoWait = true
	r := e.run(t, t.Context(), `{"alert_id": "alert-dns", "query": "one"}`, o)
	if r.err == nil || !strings.Contains(r.err.Error(), "another run took over") || e.srv.BatchStats().Created != 0 {
		t.Fatalf("err %v, %d jobs created", r.err, e.srv.BatchStats().Created)
	}
}
