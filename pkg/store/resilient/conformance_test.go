package resilient_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/resilient"
	"github.com/alertchat/alertchat/pkg/workspace"
)

// fixture is what the calls of the table work on, stored in the backend beforehand.
type fixture struct {
	b       store.Store // the backend itself, for setting up a call
	history *record.History
	alert   *record.Alert
	job     *record.BatchJob
	entry   *record.Knowledge
	seq     atomic.Int64
}

// next is a number unique within the fixture, for records each call creates anew.
func (fx *fixture) next() int64 { return fx.seq.Add(1) }

func (fx *fixture) saved(t *testing.T) *record.History {
	t.Helper()
	h := storetest.NewHistory(fx.alert.ID, storetest.Transcript(2))
	storetest.Save(t, fx.b, h)
	return h
}

// objectKey is the transcript key of a stored history, as the backend lists it.
func (fx *fixture) objectKey(t *testing.T, id record.HistoryID) string {
	t.Helper()
	objs, err := fx.b.ListObjects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.ID == id {
			return o.Key
		}
	}
	t.Fatalf("no object of history %s", id)
	return ""
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// conformanceCall is a call of one method of store.Store that succeeds on either backend when
// no fault is injected.
type conformanceCall func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error

// conformance has a call for every method of store.Store. How the resilient layer must run
// each one is not said here but read from the layer's own classification
// (resilient.Classification), so the test asserts whatever the methods run by.
var conformance = map[string]conformanceCall{
	"GetHistory": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.GetHistory(ctx, fx.history.ID)
		return err
	},
	"GetHistoryMeta": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.GetHistoryMeta(ctx, fx.history.ID)
		return err
	},
	"SaveHistory": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		return s.SaveHistory(ctx, storetest.NewHistory(fx.alert.ID, storetest.Transcript(2)))
	},
	"DeleteHistory": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		return s.DeleteHistory(ctx, fx.saved(t).ID)
	},
	"ListHistories": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListHistories(ctx, store.HistoryQuery{Limit: 5})
		return err
	},
	"FindHistories": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.FindHistories(ctx, string(fx.history.ID[:8]), 5)
		return err
	},
	"CountHistories": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.CountHistories(ctx, store.HistoryQuery{})
		return err
	},
	"PutAlert": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.PutAlert(ctx, &record.Alert{ID: record.AlertID(fmt.Sprintf("put-%d", fx.next())), Title: "t", Data: []byte(`{}`)})
		return err
	},
	"PutAlerts": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		n := fx.next()
		_, err := s.PutAlerts(ctx, []*record.Alert{
			{ID: record.AlertID(fmt.Sprintf("puts-%d-a", n)), Title: "t", Data: []byte(`{}`)},
			{ID: record.AlertID(fmt.Sprintf("puts-%d-b", n)), Title: "t", Data: []byte(`{}`)},
		})
		return err
	},
	"TriageAlert": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		n := fx.next()
		id := record.AlertID(fmt.Sprintf("triage-%d", n))
		if _, err := fx.b.PutAlert(ctx, &record.Alert{ID: id, Title: "t", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		return s.TriageAlert(ctx, id, &record.AlertTriage{HistoryID: record.HistoryID(fmt.Sprintf("h-%d", n)), Verdict: record.VerdictBenign}, "")
	},
	"AlertTriage": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.AlertTriage(ctx, fx.alert.ID)
		return err
	},
	"GetAlert": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.GetAlert(ctx, fx.alert.ID)
		return err
	},
	"ListAlerts": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListAlerts(ctx, store.AlertQuery{Limit: 5})
		return err
	},
	"FindAlerts": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.FindAlerts(ctx, string(fx.alert.ID[:4]), 5)
		return err
	},
	"CountAlerts": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.CountAlerts(ctx, store.AlertQuery{})
		return err
	},
	"SearchAlerts": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.SearchAlerts(ctx, store.AlertSearchQuery{Text: "suspicious login", Limit: 5})
		return err
	},
	"AlertInvestigations": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.AlertInvestigations(ctx, []record.AlertID{fx.alert.ID})
		return err
	},
	"SearchText": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.SearchText(ctx, store.SearchQuery{Phrases: [][]string{{"login"}}, Limit: 5})
		return err
	},
	"SearchVector": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.SearchVector(ctx, []float32{1, 0, 0}, "", 5)
		return err
	},
	"PutEmbedding": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		h := fx.saved(t)
		_, err := s.PutEmbedding(ctx, h.ID, 0, len(h.Contents), []float32{1, 0, 0})
		return err
	},
	"EmbeddedCount": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.EmbeddedCount(ctx, fx.history.ID)
		return err
	},
	"Unindexed": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.Unindexed(ctx, "", 5)
		return err
	},
	"Reindex": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		return s.Reindex(ctx, fx.history.ID)
	},
	"PutBatchJob": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		n := fx.next()
		return s.PutBatchJob(ctx, &record.BatchJob{ID: fmt.Sprintf("batches/put%d", n), Model: "m", InputSHA256: sha(fmt.Sprint(n)), State: "JOB_STATE_PENDING"})
	},
	"GetBatchJob": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.GetBatchJob(ctx, fx.job.ID)
		return err
	},
	"FindBatchJob": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.FindBatchJob(ctx, fx.job.InputSHA256, fx.job.Model)
		return err
	},
	"ListBatchJobs": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListBatchJobs(ctx, 5)
		return err
	},
	"PutBatchReservation": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.PutBatchReservation(ctx, &record.BatchReservation{Owner: "me", Model: "m", InputSHA256: sha(fmt.Sprint("r", fx.next()))}, nil)
		return err
	},
	"PutKnowledge": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		return s.PutKnowledge(ctx, &record.Knowledge{ID: record.KnowledgeID(fmt.Sprintf("put%d", fx.next())), Text: "198.51.100.7 is our scanner"})
	},
	"GetKnowledge": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.GetKnowledge(ctx, string(fx.entry.ID))
		return err
	},
	"ListKnowledge": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListKnowledge(ctx, store.KnowledgeQuery{Limit: 5})
		return err
	},
	"NearestKnowledge": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.NearestKnowledge(ctx, []float32{1, 0, 0}, 5)
		return err
	},
	"MatchKnowledge": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.MatchKnowledge(ctx, []string{store.WordKey("scanner")}, 5)
		return err
	},
	"ListObjects": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListObjects(ctx)
		return err
	},
	"ListHistoryIDs": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		_, err := s.ListHistoryIDs(ctx)
		return err
	},
	"MetadataExists": func(_ *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.MetadataExists(ctx, fx.history.ID)
		return err
	},
	"ReadObject": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.ReadObject(ctx, fx.objectKey(t, fx.history.ID))
		return err
	},
	"MoveAside": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.MoveAside(ctx, fx.objectKey(t, fx.saved(t).ID))
		return err
	},
	"DropMetadata": func(t *testing.T, ctx context.Context, s store.Store, fx *fixture) error {
		_, err := s.DropMetadata(ctx, fx.saved(t).ID, "conformance test")
		return err
	},
	"WorkspaceKey": func(_ *testing.T, ctx context.Context, s store.Store, _ *fixture) error {
		k, err := s.WorkspaceKey(ctx)
		if err == nil && len(k) == 0 {
			return errors.New("an empty workspace key")
		}
		return err
	},
	"Close": func(_ *testing.T, _ context.Context, s store.Store, _ *fixture) error {
		return s.Close()
	},
}

// TestConformanceCoversStore fails when a method of store.Store has no call in the conformance
// table or no classification in the resilient layer: a new method must say how the layer runs
// it, and be tested.
func TestConformanceCoversStore(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[store.Store]()
	var methods []string
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	for _, tc := range []struct {
		what  string
		names []string
	}{
		{"the conformance table", slices.Collect(maps.Keys(conformance))},
		{"the resilient layer's classification", slices.Collect(maps.Keys(resilient.Classification()))},
	} {
		for _, name := range methods {
			if !slices.Contains(tc.names, name) {
				t.Errorf("store.Store.%s has no row in %s", name, tc.what)
			}
		}
		for _, name := range tc.names {
			if !slices.Contains(methods, name) {
				t.Errorf("%s has a row for %q, which store.Store does not have", tc.what, name)
			}
		}
	}
}

// TestConformanceLocal runs each method's check in a synctest bubble with a backend of its own:
// the retries spend their budget on the bubble's fake clock, so a method failing for its whole
// budget takes no real second (the checks against SQLite wait only on timers).
func TestConformanceLocal(t *testing.T) {
	t.Parallel()
	runConformance(t, true, func(t *testing.T) *fixture {
		b, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = b.Close() })
		return newFixture(t, b)
	})
}

// TestConformanceCloud runs on the real clock: the emulator is reached over the network, which
// a synctest bubble does not count as blocked. Its methods share one backend and fixture.
func TestConformanceCloud(t *testing.T) {
	t.Parallel()
	env := testenv.CloudEnv(t)
	b, err := cloud.New(cloud.Config{Firestore: env.Firestore, Bucket: env.BucketHandle(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixture(t, b)
	runConformance(t, false, func(*testing.T) *fixture { return fx })
}

// transient is what a Firestore 503 becomes in the Go client.
var transient = status.Error(codes.Unavailable, "injected: service unavailable")

const (
	conformanceBudget    = time.Second
	conformanceThreshold = 3
	conformanceCooldown  = time.Minute
)

// newFixture stores in b the alert, history and batch job the calls of the table work on.
func newFixture(t *testing.T, b store.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	fx := &fixture{b: b, alert: &record.Alert{ID: "alert-conformance", Title: "suspicious login", Data: []byte(`{"ip": "198.51.100.7"}`)}}
	if _, err := b.PutAlert(ctx, fx.alert); err != nil {
		t.Fatal(err)
	}
	fx.history = fx.saved(t)
	fx.job = &record.BatchJob{ID: "batches/conformance1", Model: "m", InputSHA256: sha("job"), State: "JOB_STATE_PENDING"}
	if err := b.PutBatchJob(ctx, fx.job); err != nil {
		t.Fatal(err)
	}
	fx.entry = &record.Knowledge{ID: "conformance-entry", Text: "the nightly backup job"}
	if err := b.PutKnowledge(ctx, fx.entry); err != nil {
		t.Fatal(err)
	}
	return fx
}

// runConformance injects transient faults under the resilient layer into every method of
// store.Store over the backend of the fixture that backend gives: a method is retried through
// failures within its budget, gives up when the budget is spent, and its breaker then refuses
// calls without reaching the backend until the cool-down ends, when a successful call closes it
// again. A method tried once gives up at its first failure, and its breaker opens after the
// threshold's failures. With bubble, each method's check (backend included) runs in a synctest
// bubble, on its fake clock.
func runConformance(t *testing.T, bubble bool, backend func(t *testing.T) *fixture) {
	kinds := resilient.Classification()
	for name, fn := range conformance {
		kind, ok := kinds[name]
		t.Run(name, func(t *testing.T) {
			if !ok {
				t.Fatalf("the resilient layer does not say how it runs %s", name)
			}
			t.Parallel()
			check := func(t *testing.T) { conformMethod(t, name, kind, fn, backend(t)) }
			if bubble {
				synctest.Test(t, check)
				return
			}
			check(t)
		})
	}
}

// conformMethod checks one method of store.Store through a resilient layer over fx's backend.
func conformMethod(t *testing.T, name string, kind resilient.Kind, fn conformanceCall, fx *fixture) {
	ctx := context.Background()
	f := newFaulty(fx.b)
	clk := newClock()
	s := resilient.New(f, resilient.Options{Budget: conformanceBudget, AttemptTimeout: 5 * time.Second, BaseDelay: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond,
		Threshold: conformanceThreshold, Cooldown: conformanceCooldown, Now: clk.Now})
	br := s.ReadBreaker()
	if kind == resilient.KindWrite || kind == resilient.KindOnce {
		br = s.WriteBreaker()
	}
	call := func() error { return fn(t, ctx, s, fx) }
	switch kind {
	case resilient.KindLocal:
		// No request, so nothing to retry: the call reaches the backend once.
		if err := call(); err != nil || f.count(name) != 1 {
			t.Fatalf("%s: %v, %d calls, want 1", name, err, f.count(name))
		}
	case resilient.KindRead, resilient.KindWrite:
		conformRetried(t, name, f, br, clk, call)
	case resilient.KindOnce:
		conformOnce(t, name, f, br, clk, call)
	default:
		t.Fatalf("%s: no conformance check for kind %v", name, kind)
	}
}

func conformRetried(t *testing.T, name string, f *faulty, br *resilient.Breaker, clk *clock, call func() error) {
	// Two transient failures, then the backend answers: one call, three attempts.
	f.arm(name, 2, transient)
	if err := call(); err != nil {
		t.Fatalf("%s through two transient failures: %v", name, err)
	}
	if n := f.count(name); n != 3 {
		t.Fatalf("%s: %d attempts, want 3", name, n)
	}
	if br.State() != resilient.Closed {
		t.Fatalf("%s: breaker %v after a success", name, br.State())
	}
	// Failing for good: retried until the budget is spent, then the breaker is open.
	f.arm(name, -1, transient)
	before, start := f.count(name), time.Now()
	err := call()
	attempts, took := f.count(name)-before, time.Since(start)
	if err == nil || !resilient.IsTransient(err) || !errors.Is(err, transient) {
		t.Fatalf("%s: %v after the budget, want the transient error", name, err)
	}
	if attempts < conformanceThreshold || took < conformanceBudget/2 || took > conformanceBudget+time.Second {
		t.Fatalf("%s: %d attempts in %v, want retries for the budget of %v", name, attempts, took, conformanceBudget)
	}
	if br.State() != resilient.Open {
		t.Fatalf("%s: breaker %v after a call spent its budget", name, br.State())
	}
	conformOpen(t, name, f, br, clk, call)
}

func conformOnce(t *testing.T, name string, f *faulty, br *resilient.Breaker, clk *clock, call func() error) {
	f.arm(name, -1, transient)
	for i := 1; i <= conformanceThreshold; i++ {
		before := f.count(name)
		err := call()
		if err == nil || !errors.Is(err, transient) || f.count(name) != before+1 {
			t.Fatalf("%s, failure %d: %v after %d attempts, want the error after one", name, i, err, f.count(name)-before)
		}
	}
	if br.State() != resilient.Open {
		t.Fatalf("%s: breaker %v after %d failures", name, br.State(), conformanceThreshold)
	}
	conformOpen(t, name, f, br, clk, call)
}

// conformOpen checks an open breaker: a call fails at once without reaching the backend, and
// after the cool-down a successful call closes it.
func conformOpen(t *testing.T, name string, f *faulty, br *resilient.Breaker, clk *clock, call func() error) {
	before := f.count(name)
	if err := call(); !errors.Is(err, resilient.ErrUnavailable) || f.count(name) != before {
		t.Fatalf("%s with the breaker open: %v, %d calls reached the backend", name, err, f.count(name)-before)
	}
	f.arm("", 0, nil)
	clk.Advance(conformanceCooldown + time.Second)
	if err := call(); err != nil {
		t.Fatalf("%s: probe after the cool-down: %v", name, err)
	}
	if br.State() != resilient.Closed {
		t.Fatalf("%s: breaker %v after a successful probe", name, br.State())
	}
}

type fixedEmbedder struct{}

func (fixedEmbedder) Embed(_ context.Context, texts []string, _ bool) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0, 0}
	}
	return out, nil
}

// TestStackReachesBackend sends every method of store.Store through the command line's whole
// stack as pkg/workspace assembles it with the cloud settings' layers (redaction, embedding,
// alert cache, retries) and checks that each reaches the backend once.
func TestStackReachesBackend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	fx := &fixture{b: b, alert: &record.Alert{ID: "alert-stack", Title: "suspicious login", Data: []byte(`{}`)}}
	if _, err := b.PutAlert(ctx, fx.alert); err != nil {
		t.Fatal(err)
	}
	fx.history = fx.saved(t)
	fx.job = &record.BatchJob{ID: "batches/stack1", Model: "m", InputSHA256: sha("stack"), State: "JOB_STATE_PENDING"}
	if err := b.PutBatchJob(ctx, fx.job); err != nil {
		t.Fatal(err)
	}
	fx.entry = &record.Knowledge{ID: "stack-entry", Text: "the nightly backup job"}
	if err := b.PutKnowledge(ctx, fx.entry); err != nil {
		t.Fatal(err)
	}
	f := newFaulty(b)
	dir := t.TempDir()
	cfg := workspace.Settings{DataDir: dir, Workspace: "default", FirestoreProject: "stack-test", BackendID: "stack:" + dir,
		SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
	st := workspace.Stack(f, cfg, redact.AllTypes(), workspace.Options{Embedder: fixedEmbedder{}})
	// GetAlert first: the alert cache answers it from its copy once the alert has been read
	// (a save through the redaction layer reads its alert).
	names := slices.Sorted(maps.Keys(conformance))
	names = slices.DeleteFunc(names, func(n string) bool { return n == "GetAlert" })
	for _, name := range append([]string{"GetAlert"}, names...) {
		call := conformance[name]
		// A save also embeds (EmbeddedCount, PutEmbedding): count the calls of this method only.
		before := f.count(name)
		if err := call(t, ctx, st, fx); err != nil {
			t.Errorf("%s through the stack: %v", name, err)
		}
		if got := f.count(name) - before; got != 1 {
			t.Errorf("%s reached the backend %d times through the stack, want 1", name, got)
		}
	}
}
