package resilient

import (
	"context"
	"errors"
	"net"
	"net/http"
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
