package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/idtoken"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// "auth": "google": a server on Cloud Run takes a Google ID token whose audience is the
// service's URL; Google's own MCP endpoints (*.googleapis.com) take an OAuth access token. Both
// come from Application Default Credentials, and go, like every credential, to the server's
// origin only.

// googleCloudScope is the access token's scope when the config names none.
const googleCloudScope = "https://www.googleapis.com/auth/cloud-platform"

// GoogleTokenSource is the token source from Application Default Credentials: an ID token for
// audience, or, when audience is "", an access token of scopes.
func GoogleTokenSource(ctx context.Context, audience string, scopes []string) (oauth2.TokenSource, error) {
	if audience == "" {
		return google.DefaultTokenSource(ctx, scopes...)
	}
	return idtoken.NewTokenSource(ctx, audience)
}

// googleAudience is what a server at endpoint takes: "" (an access token) for Google's APIs,
// else the service's URL (scheme and host), the audience Cloud Run checks.
func googleAudience(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	host := strings.ToLower(u.Hostname())
	if host == "googleapis.com" || strings.HasSuffix(host, ".googleapis.com") {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

// googleTransport adds a Google token to each request (the origin client below refuses
// requests to any other origin).
func googleTransport(ctx context.Context, label, endpoint string, cfg *OAuthConfig, o AuthOptions, base http.RoundTripper) (http.RoundTripper, error) {
	get := o.Google
	if get == nil {
		get = GoogleTokenSource
	}
	aud := googleAudience(endpoint)
	var scopes []string
	if aud == "" {
		scopes = []string{googleCloudScope}
		if cfg != nil && len(cfg.Scopes) > 0 {
			scopes = cfg.Scopes
		}
	}
	// The source keeps its context for every refresh (oauth2's user and service-account
	// sources do), and the chat outlives the start that dials: its cancellation is not theirs.
	ts, err := get(context.WithoutCancel(ctx), aud, scopes)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: no Google credentials (Application Default Credentials): %s", label, termsafe.Line(err.Error()))
	}
	return &oauth2.Transport{Source: oauth2.ReuseTokenSource(nil, ts), Base: base}, nil
}
