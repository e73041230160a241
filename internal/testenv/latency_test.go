package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Requests through a LatencyProxy arrive intact, each at least the delay late; Requests counts
// them and tells requests sent together (one round) from requests sent one after the other.
func TestLatencyProxyAndRounds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = w.Write([]byte(strings.ToUpper(string(body))))
	}))
	t.Cleanup(srv.Close)
	const delay = 100 * time.Millisecond
	p := NewLatencyProxy(t, strings.TrimPrefix(srv.URL, "http://"), delay)
	reqs := NewRequests()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	client := reqs.HTTPClientVia(tr)

	post := func() {
		start := time.Now()
		resp, err := client.Post(p.URL(), "text/plain", strings.NewReader("ping"))
		if err != nil {
			t.Error(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if string(body) != "PING" {
			t.Errorf("answer %q", body)
		}
		if d := time.Since(start); d < delay {
			t.Errorf("answered after %v, before the proxy's delay of %v", d, delay)
		}
	}
	post()
	post()
	if got := reqs.Rounds(); got != 2 {
		t.Fatalf("two requests one after the other: %d rounds, want 2", got)
	}
	reqs.Reset()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(post)
	}
	wg.Wait()
	if got, n := reqs.Rounds(), reqs.Total(); got != 1 || n != 3 {
		t.Fatalf("three requests at once: %d rounds of %d requests, want 1 of 3", got, n)
	}
}
