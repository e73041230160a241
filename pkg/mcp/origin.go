package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// An HTTP server's credentials (its configured headers, its OAuth or Google token) are meant for
// that server alone. The client of a server therefore talks to the server's origin (scheme, host,
// port) only: a redirect to another origin is refused, and so is any request to another origin
// (the SSE transport's "endpoint" event names the URL to post to, and a server could name
// someone else's). Headers are added here, to requests for the origin, never before.

// origin is a URL's scheme, host and port, lower-cased, with the scheme's default port explicit.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

// originOf is the origin of a URL string; an error for one that is not an absolute http(s) URL.
func originOf(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("invalid URL %q: want http:// or https://", raw)
	}
	return origin(u), nil
}

// originClient is the HTTP client of the server at endpoint: requests go to its origin only,
// with headers set on each; a redirect or a request to another origin is refused.
func originClient(endpoint string, headers map[string]string, next http.RoundTripper) (*http.Client, error) {
	o, err := originOf(endpoint)
	if err != nil {
		return nil, err
	}
	if next == nil {
		next = http.DefaultTransport
	}
	return &http.Client{
		Transport: originRoundTripper{origin: o, headers: headers, next: next},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if origin(req.URL) != o {
				return fmt.Errorf("refused a redirect to another origin (%s): the server's credentials go to %s only", origin(req.URL), o)
			}
			if len(via) >= 10 {
				return fmt.Errorf("stopped after 10 redirects")
			}
			return nil
		},
	}, nil
}

type originRoundTripper struct {
	origin  string
	headers map[string]string
	next    http.RoundTripper
}

func (t originRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if got := origin(r.URL); got != t.origin {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, fmt.Errorf("refused a request to another origin (%s): the server's credentials go to %s only", got, t.origin)
	}
	if len(t.headers) == 0 {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.next.RoundTrip(r)
}
