package eval_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
)

// BenchmarkEvalConcurrency runs 200 cases at --concurrency 16 against a fake whose every
// answer takes 300 ms (the investigation's answer and the verdict: two requests a run) and
// reports the wall time against the ideal, ceil(200/16) waves of two answers.
func BenchmarkEvalConcurrency(b *testing.B) {
	const cases, workers, latency = 200, 16, 300 * time.Millisecond
	srv := geminitest.NewServer(b, geminitest.WithLatency(latency), geminitest.WithoutRecording(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			return geminitest.Reply{Text: `{"verdict":"benign","conclusion":"Fine.","evidence":[{"value":"203.0.113.9","claim":"seen"}]}`}
		}
		return geminitest.Reply{Text: "Looked at it."}
	}))
	var lines []string
	for i := range cases {
		lines = append(lines, fmt.Sprintf(`{"alert":{"Title":"alert %d","ip":"203.0.113.9"},"verdict":"benign"}`, i))
	}
	file := clitest.WriteFile(b, "cases.jsonl", strings.Join(lines, "\n"))
	ideal := time.Duration((cases+workers-1)/workers) * 2 * latency
	var total time.Duration
	for b.Loop() {
		dir := b.TempDir()
		start := time.Now()
		_, errOut, code := clitest.RunWith(b, dir, "", false, clitest.FakeGemini(srv.URL()), "eval", "-f", file, "--concurrency", fmt.Sprint(workers), "-o", "json")
		total += time.Since(start)
		if code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "s/eval")
	b.ReportMetric(total.Seconds()/float64(b.N)/ideal.Seconds(), "x-ideal")
}
