package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"

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
		{&url.Error{Op: "Post", URL: "http://x", Err: fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", textproto.ProtocolError("malformed MIME header"))}, true},
		{goerr.Wrap(fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", errors.New("malformed HTTP response")), "failed to ask"), true},
		{errors.Join(errors.New("first"), fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", errors.New("x"))), true},
		// The words elsewhere than at the start of an error's own message are not net/http's.
		{errors.New(`model said "net/http: HTTP/1.x transport connection broken: x"`), false},
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

// Real failures of a POST, as net/http returns them, from a server that closes the connection
// mid-request: net/http does not try a POST again (it is not idempotent), so the caller must.
func TestNetworkConnectionClosedMidRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// sent is what the server writes of its response before it closes the connection.
		sent string
		// wantText is part of the error, so that each case is the failure it names.
		wantText string
	}{
		{"closed before the response", "", "EOF"},
		{"closed in the status line", "HTTP/1.1 20", "transport connection broken: malformed HTTP status code"},
		{"closed in a header", "HTTP/1.1 200 OK\r\nContent-Le", "transport connection broken: malformed MIME header"},
		{"closed after a header", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", "transport connection broken: unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString(tc.sent)
				_ = buf.Flush()
				_ = conn.Close()
			}))
			defer srv.Close()
			resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader("{}"))
			if err == nil {
				_ = resp.Body.Close()
				t.Fatal("no error from a connection closed mid-request")
			}
			if !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("error %q, want one with %q", err, tc.wantText)
			}
			if !retry.Network(err) {
				t.Fatalf("Network(%v) = false, want true", err)
			}
		})
	}
}

// A client's own mistake is no network failure, though net/http returns it as a *url.Error too.
func TestNetworkNotTheClientsMistake(t *testing.T) {
	t.Parallel()
	_, err := http.Post("gopher://127.0.0.1/", "application/json", strings.NewReader("{}"))
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		t.Fatalf("error %v (%T), want a *url.Error", err, err)
	}
	if retry.Network(err) {
		t.Fatalf("Network(%v) = true, want false", err)
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
