package e2e_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testenv"
)

// BenchmarkOneShotRoundTrips measures what a one-shot continuation (chat --history ID -q,
// a new process each time) waits on the cloud store: Firestore and Cloud Storage behind a
// proxy that adds 0 and then 40 ms to every exchange. rt/op is the added time over 40 ms, the
// number of sequential round trips the command made beyond the model.
func BenchmarkOneShotRoundTrips(b *testing.B) {
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
			id := c.askJSON("", "-a", alertID, "-q", "first").HistoryID
			c.askJSON("", "--history", id, "-q", "warm the local copies")
			b.ResetTimer()
			for b.Loop() {
				c.askJSON("", "--history", id, "-q", "and then?")
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
