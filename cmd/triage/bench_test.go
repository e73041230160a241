package triage_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// BenchmarkTriageConcurrency triages 200 open alerts at --concurrency 16 against a fake whose
// every answer takes 300 ms (the investigation's answer and the verdict, one after the other;
// the title is asked beside the answer) and reports the wall time against the ideal,
// ceil(200/16) waves of two answers.
func BenchmarkTriageConcurrency(b *testing.B) {
	const alerts, workers, latency = 200, 16, 300 * time.Millisecond
	srv := geminitest.NewServer(b, geminitest.WithLatency(latency), geminitest.WithoutRecording(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			return geminitest.Reply{Text: `{"verdict":"benign","conclusion":"Fine.","confidence":0.8,"evidence":[{"value":"203.0.113.9","claim":"seen"}]}`}
		}
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "A title"}
		}
		return geminitest.Reply{Text: "Looked at it."}
	}))
	var lines []string
	for i := range alerts {
		lines = append(lines, fmt.Sprintf(`{"title":"alert %d","ip":"203.0.113.9"}`, i))
	}
	file := clitest.WriteFile(b, "alerts.jsonl", strings.Join(lines, "\n"))
	ideal := time.Duration((alerts+workers-1)/workers) * 2 * latency
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		if _, errOut, code := clitest.Run(b, dir, "", "alert", "add", "-f", file); code != 0 {
			b.Fatalf("alert add: exit %d: %s", code, errOut)
		}
		b.StartTimer()
		start := time.Now()
		out, errOut, code := clitest.RunWith(b, dir, "", false, clitest.FakeGemini(srv.URL()), "triage", "--limit", fmt.Sprint(alerts),
			"--concurrency", fmt.Sprint(workers), "-o", "json")
		total += time.Since(start)
		if code != 0 || strings.Count(out, "\n") != alerts {
			b.Fatalf("exit %d, %d lines: %s", code, strings.Count(out, "\n"), errOut)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/triage")
	b.ReportMetric(total.Seconds()/float64(b.N)/ideal.Seconds(), "x-ideal")
}
