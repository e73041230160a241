package cloud_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/alertcache"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

// wire is a cloud store whose clients reach the Firestore emulator and a fake-gcs-server
// through latency proxies, with every request counted at the transport.
type wire struct {
	fs    *firestore.Client
	gcs   *storage.BucketHandle
	reqs  *testenv.Requests
	calls *store.CallCounter

	project, fsAddr, gcsURL string
	dataDir                 string // of the alert copies
}

// newWire builds the clients; each open returns a fresh Store on them, as a new command
// would have (its connections are warm: the handshakes are not what is measured).
func newWire(tb testing.TB, delay time.Duration) *wire {
	tb.Helper()
	host := testenv.FirestoreHost(tb)
	project := testenv.NewProjectID()
	_ = testenv.FirestoreClient(tb, project, "") // drops the project's documents at the end
	srv, _ := testenv.GCS(tb)
	u, err := url.Parse(srv.URL())
	if err != nil {
		tb.Fatal(err)
	}
	fsProxy := testenv.NewLatencyProxy(tb, host, delay)
	gcsProxy := testenv.NewLatencyProxy(tb, u.Host, delay)
	reqs := testenv.NewRequests()
	fs := testenv.FirestoreVia(tb, fsProxy.Addr(), project, "", reqs.GRPCDialOptions()...)
	sc := testenv.StorageClientWith(tb, gcsProxy.URL(), option.WithHTTPClient(reqs.HTTPClient()))
	return &wire{fs: fs, gcs: sc.Bucket(testenv.Bucket), reqs: reqs, calls: &store.CallCounter{},
		project: project, fsAddr: fsProxy.Addr(), gcsURL: gcsProxy.URL(), dataDir: tb.TempDir()}
}

// openCold returns a store on new clients with no open connection, as a new process has;
// close closes them.
func (w *wire) openCold(tb testing.TB) (s *cloud.Store, close func()) {
	tb.Helper()
	fs := testenv.FirestoreVia(tb, w.fsAddr, w.project, "", w.reqs.GRPCDialOptions()...)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	sc := testenv.StorageClientWith(tb, w.gcsURL, option.WithHTTPClient(w.reqs.HTTPClientVia(tr)))
	s, err := cloud.New(cloud.Config{Firestore: fs, Bucket: sc.Bucket(testenv.Bucket), Prefix: "rt/", Workspace: "ws", Calls: w.calls})
	if err != nil {
		tb.Fatal(err)
	}
	return s, func() {
		_ = fs.Close()
		_ = sc.Close()
		tr.CloseIdleConnections()
	}
}

func (w *wire) open(tb testing.TB) *cloud.Store {
	tb.Helper()
	s, err := cloud.New(cloud.Config{Firestore: w.fs, Bucket: w.gcs, Prefix: "rt/", Workspace: "ws", Calls: w.calls})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (w *wire) reset() {
	w.reqs.Reset()
	w.calls.Reset()
}

// seed stores an alert and a history of two turns about it, and warms the connections.
func (w *wire) seed(tb testing.TB) record.HistoryID {
	tb.Helper()
	ctx := context.Background()
	s := w.open(tb)
	if _, err := s.PutAlert(ctx, &record.Alert{ID: "alert-1", Title: "Suspicious login", Data: []byte(`{"user":"a"}`)}); err != nil {
		tb.Fatal(err)
	}
	h := storetest.NewHistory("alert-1", storetest.Transcript(8<<10))
	if err := s.SaveHistory(ctx, h); err != nil {
		tb.Fatal(err)
	}
	if _, err := w.open(tb).GetHistory(ctx, h.ID); err != nil {
		tb.Fatal(err)
	}
	return h.ID
}

func addTurn(h *record.History) {
	h.Contents = append(h.Contents,
		genai.NewContentFromText("and the source address?", genai.RoleUser),
		genai.NewContentFromText("It is 203.0.113.7.", genai.RoleModel))
	h.MessageCount = len(h.Contents)
	h.UpdatedAt = store.Now()
}

// oneShot is a one-shot continuation's storage work (chat --history ID -q ...): load the
// history, its alert, save the new turn, on a store that has read nothing before.
func oneShot(tb testing.TB, s store.Store, id record.HistoryID) *record.History {
	tb.Helper()
	ctx := context.Background()
	h, err := s.GetHistory(ctx, id)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.GetAlert(ctx, h.AlertID); err != nil {
		tb.Fatal(err)
	}
	addTurn(h)
	if err := s.SaveHistory(ctx, h); err != nil {
		tb.Fatal(err)
	}
	return h
}

// laterTurn is a live session's save after a turn: it holds what it loaded or last saved.
func laterTurn(tb testing.TB, s *cloud.Store, h *record.History) {
	tb.Helper()
	addTurn(h)
	if err := s.SaveHistory(context.Background(), h); err != nil {
		tb.Fatal(err)
	}
}

// The number of requests, and of round trips, of a one-shot continuation and of a later
// turn's save. Behind a proxy adding 50 ms per exchange, requests issued together overlap
// and count as one round trip.
func TestRequestsPerTurn(t *testing.T) {
	w := newWire(t, 50*time.Millisecond)
	id := w.seed(t)

	w.reset()
	s := w.open(t)
	h := oneShot(t, s, id)
	t.Logf("one-shot continuation: %d requests %v, %d round trips; store counted %s", w.reqs.Total(), w.reqs.Counts(), w.reqs.Rounds(), w.calls)
	check(t, "one-shot continuation", w, 5, 4)

	for range 2 {
		w.reset()
		laterTurn(t, s, h)
		t.Logf("later turn: %d requests %v, %d round trips; store counted %s", w.reqs.Total(), w.reqs.Counts(), w.reqs.Rounds(), w.calls)
		check(t, "later turn", w, 2, 2)
	}

	// In a new process: the connections' handshakes ride along the first round.
	w.reset()
	cold, done := w.openCold(t)
	oneShot(t, cold, id)
	done()
	t.Logf("cold one-shot continuation: %d requests %v, %d round trips", w.reqs.Total(), w.reqs.Counts(), w.reqs.Rounds())
	check(t, "cold one-shot continuation", w, 5, 4)

	// With a local copy of the alert (read once before): one request and one round trip less.
	_, _ = alertcache.New(w.open(t), w.dataDir, "ws").GetAlert(context.Background(), "alert-1")
	w.reset()
	cold, done = w.openCold(t)
	oneShot(t, alertcache.New(cold, w.dataDir, "ws"), id)
	done()
	t.Logf("cold one-shot continuation, alert copy: %d requests %v, %d round trips", w.reqs.Total(), w.reqs.Counts(), w.reqs.Rounds())
	check(t, "cold one-shot continuation with an alert copy", w, 4, 3)
}

func check(t *testing.T, what string, w *wire, requests, rounds int) {
	t.Helper()
	if got := w.reqs.Total(); got != requests {
		t.Errorf("%s: %d requests %v, want %d", what, got, w.reqs.Counts(), requests)
	}
	if got := w.calls.Total(); got != w.reqs.Total() {
		t.Errorf("%s: the store counted %s, the transport %d requests %v", what, w.calls, w.reqs.Total(), w.reqs.Counts())
	}
	if got := w.reqs.Rounds(); got != rounds {
		t.Errorf("%s: %d round trips, want %d", what, got, rounds)
	}
}

var latencies = []time.Duration{0, 40 * time.Millisecond}

// BenchmarkRoundTrips measures a one-shot continuation's storage work and a later turn's save
// with no added latency and with 40 ms added to every exchange; "rt/op" is (t40 - t0) / 40 ms,
// the sequential round trips waited for.
func BenchmarkRoundTrips(b *testing.B) {
	base := map[string]float64{}
	for _, d := range latencies {
		w := newWire(b, d)
		id := w.seed(b)
		cases := []struct {
			name string
			// setup prepares a case and returns one iteration.
			setup func(b *testing.B) func()
		}{
			{"oneshot", func(b *testing.B) func() {
				return func() { oneShot(b, w.open(b), id) }
			}},
			{"oneshot-cold", func(b *testing.B) func() {
				return func() {
					s, done := w.openCold(b)
					defer done()
					oneShot(b, s, id)
				}
			}},
			{"oneshot-cold-alertcopy", func(b *testing.B) func() {
				if _, err := alertcache.New(w.open(b), w.dataDir, "ws").GetAlert(context.Background(), "alert-1"); err != nil {
					b.Fatal(err)
				}
				return func() {
					s, done := w.openCold(b)
					defer done()
					oneShot(b, alertcache.New(s, w.dataDir, "ws"), id)
				}
			}},
			{"laterturn", func(b *testing.B) func() {
				s := w.open(b)
				h, err := s.GetHistory(context.Background(), id)
				if err != nil {
					b.Fatal(err)
				}
				return func() { laterTurn(b, s, h) }
			}},
		}
		for _, c := range cases {
			b.Run(c.name+"/latency="+d.String(), func(b *testing.B) {
				run := c.setup(b)
				w.reset()
				for b.Loop() {
					run()
				}
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(float64(w.reqs.Total())/float64(b.N), "requests/op")
				if d == 0 {
					base[c.name] = per
				} else if t0, ok := base[c.name]; ok {
					b.ReportMetric((per-t0)/float64(d.Nanoseconds()), "rt/op")
				}
			})
		}
	}
}
