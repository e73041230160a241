package e2e_test

import (
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testenv"
)

// BenchmarkOneShotRoundTrips measures what a one-shot continuation (chat --history ID -q,
// a new process each time) waits on the cloud store: Firestore and Cloud Storage behind a
// proxy that adds 0 and then 40 ms to every exchange. rt/op is the added time over 40 ms, the
// number of sequential round trips the command made beyond the model.
func BenchmarkOneShotRoundTrips(b *testing.B) {
	roundTrips(b, func(c *cli, alertID string) func() {
		id := c.askJSON("", "-a", alertID, "-q", "first").HistoryID
		c.askJSON("", "--history", id, "-q", "warm the local copies")
		return func() { c.askJSON("", "--history", id, "-q", "and then?") }
	})
}

// BenchmarkNewOneShotRoundTrips is the same for a new investigation (chat -a ALERT -q, no
// history yet): what a first question waits on, the lookup of the team's notes included.
func BenchmarkNewOneShotRoundTrips(b *testing.B) {
	roundTrips(b, func(c *cli, alertID string) func() {
		c.askJSON("", "-a", alertID, "-q", "warm the local copies")
		return func() { c.askJSON("", "-a", alertID, "-q", "first question of a new investigation") }
	})
}

// BenchmarkNewOneShotRoundTripsNoKnowledge is BenchmarkNewOneShotRoundTrips with
// --no-knowledge: the floor the lookup of the notes must not raise.
func BenchmarkNewOneShotRoundTripsNoKnowledge(b *testing.B) {
	roundTrips(b, func(c *cli, alertID string) func() {
		c.askJSON("", "-a", alertID, "--no-knowledge", "-q", "warm the local copies")
		return func() { c.askJSON("", "-a", alertID, "--no-knowledge", "-q", "first question of a new investigation") }
	})
}

// BenchmarkFileOneShotRoundTrips is a new investigation of an alert given as a file (chat -f
// FILE -q): the alert is stored first, and the lookup of the team's notes runs beside that
// write. BenchmarkFileOneShotRoundTripsNoKnowledge is the same with --no-knowledge.
func BenchmarkFileOneShotRoundTrips(b *testing.B) {
	roundTrips(b, fileOneShot())
}

func BenchmarkFileOneShotRoundTripsNoKnowledge(b *testing.B) {
	roundTrips(b, fileOneShot("--no-knowledge"))
}

func fileOneShot(flags ...string) func(c *cli, alertID string) func() {
	return func(c *cli, _ string) func() {
		file := filepath.Join(repoDir(c.t), "testdata", "alerts", "guardduty.json")
		ask := func(q string) { c.askJSON("", append(append([]string{"-f", file}, flags...), "-q", q)...) }
		ask("warm the local copies")
		return func() { ask("first question of a new investigation") }
	}
}

// roundTrips times the command setup returns, on a workspace of its own with the sample alert,
// with no added latency and then with 40 ms, and reports the difference in round trips.
func roundTrips(b *testing.B, setup func(c *cli, alertID string) (ask func())) {
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
			ask := setup(c, c.addAlert("guardduty.json"))
			b.ResetTimer()
			for b.Loop() {
				ask()
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
