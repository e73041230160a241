package mcp

import (
	"fmt"
	"io"
	"net/http"
)

// NoAuthError is a server that answered 401 while its config gives it no "auth": the
// message says what to set, where a bare "Unauthorized" would leave the analyst guessing.
type NoAuthError struct {
	Server string
	// Headers: the config gives it headers, and the server refused them.
	Headers bool
	// SSE: the server is reached over SSE, where alertchat does not sign in with OAuth.
	SSE bool
}

func (e *NoAuthError) Error() string {
	switch {
	case e.Headers && e.SSE:
		return fmt.Sprintf(`MCP server %s refused the credentials of its "headers" (HTTP 401)`, e.Server)
	case e.Headers:
		return fmt.Sprintf(`MCP server %s refused the credentials of its "headers" (HTTP 401); if it signs in, set "auth": "oauth" or "google" instead`, e.Server)
	case e.SSE:
		return fmt.Sprintf(`MCP server %s asks for credentials (HTTP 401): set "auth": "google" or its "headers" in its config`, e.Server)
	}
	return fmt.Sprintf(`MCP server %s asks for credentials (HTTP 401): set "auth": "oauth" (then 'alertchat mcp login %s') or "google", or its "headers", in its config`, e.Server, e.Server)
}

// refuseUnauthorized is the transport of a server without "auth": a 401 becomes a NoAuthError.
func refuseUnauthorized(e NoAuthError, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusUnauthorized {
			return resp, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		return nil, &e
	})
}
