package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// What a sign-in believes of the metadata a server points it at.
//
// Mix-up: a hostile MCP server can name itself as the authorization server and publish metadata
// whose authorization endpoint is an honest identity provider's and whose token endpoint is its
// own. The analyst signs in at the honest provider, and the code with its PKCE verifier goes to
// the hostile token endpoint, which redeems them (a client ID metadata document makes the client
// one any provider takes). Where the provider returns RFC 9207's "iss" the SDK compares it; where
// it does not, only the metadata can be checked: the authorization server must be one the
// protected resource named, and its authorization and token endpoints must be on its issuer's
// origin, so the code goes back to the party that issued it.
//
// That is not enough for a client ID metadata document, which every provider takes: a hostile
// authorization server's own endpoint may redirect the browser to an honest provider, query
// unchanged, and the code that comes back without "iss" is then posted to the hostile token
// endpoint. So that client ID is used only where the issuer is known to have issued the code:
// the authorization response carries its "iss" (the SDK compares it), or the configuration
// names the issuer (oauth.issuer) and the metadata of any other is refused.

// metadataGuard is the transport of a sign-in's requests: it remembers the authorization
// servers the protected-resource metadata names, and refuses authorization-server metadata
// that is not one of them or whose endpoints are on another origin than its issuer's.
type metadataGuard struct {
	label string
	next  http.RoundTripper
	// pinned, when set, is the only issuer whose metadata is taken (oauth.issuer with a
	// client ID metadata document).
	pinned string

	mu      sync.Mutex
	servers []string // authorization_servers of the protected-resource metadata read
}

func newMetadataGuard(label string, next http.RoundTripper) *metadataGuard {
	if next == nil {
		next = http.DefaultTransport
	}
	return &metadataGuard{label: label, next: next}
}

func (g *metadataGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodGet || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	p := r.URL.Path
	prm := strings.HasPrefix(p, "/.well-known/oauth-protected-resource")
	asm := strings.Contains(p, "/.well-known/oauth-authorization-server") || strings.Contains(p, "/.well-known/openid-configuration")
	if !prm && !asm {
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Servers []string `json:"authorization_servers"`
		Issuer  string   `json:"issuer"`
		Auth    string   `json:"authorization_endpoint"`
		Token   string   `json:"token_endpoint"`
	}
	if json.Unmarshal(body, &m) != nil {
		return resp, nil // the SDK says what is wrong with it
	}
	if prm {
		g.mu.Lock()
		g.servers = append(g.servers, m.Servers...)
		g.mu.Unlock()
		return resp, nil
	}
	if trimSlash(m.Issuer) != trimSlash(impliedIssuer(r.URL)) {
		return resp, nil // not the issuer its URL names: the SDK refuses it as RFC 8414 says
	}
	if err := g.checkServer(m.Issuer, m.Auth, m.Token); err != nil {
		return nil, err
	}
	return resp, nil
}

// checkServer: issuer is an authorization server the protected resource named (when it named
// any), and its endpoints are on the issuer's origin.
func (g *metadataGuard) checkServer(issuer, authEndpoint, tokenEndpoint string) error {
	if issuer == "" {
		return nil // the SDK refuses metadata without an issuer
	}
	if g.pinned != "" && trimSlash(g.pinned) != trimSlash(issuer) {
		return fmt.Errorf("MCP server %s: authorization server %s is not the issuer oauth.issuer names; refusing to sign in", g.label, shown(issuer))
	}
	g.mu.Lock()
	named := g.servers
	g.mu.Unlock()
	if len(named) > 0 {
		found := false
		for _, s := range named {
			found = found || trimSlash(s) == trimSlash(issuer)
		}
		if !found {
			return fmt.Errorf("MCP server %s: authorization server %s is not the one its metadata names; refusing to sign in", g.label, shown(issuer))
		}
	}
	iso, err := originOf(issuer)
	if err != nil {
		return fmt.Errorf("MCP server %s: authorization server %s: %w", g.label, shown(issuer), err)
	}
	for _, e := range []struct{ name, url string }{{"token", tokenEndpoint}, {"authorization", authEndpoint}} {
		if e.url == "" {
			continue
		}
		if o, err := originOf(e.url); err != nil || o != iso {
			return fmt.Errorf("MCP server %s: authorization server %s names a %s endpoint on another origin (%s); refusing to sign in",
				g.label, shown(issuer), e.name, shown(e.url))
		}
	}
	return nil
}

func trimSlash(s string) string { return strings.TrimSuffix(s, "/") }

// impliedIssuer is the issuer whose metadata is at u, by the well-known URLs the SDK reads
// (RFC 8414 path insertion, OpenID Connect path insertion and appending).
func impliedIssuer(u *url.URL) string {
	root := u.Scheme + "://" + u.Host
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		if rest, ok := strings.CutPrefix(u.Path, wk); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
			return root + rest
		}
	}
	if p, ok := strings.CutSuffix(u.Path, "/.well-known/openid-configuration"); ok {
		return root + p
	}
	return ""
}

// shown is a URL from a server, cut and made one line for a message.
func shown(s string) string { return termsafe.Line(format.Truncate(s, 120, "...")) }

// openableAuthURL: the authorization URL the browser (or $BROWSER, or the system opener) is
// given is https, or plain http to this machine; nothing else (file:, javascript:, a custom
// scheme a handler program takes) is opened.
func openableAuthURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Host != "" && u.User == nil && httpsOrLoopback(raw)
}

// isLoopbackHost reports whether host (no port) is this machine.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// errPrivateAddress is a metadata fetch that would reach an address inside the network.
var errPrivateAddress = errors.New("refusing to fetch metadata from a private, loopback or link-local address")

// publicAddress reports whether ip may be reached by a metadata fetch made on a server's word;
// loopback: the server itself is on this machine (tests, development), so this machine is too.
func publicAddress(ip net.IP, loopback bool) bool {
	if ip.IsLoopback() {
		return loopback
	}
	if ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	// shared address space (RFC 6598), and IPv4-mapped forms of the above
	if v4 := ip.To4(); v4 != nil && v4[0] == 100 && v4[1]&0xc0 == 64 {
		return false
	}
	return true
}

// metadataClient is the client of alertchat's own fetch of a challenge's resource_metadata: the
// URL comes from the server's 401, so it follows no redirect to another origin, and reaches no
// private, loopback or link-local address unless the URL is on the server's own origin (the
// server is reached there anyway) or the server itself is on this machine.
func (h *oauthHandler) metadataClient(target string) *http.Client {
	base := h.opts.HTTPClient
	ownOrigin := false
	if a, err := originOf(target); err == nil {
		if b, err := originOf(h.resource); err == nil {
			ownOrigin = a == b
		}
	}
	loopback := false
	if u, err := url.Parse(h.resource); err == nil {
		loopback = isLoopbackHost(u.Hostname())
	}
	c := &http.Client{Timeout: base.Timeout, Transport: base.Transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || origin(req.URL) != origin(via[0].URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	if ownOrigin {
		return c
	}
	var t *http.Transport
	if bt, ok := base.Transport.(*http.Transport); ok {
		t = bt.Clone()
	} else if base.Transport == nil {
		t = http.DefaultTransport.(*http.Transport).Clone()
	} else {
		// A transport of the caller's (tests' TLS): it dials as it likes; only loopback servers
		// are given one, so the address check is the dialer's below when it is ours.
		return c
	}
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); ip == nil || !publicAddress(ip, loopback) {
			return errPrivateAddress
		}
		return nil
	}}
	t.Proxy = nil // a proxy would reach the address in our stead
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	c.Transport = t
	return c
}

// errNoIssuer answers a code that came back without "iss" for a client ID metadata document
// whose issuer the configuration does not name.
var errNoIssuer = errors.New("the authorization server returned the code without its issuer (RFC 9207 \"iss\"); " +
	"a client ID metadata document is used only with one that does, or with oauth.issuer set to it")

// needsIss reports whether an authorization response to a request with clientID must carry
// "iss": the client ID is the metadata document's, and no issuer is configured for it.
func needsIss(cfg OAuthConfig, clientID string) bool {
	return cfg.ClientMetadataURL != "" && cfg.Issuer == "" && clientID == cfg.ClientMetadataURL
}
