// Package retry is what the two retrying callers (Gemini calls in pkg/llm, storage calls in
// pkg/store/resilient) share: the backoff between tries and the network failures that are
// worth another try. Each caller adds the verdicts of its own service's errors.
package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Backoff is the wait before try attempt+1 after attempt failed tries: full jitter (u in
// [0, 1) times the ceiling) under a ceiling that doubles from base, at most maxDelay.
func Backoff(base, maxDelay time.Duration, attempt int, u float64) time.Duration {
	ceiling := maxDelay
	if attempt >= 1 && attempt <= 30 {
		if d := base << (attempt - 1); d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(u * float64(ceiling))
}

// Network reports whether err is a network failure that may go away on another try: a refused,
// reset, aborted or broken connection, a connection cut short or closed before or during the
// response, or a network timeout.
//
// It says nothing of whether another try is safe: net/http gives up these requests after writing
// some or all of them, so the server may have acted on them. A caller retries only requests that
// a second delivery does not harm.
func Network(err error) bool {
	if brokenConnection(err) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true
	}
	// A connection the server closed before any response (a request's plain EOF) is one too;
	// an EOF elsewhere is the end of something read, not a failure.
	var urlErr *url.Error
	if errors.As(err, &urlErr) && errors.Is(urlErr.Err, io.EOF) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr)
}

// brokenPrefix starts the error net/http's HTTP/1 transport returns when it dropped the
// connection under a request it had begun to write: most often a response cut short by the
// server closing the connection, which its reader reports as a malformed status line or
// header, not as an EOF. net/http declares neither a type nor a value for it (it is
// fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err) in transport.go), so its
// text is matched, at the start of an error's own message in the chain and nowhere else. It
// also covers a response that is malformed without being cut, which does not go away: the
// callers bound their tries.
const brokenPrefix = "net/http: HTTP/1.x transport connection broken: "

// brokenConnection reports whether err or an error it wraps is net/http's broken connection.
func brokenConnection(err error) bool {
	if err == nil {
		return false
	}
	if strings.HasPrefix(err.Error(), brokenPrefix) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return brokenConnection(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if brokenConnection(e) {
				return true
			}
		}
	}
	return false
}

// Sleep waits d or until ctx is done, whichever is first; it returns ctx's error in the
// second case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
