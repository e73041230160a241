package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/retry"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		attempt int
		u       float64
		want    time.Duration
	}{
		{1, 0.999999, 100 * time.Millisecond},
		{2, 0.5, 100 * time.Millisecond},
		{3, 0.5, 200 * time.Millisecond},
		{10, 0.5, time.Second},   // capped at maxDelay
		{1000, 0.5, time.Second}, // no overflow
		{1, 0, 0},
	} {
		got := retry.Backoff(100*time.Millisecond, 2*time.Second, tc.attempt, tc.u)
		if d := got - tc.want; d > time.Millisecond || d < -time.Millisecond {
			t.Errorf("Backoff(attempt %d, u %v) = %s, want %s", tc.attempt, tc.u, got, tc.want)
		}
	}
}

func TestNetwork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{io.ErrUnexpectedEOF, true},
		{&url.Error{Op: "Post", URL: "http://x", Err: io.EOF}, true},
		{io.EOF, false},
		{errors.New("permission denied"), false},
		{context.Canceled, false},
		{nil, false},
	} {
		if got := retry.Network(tc.err); got != tc.want {
			t.Errorf("Network(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A server that closes the connection before answering a POST: net/http does not try again
// (the request is not idempotent), so the caller must.
func TestNetworkConnectionClosedBeforeResponse(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer srv.Close()
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err == nil {
		_ = resp.Body.Close()
		t.Fatal("no error from a connection closed before the response")
	}
	if !retry.Network(err) {
		t.Fatalf("Network(%v) = false, want true", err)
	}
}

func TestSleepStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := retry.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v", err)
	}
	if err := retry.Sleep(context.Background(), time.Microsecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
}
