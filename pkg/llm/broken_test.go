package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/llm"
)

// A connection the server closes in the middle of the response's headers fails the SDK's POST
// with net/http's "transport connection broken"; the answer has not started, so it is asked again.
func TestRetriesAResponseCutInItsHeaders(t *testing.T) {
	t.Parallel()
	const answer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"fine"}]},"finishReason":"STOP"}]}`
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if requests.Add(1) == 1 {
					conn, buf, err := w.(http.Hijacker).Hijack()
					if err != nil {
						return
					}
					_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Ty")
					_ = buf.Flush()
					_ = conn.Close()
					return
				}
				if strings.Contains(r.URL.Path, ":streamGenerateContent") {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = w.Write([]byte("data: " + answer + "\n\n"))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(answer))
			}))
			defer srv.Close()
			gc, err := genai.NewClient(context.Background(), &genai.ClientConfig{
				Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}, HTTPClient: srv.Client(),
			})
			if err != nil {
				t.Fatal(err)
			}
			var s sleeps
			var first error
			c := llm.New(gc.Models, llm.Options{Sleep: s.sleep, OnRetry: func(r llm.Retry) {
				if r.Attempt == 1 {
					first = r.Err
				}
			}})
			text, _, err := k.call(context.Background(), c, "question")
			if err != nil || text != "fine" {
				t.Fatalf("got %q, %v", text, err)
			}
			if n := requests.Load(); n != 2 {
				t.Fatalf("%d requests, want 2", n)
			}
			if first == nil || !strings.Contains(first.Error(), "transport connection broken") {
				t.Fatalf("first try failed with %v, want net/http's broken connection", first)
			}
		})
	}
}
