package alert

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/alert/stage"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
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
	if err := addTo(ctx, opts, s, []io.Reader{strings.NewReader(a.String()), strings.NewReader(b.String())}); err != nil {
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
		if err := addTo(ctx, opts, s, []io.Reader{strings.NewReader(in.String())}); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "alerts/s")
}

func TestNextBatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		size, n int
		took    time.Duration
		want    int
	}{
		{1000, 1000, 300 * time.Millisecond, 2000},
		{maxBatch, maxBatch, time.Millisecond, maxBatch},
		{1000, 400, 300 * time.Millisecond, 1000}, // a short last batch says nothing
		{4000, 4000, 1500 * time.Millisecond, 4000},
		{4000, 4000, 3 * time.Second, 2000},
		{minBatch, minBatch, 10 * time.Second, minBatch},
	} {
		if got := nextBatch(tc.size, tc.n, tc.took); got != tc.want {
			t.Errorf("nextBatch(%d, %d, %s) = %d, want %d", tc.size, tc.n, tc.took, got, tc.want)
		}
	}
}
