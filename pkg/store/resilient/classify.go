package resilient

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/api/googleapi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/alertchat/alertchat/pkg/retry"
	"github.com/alertchat/alertchat/pkg/store"
)

// IsTransient reports whether err may go away if the call is tried again: the backend was
// unreachable, slow, overloaded or briefly failing. The store's own verdicts (conflict, not
// found, invalid, no space), a cancelled call, refused permissions and anything unknown are
// not transient.
func IsTransient(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound),
		errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrNoSpace),
		errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code == http.StatusRequestTimeout || ge.Code == http.StatusTooManyRequests || ge.Code >= 500
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unknown {
		switch st.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Internal:
			return true
		}
		return false
	}
	if requestFault(err) {
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) || retry.Network(err) {
		return true // connection refused, reset, timed out, DNS
	}
	msg := err.Error()
	for _, s := range []string{
		"database is locked", "SQLITE_BUSY", // another process holds the local store's lock
		"connection refused", "connection reset", "broken pipe", "unexpected EOF", "i/o timeout",
		"TLS handshake timeout", "http2: server sent GOAWAY", "no such host",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// requestFault reports whether err is a request the HTTP client could not make, which no
// retry makes: a URL that is not one, a scheme or host it cannot use, a certificate it does
// not accept. Each comes as a *url.Error, a net.Error whatever it wraps, so without this they
// would be retried to the end of the budget. net/http declares no value for the scheme and host
// faults, so their text is matched.
func requestFault(err error) bool {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return false
	}
	var cert *tls.CertificateVerificationError
	if ue.Op == "parse" || errors.As(ue.Err, &cert) {
		return true
	}
	msg := ue.Err.Error()
	return strings.HasPrefix(msg, "unsupported protocol scheme") || strings.HasPrefix(msg, "http: no Host in request URL")
}
