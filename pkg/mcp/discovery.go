package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// What alertchat checks of a server's sign-in metadata before the SDK's handler runs the flow.
//
// Protected-resource metadata (RFC 9728) names the server's authorization servers. The SDK
// looks for it where the challenge's resource_metadata points, then at the well-known URL of
// the endpoint's path, then at the root, and skips a document about another resource. The first
// two can only be about this server: a document there naming another resource is a server
// lying about what its tokens are for, and the sign-in is refused with one line instead of
// going on to guess.
//
// A server of the 2025-03-26 revision has no such metadata: its own origin is its
// authorization server, whose metadata is at the origin's root
// (/.well-known/oauth-authorization-server). Servers of that revision built with the TypeScript
// SDK serve there a document whose issuer has a path (the origin and "/oauth"), which RFC 8414
// section 3.3 says not to use, and which the Go SDK refuses. alertchat takes it in that case
// only: no protected-resource metadata anywhere, the document read from the server's own origin,
// its issuer and every endpoint on that same origin. The issuer is then read as the origin the
// revision makes the authorization server: the flow's secrets (code, verifier, client secret,
// refresh token) go to the origin the server's token goes to anyway. A document naming any other
// origin is refused as before, and so is any mismatch where the server publishes
// protected-resource metadata (the revisions from 2025-06-18 on).

// prmPlace is a URL where protected-resource metadata is looked for, with the resource a
// document there must name; own: a document there can only be about this server.
type prmPlace struct {
	url, resource string
	own           bool
}

// prmPlaces are the places the SDK's handler looks, in its order, for the server at endpoint
// (challenge: the resource_metadata of its WWW-Authenticate, "" when none).
func prmPlaces(challenge, endpoint string) []prmPlace {
	var out []prmPlace
	if challenge != "" {
		out = append(out, prmPlace{url: challenge, resource: endpoint, own: true})
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return out
	}
	m := *u
	m.Path, m.RawPath = "/.well-known/oauth-protected-resource/"+strings.TrimLeft(u.Path, "/"), ""
	out = append(out, prmPlace{url: m.String(), resource: endpoint, own: true})
	m.Path = "/.well-known/oauth-protected-resource"
	root := *u
	root.Path, root.RawPath = "", ""
	return append(out, prmPlace{url: m.String(), resource: root.String()})
}

// resourceMetadata reports whether the server at endpoint publishes protected-resource metadata
// that the SDK's handler will use, and refuses a document about another resource where only
// this server's can be.
func (h *oauthHandler) resourceMetadata(ctx context.Context, challenges []oauthex.Challenge, endpoint string) (found bool, err error) {
	for _, p := range prmPlaces(challengeParam(challenges, "resource_metadata"), endpoint) {
		res, ok := h.fetchResource(ctx, p.url)
		switch {
		case !ok:
			continue
		case res == p.resource:
			return true, nil
		case p.own && ResourceKey(strings.TrimSuffix(res, "/")) != ResourceKey(strings.TrimSuffix(p.resource, "/")):
			return false, fmt.Errorf("MCP server %s: its metadata names another resource (%s), not the server's own URL; refusing to sign in",
				h.label, termsafe.Line(format.Truncate(res, 120, "...")))
		}
	}
	return false, nil
}

// fetchResource reads the "resource" of the protected-resource metadata at u; ok is false when
// there is no readable document there (the SDK then looks at the next place).
func (h *oauthHandler) fetchResource(ctx context.Context, u string) (resource string, ok bool) {
	if !httpsOrLoopback(u) {
		return "", false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", false
	}
	// The URL is the server's word: no redirect elsewhere, no address inside the network.
	resp, err := h.metadataClient(u).Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var prm struct {
		Resource string `json:"resource"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm) != nil || prm.Resource == "" {
		return "", false
	}
	return prm.Resource, true
}

// httpsOrLoopback: metadata is read over https, or plain http from this machine (tests,
// development), as the SDK requires.
func httpsOrLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Scheme == "https" {
		return true
	}
	if u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// legacyMetadata is the HTTP transport of a sign-in to a server without protected-resource
// metadata (the 2025-03-26 revision): authorization-server metadata read from the root of the
// server's own origin, whose issuer differs from the origin only by its path and whose
// endpoints are all on the origin, is given the origin as its issuer (see above). Everything
// else passes as it came.
type legacyMetadata struct {
	// origin is the server's origin (origin()); issuer the authorization server's issuer the
	// revision implies: the server's URL without its path, as the SDK's handler expects it.
	origin, issuer string
	next           http.RoundTripper
}

func newLegacyMetadata(endpoint string, next http.RoundTripper) (http.RoundTripper, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	o, err := originOf(endpoint)
	if err != nil {
		return nil, err
	}
	if next == nil {
		next = http.DefaultTransport
	}
	iss := *u
	iss.Path, iss.RawPath = "", ""
	return legacyMetadata{origin: o, issuer: iss.String(), next: next}, nil
}

// legacyEndpoints are the metadata's URLs the client calls or trusts; all must be on the origin.
var legacyEndpoints = []string{"authorization_endpoint", "token_endpoint", "registration_endpoint",
	"revocation_endpoint", "introspection_endpoint", "jwks_uri"}

func (t legacyMetadata) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || resp.StatusCode != http.StatusOK || origin(r.URL) != t.origin ||
		(r.URL.Path != "/.well-known/oauth-authorization-server" && r.URL.Path != "/.well-known/openid-configuration") {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return resp, nil
	}
	iss, _ := m["issuer"].(string)
	if iss == "" || strings.TrimSuffix(iss, "/") == strings.TrimSuffix(t.issuer, "/") || !t.onOrigin(iss) {
		return resp, nil
	}
	for _, k := range legacyEndpoints {
		if v, present := m[k]; present {
			if s, ok := v.(string); !ok || !t.onOrigin(s) {
				return resp, nil
			}
		}
	}
	m["issuer"] = t.issuer
	b, err := json.Marshal(m)
	if err != nil {
		return resp, nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

func (t legacyMetadata) onOrigin(raw string) bool {
	o, err := originOf(raw)
	return err == nil && o == t.origin
}
