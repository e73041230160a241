package batch_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// timedStore records how long saves take.
type timedStore struct {
	store.HistorySaver
	mu    sync.Mutex
	saves []time.Duration
}

func (s *timedStore) SaveHistory(ctx context.Context, h *record.History) error {
	start := time.Now()
	err := s.HistorySaver.SaveHistory(ctx, h)
	s.mu.Lock()
	s.saves = append(s.saves, time.Since(start))
	s.mu.Unlock()
	return err
}

// BenchmarkBatch runs 200 questions at concurrency 16 against the fake at 200ms a call, with
// generated titles (a second call per question, alongside the answer) and the local store.
// The ideal is 200/16 rounds of 200ms: 2.5s. It reports the wall time of a run, its ratio to
// the ideal, and the time saves took. "429" answers 20% of the calls with a 429 once.
//
//	go test -run '^$' -bench Batch -benchtime 1x ./pkg/batch
func BenchmarkBatch(b *testing.B) {
	const (
		questions   = 200
		concurrency = 16
		latency     = 200 * time.Millisecond
	)
	ideal := time.Duration(questions/concurrency) * latency
	if questions%concurrency != 0 {
		ideal += latency
	}
	for _, tc := range []struct {
		name   string
		faults bool
	}{{"clean", false}, {"429", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var total time.Duration
			var saves []time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				opts := []geminitest.Option{answers(), geminitest.WithLatency(latency), geminitest.WithoutRecording()}
				if tc.faults {
					opts = append(opts, geminitest.WithFaults(geminitest.OncePerCall(
						geminitest.RandomFaults(0.2, uint64(i+1), geminitest.Reply{Status: 429, RetryDelay: 20 * time.Millisecond}))))
				}
				e := newEnv(b, opts...)
				client := llm.New(e.models, llm.Options{BaseDelay: 20 * time.Millisecond})
				ts := &timedStore{HistorySaver: e.store}
				o := batch.Options{
					Store: e.store,
					NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
						return session.New(session.Options{LLM: client, Store: ts, Redactor: secretRedactor{}, Model: "gemini-test", Titles: true}, a, h)
					},
					Concurrency: concurrency,
				}
				var in strings.Builder
				for q := range questions {
					in.WriteString(line(map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("question %d", q)}) + "\n")
				}
				qs, err := batch.Parse([]byte(in.String()))
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				sum, err := batch.Run(context.Background(), qs, io.Discard, o)
				elapsed := time.Since(start)
				b.StopTimer()
				if err != nil || sum.Succeeded != questions {
					b.Fatalf("err %v, summary %+v", err, sum)
				}
				if tc.faults && e.srv.Stats().Errors == 0 {
					b.Fatal("no faults injected")
				}
				total += elapsed
				saves = append(saves, ts.saves...)
			}
			var sum, longest time.Duration
			for _, d := range saves {
				sum += d
				longest = max(longest, d)
			}
			wall := total / time.Duration(b.N)
			b.ReportMetric(wall.Seconds(), "wall-s")
			b.ReportMetric(float64(wall)/float64(ideal), "x-ideal")
			b.ReportMetric(float64(sum.Milliseconds())/float64(len(saves)), "save-ms-avg")
			b.ReportMetric(float64(longest.Milliseconds()), "save-ms-max")
		})
	}
}
