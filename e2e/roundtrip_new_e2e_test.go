package e2e_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testenv"
)

// BenchmarkNewOneShotRoundTrips is BenchmarkOneShotRoundTrips for a new investigation (chat -a
// ALERT -q, no history yet): what a first question waits on the cloud store, the lookup of the
// team's notes included, in round trips of 40 ms beyond the model.
func BenchmarkNewOneShotRoundTrips(b *testing.B) {
	cloud := testenv.CloudEnv(b)
	gcs, err := url.Parse(cloud.StorageURL)
	if err != nil {
		b.Fatal(err)
	}
	var base float64
	for _, delay := range []time.Duration{0, 40 * time.Millisecond} {
		b.Run(fmt.Sprintf("latency=%v", delay), func(b *testing.B) {
			fs := testenv.NewLatencyProxy(b, cloud.FirestoreHost, delay)
			st := testenv.NewLatencyProxy(b, gcs.Host, delay)
			c := newCLI(b, titleAnswer("T"))
			c.env = append(c.env, cloud.Env()...)
			c.env = append(c.env, testenv.EnvFirestoreHost+"="+fs.Addr(), testenv.EnvStorageHost+"="+st.URL(),
				"ALERTCHAT_NO_TITLE_GENERATION=true")
			alertID := c.addAlert("guardduty.json")
			c.askJSON("", "-a", alertID, "-q", "warm the local copies")
			b.ResetTimer()
			for b.Loop() {
				c.askJSON("", "-a", alertID, "-q", "first question of a new investigation")
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if delay == 0 {
				base = per
				return
			}
			b.ReportMetric((per-base)/float64(delay.Nanoseconds()), "rt/op")
		})
	}
}
