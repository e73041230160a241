package alert

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/alert/stage"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// Findings beyond the stage's memory wait on disk: two inputs, each with a repeat, are stored
// in order, each once, and the staging file is gone afterwards.
func TestAddSpilledStage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var a, b strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&a, `{"rule":"r%d","priority":"Warning","output":"o","time":"2025-06-09T10:31:08Z"}`+"\n", i%1000)
		fmt.Fprintf(&b, `{"title":"t%d"}`+"\n", i%700)
	}
	tmp := t.TempDir()
	ios, out, errOut := cmdutil.TestIO("", false)
	opts := &AddOptions{IO: ios, Files: []string{"a.ndjson", "b.ndjson"}, Stage: stage.Options{Memory: 64 << 10, Dir: tmp}}
	if err := addTo(ctx, opts, s, 0, []io.Reader{strings.NewReader(a.String()), strings.NewReader(b.String())}); err != nil {
		t.Fatal(err)
	}
	ids := strings.Fields(out.String())
	if len(ids) != 1700 {
		t.Fatalf("%d IDs printed, want 1700", len(ids))
	}
	if !strings.Contains(errOut.String(), "a.ndjson: 200 findings are the same") || !strings.Contains(errOut.String(), "b.ndjson: 500 findings are the same") {
		t.Fatalf("stderr %q", errOut.String())
	}
	first, err := s.GetAlert(ctx, record.AlertID(ids[0]))
	if err != nil || !strings.Contains(string(first.Data), `"r0"`) || first.Source != "falco" || first.Severity != "medium" {
		t.Fatalf("first alert %+v %v", first, err)
	}
	page, err := s.ListAlerts(ctx, store.AlertQuery{Limit: 1})
	if err != nil || string(page.Alerts[0].ID) != ids[len(ids)-1] {
		t.Fatalf("newest alert %+v, want the last printed %s", page.Alerts, ids[len(ids)-1])
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("staging left %v", left)
	}
}

// BenchmarkAddNDJSON adds 20,000 NDJSON Suricata alerts to a new local store in process (the
// binary's own measurement, RSS included, is e2e's BenchmarkAlertAddNDJSON).
func BenchmarkAddNDJSON(b *testing.B) {
	ctx := context.Background()
	var in strings.Builder
	const n = 20_000
	for i := range n {
		fmt.Fprintf(&in, `{"timestamp":"2025-06-09T10:23:45.%06d+0000","flow_id":%d,"event_type":"alert","src_ip":"10.0.%d.%d","dest_ip":"198.51.100.%d","proto":"TCP","alert":{"signature_id":%d,"signature":"ET POLICY sample signature %d","category":"Potentially Bad Traffic","severity":%d},"payload_printable":"%s"}`+"\n",
			i, i, i>>8&255, i&255, i%250, i%5000, i%5000, 1+i%3, strings.Repeat("x", 300))
	}
	for b.Loop() {
		s, err := local.Open(ctx, local.Options{Dir: b.TempDir(), Workspace: "default"})
		if err != nil {
			b.Fatal(err)
		}
		ios, _, _ := cmdutil.TestIO("", false)
		opts := &AddOptions{IO: ios, Files: []string{"-"}}
		if err := addTo(ctx, opts, s, 0, []io.Reader{strings.NewReader(in.String())}); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "alerts/s")
}

func TestNextBatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		size, n int
		took    time.Duration
		want    int
	}{
		{"quick: four times at most", 1000, 1000, 100 * time.Millisecond, 4000},
		{"at the measured speed", 1000, 1000, 400 * time.Millisecond, 2500},
		{"slow: fewer", 1000, 1000, 3 * time.Second, 333},
		{"a short batch measures too", 1000, 400, 2 * time.Second, 200},
		{"at most maxBatch", maxBatch, maxBatch, time.Millisecond, maxBatch},
		{"no time measured", firstBatch, firstBatch, 0, 4 * firstBatch},
		{"at least minBatch", minBatch, minBatch, time.Minute, minBatch},
	} {
		if got := nextBatch(tc.size, tc.n, tc.took, time.Second); got != tc.want {
			t.Errorf("%s: nextBatch(%d, %d, %s) = %d, want %d", tc.name, tc.size, tc.n, tc.took, got, tc.want)
		}
	}
}

func TestRequestTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		storeTimeout, want time.Duration
	}{
		{0, time.Second}, // the default budget: attempts of 5 s
		{resilient.DefaultBudget, time.Second},
		{time.Minute, time.Second}, // attempts stay at 5 s
		{2 * time.Second, 200 * time.Millisecond},
	} {
		if got := requestTime(tc.storeTimeout); got != tc.want {
			t.Errorf("requestTime(%s) = %s, want %s", tc.storeTimeout, got, tc.want)
		}
	}
}

// slowStore stores alerts at a fixed time per alert, as a slow machine does, and gives up
// when its context ends, as the stores do.
type slowStore struct {
	store.Store
	perAlert time.Duration
	mu       sync.Mutex
	stored   map[record.AlertID]bool
	longest  time.Duration
}

func (s *slowStore) PutAlerts(ctx context.Context, as []*record.Alert) (int, error) {
	took := time.Duration(len(as)) * s.perAlert
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(took):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.longest = max(s.longest, took)
	n := 0
	for _, a := range as {
		if !s.stored[a.ID] {
			s.stored[a.ID], n = true, n+1
		}
	}
	return n, nil
}

// A large add on a store too slow for a thousand alerts within an attempt's time, but
// otherwise well, stores everything: its requests are sized to fit.
func TestAddFitsASlowStore(t *testing.T) {
	t.Parallel()
	const n = 2000
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, `{"title":"t%d"}`+"\n", i)
	}
	slow := &slowStore{perAlert: 300 * time.Microsecond, stored: map[record.AlertID]bool{}}
	// Attempts of 200 ms: a request of 1,000 alerts (300 ms) would never fit.
	const storeTimeout = 400 * time.Millisecond
	s := resilient.New(slow, resilient.Options{Budget: storeTimeout})
	ios, out, _ := cmdutil.TestIO("", false)
	opts := &AddOptions{IO: ios, Files: []string{"-"}, StoreTimeout: storeTimeout}
	if err := addTo(context.Background(), opts, s, 0, []io.Reader{strings.NewReader(in.String())}); err != nil {
		t.Fatal(err)
	}
	if ids := strings.Fields(out.String()); len(ids) != n || len(slow.stored) != n {
		t.Fatalf("%d IDs printed, %d alerts stored, want %d", len(ids), len(slow.stored), n)
	}
	if attempt := storeTimeout / 2; slow.longest >= attempt {
		t.Fatalf("the longest request took %s, not within an attempt's %s", slow.longest, attempt)
	}
}
