package remote_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
)

// benchInput is n questions over the env's two alerts, each with an IP and an e-mail address
// for the redactor to find.
func benchInput(n int) string {
	var b strings.Builder
	for i := range n {
		alert := "alert-dns"
		if i%2 == 1 {
			alert = "alert-scan"
		}
		fmt.Fprintf(&b, `{"id": %d, "alert_id": %q, "query": "question %d: did 198.51.100.%d reach bob%d@example.com?"}`+"\n", i, alert, i, i%250, i)
	}
	return b.String()
}

// benchOptions are options with the real redaction engine and no waiting.
func benchOptions(e *env, saver store.HistorySaver, reader remote.Reader, jobs store.BatchJobs, titles bool) remote.Options {
	o := e.options()
	red := redacthist.Engine(redact.New())
	o.Store, o.Jobs = reader, jobs
	o.NewSession = func(a *record.Alert, h *record.History) (*session.Session, error) {
		return session.New(session.Options{LLM: failingGenerator{}, Store: saver, Redactor: red, Model: "gemini-test", Titles: titles, CompactAt: -1}, a, h)
	}
	return o
}

// BenchmarkSubmit10k submits 10,000 questions against the fake: inlined (no titles, to stay
// under the 10 MB of an inlined job) and as an uploaded file (with titles: 20,000 requests).
// An op is one submission, the fake's own work included.
//
//	go test -run '^$' -bench Submit10k -benchtime 3x ./pkg/batch/remote
func BenchmarkSubmit10k(b *testing.B) {
	for _, tc := range []struct {
		name   string
		titles bool
		inline bool
	}{{"inline", false, true}, {"file", true, false}} {
		b.Run(tc.name, func(b *testing.B) {
			e := newEnv(b, geminitest.WithoutRecording())
			input := benchInput(10_000)
			qs, err := batch.Parse([]byte(input))
			if err != nil {
				b.Fatal(err)
			}
			o := benchOptions(e, e.store, e.store, e.store, tc.titles)
			o.NoWait, o.Resubmit = true, true
			b.ResetTimer()
			for b.Loop() {
				oc, err := remote.Run(context.Background(), []byte(input), qs, io.Discard, o)
				if err != nil || oc.Inlined != tc.inline {
					b.Fatalf("%v, inlined %v", err, oc != nil && oc.Inlined)
				}
			}
		})
	}
}

// BenchmarkCollect saves a done job's 1,000 answers (with titles) as histories, on the local
// store and on the cloud store against the emulators, at concurrency 8; it reports histories
// saved a second. Each op collects into a fresh store.
//
//	go run ./internal/cmd/testrun -- go test -run '^$' -bench Collect -benchtime 3x ./pkg/batch/remote
func BenchmarkCollect(b *testing.B) {
	const n = 1000
	type backend struct {
		saver  store.HistorySaver
		reader remote.Reader
		jobs   store.BatchJobs
	}
	for _, tc := range []struct {
		name string
		open func(b *testing.B, e *env) backend
	}{
		{"local", func(b *testing.B, e *env) backend { return backend{e.store, e.store, e.store} }},
		{"cloud", func(b *testing.B, e *env) backend {
			c := testenv.CloudEnv(b)
			s, err := cloud.New(cloud.Config{Firestore: c.Firestore, Bucket: c.BucketHandle(), Workspace: "default"})
			if err != nil {
				b.Fatal(err)
			}
			for _, id := range []record.AlertID{"alert-dns", "alert-scan"} {
				a, err := e.store.GetAlert(context.Background(), id)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.PutAlert(context.Background(), a); err != nil {
					b.Fatal(err)
				}
			}
			return backend{s, s, s}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			input := benchInput(n)
			qs, err := batch.Parse([]byte(input))
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				e := newEnv(b, geminitest.WithoutRecording())
				be := tc.open(b, e)
				o := benchOptions(e, be.saver, be.reader, be.jobs, true)
				o.Concurrency = 8
				sub := o
				sub.NoWait = true
				if _, err := remote.Run(context.Background(), []byte(input), qs, io.Discard, sub); err != nil {
					b.Fatal(err)
				}
				e.srv.AdvanceBatches()
				e.srv.AdvanceBatches()
				b.StartTimer()
				start := time.Now()
				oc, err := remote.Run(context.Background(), []byte(input), qs, io.Discard, o)
				total += time.Since(start)
				if err != nil || oc.Summary.Succeeded != n {
					b.Fatalf("%v: %+v", err, oc)
				}
			}
			b.ReportMetric(float64(n*b.N)/total.Seconds(), "histories/s")
		})
	}
}
