package resilient_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/pkg/store/resilient"
)

// The errors an HTTP backend (Cloud Storage) really returns, made for real: a failure of the
// network is transient, a request the client cannot make is not, though both come as a
// *url.Error, which is a net.Error.
func TestIsTransientHTTPClientErrors(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: connection refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := l.Addr().String()
	l.Close()
	// A server that closes the connection before it answers.
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	t.Cleanup(hangUp.Close)
	// A server slower than the client's timeout.
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	// A server whose certificate the client does not trust.
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(untrusted.Close)

	for _, tc := range []struct {
		name    string
		url     string
		timeout time.Duration // of the client; 0: none, so only the slow server's case times out
		want    bool
	}{
		{"connection refused", "http://" + closedAddr + "/o", 0, true},
		{"closed before an answer", hangUp.URL + "/o", 0, true},
		{"timed out", slow.URL + "/o", 200 * time.Millisecond, true},
		{"a scheme the client does not speak", "gs://bucket/o", 0, false},
		{"a URL that is not one", "http://[::1/o", 0, false},
		{"a URL without a host", "http:///o", 0, false},
		{"a certificate the client does not trust", untrusted.URL + "/o", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client := &http.Client{Transport: &http.Transport{}, Timeout: tc.timeout}
			defer client.CloseIdleConnections()
			resp, err := client.Get(tc.url)
			if err == nil {
				resp.Body.Close()
				t.Fatal("the request succeeded")
			}
			if got := resilient.IsTransient(goerr.Wrap(err, "failed to read the object")); got != tc.want {
				t.Errorf("IsTransient(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
}
