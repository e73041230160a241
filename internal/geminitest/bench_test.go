package geminitest_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
)

// benchClient returns a client whose transport keeps enough idle connections
// for the benchmark's concurrency, so that it measures requests rather than
// TCP connection setup.
func benchClient(b *testing.B, srv *geminitest.Server) *genai.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 512
	b.Cleanup(tr.CloseIdleConnections)
	return newClient(b, srv, func(cc *genai.ClientConfig) { cc.HTTPClient = &http.Client{Transport: tr} })
}

// BenchmarkGenerateContent keeps about 200 calls in flight at once: 100
// goroutines per CPU, each call waiting 20ms for its answer.
func BenchmarkGenerateContent(b *testing.B) {
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithLatency(20*time.Millisecond))
	c := benchClient(b, srv)
	b.SetParallelism(100) // 100 goroutines per CPU
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Models.GenerateContent(context.Background(), model, genai.Text("hello"), nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(srv.Stats().MaxInFlight), "max-in-flight")
}

func BenchmarkGenerateContentStream(b *testing.B) {
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "one two three four five six seven eight nine ten eleven twelve"}
	}))
	c := benchClient(b, srv)
	b.SetParallelism(100)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, err := range c.Models.GenerateContentStream(context.Background(), model, genai.Text("hello"), nil) {
				if err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
	b.ReportMetric(float64(srv.Stats().MaxInFlight), "max-in-flight")
}
