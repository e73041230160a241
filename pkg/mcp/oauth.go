package mcp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Sign-in to a server of "auth": "oauth", on the Go SDK's authorization-code handler (the MCP
// authorization specification: protected-resource and authorization-server metadata discovery,
// PKCE, client ID metadata documents, dynamic client registration or a pre-registered client,
// scope selection and step-up, the resource indicator). What is ours: tokens kept between runs
// (TokenStore) and refreshed when due, the browser and its loopback redirect, a bound on
// repeated sign-ins, and a chat that never signs in itself but says which command does.

// maxSignIns bounds the sign-ins one connection runs: a server that keeps asking for more
// access than any sign-in gives it is given up on, not looped on.
const maxSignIns = 3

// SignIn lets a command run the browser flow. Without it (a chat), a server that asks for
// sign-in is reported with the command that signs in.
type SignIn struct {
	// Open shows the user the authorization URL: it opens a browser, or prints the URL.
	Open func(ctx context.Context, authURL string) error
	// Wait bounds the wait for the browser's redirect (default 5 minutes).
	Wait time.Duration
}

// AuthOptions are how servers of "auth" are signed in to.
type AuthOptions struct {
	// Tokens keeps OAuth grants between runs; nil keeps none.
	Tokens TokenStore
	// SignIn, when set, runs the browser flow where a server asks for sign-in.
	SignIn *SignIn
	// Google returns the token source of a server of "auth": "google": an ID token for
	// audience, or, when audience is "", an access token of scopes (default GoogleTokenSource).
	Google func(ctx context.Context, audience string, scopes []string) (oauth2.TokenSource, error)
	// HTTPClient reaches authorization servers (default: a client with a 30 s timeout).
	HTTPClient *http.Client
}

// SignInRequiredError is a server that asks for a sign-in nobody can do here.
type SignInRequiredError struct {
	// Server is the server's name, or its URL when it was given as one.
	Server string
	// StepUp: the server wants more access than the stored sign-in has.
	StepUp bool
	// Refused: a token was sent and refused (expired, revoked).
	Refused bool
}

func (e *SignInRequiredError) Error() string {
	what := "needs sign-in"
	switch {
	case e.StepUp:
		what = "needs a sign-in with more access"
	case e.Refused:
		what = "refused the stored sign-in"
	}
	return fmt.Sprintf("MCP server %s %s: run 'alertchat mcp login %s'", e.Server, what, e.Server)
}

// AccessRefusedError is a server that refused the token of a sign-in just made for the very
// request it had asked the sign-in for: another sign-in would end the same way.
type AccessRefusedError struct {
	Server string
	// Status is the HTTP status of the refusal (401 or 403); Code its WWW-Authenticate error
	// (invalid_token, insufficient_scope), Scope the scope it asked for, "" when none.
	Status      int
	Code, Scope string
}

func (e *AccessRefusedError) Error() string {
	what := fmt.Sprintf("HTTP %d", e.Status)
	if e.Code != "" {
		what += " " + e.Code
	}
	msg := fmt.Sprintf("MCP server %s refused the token of the sign-in just made (%s)", e.Server, what)
	if e.Scope != "" {
		msg += fmt.Sprintf(": it asks for scope %q, which the authorization server did not grant; signing in again will not help", e.Scope)
	}
	return msg
}

// oauthHandler is the auth.OAuthHandler of one server's transport.
type oauthHandler struct {
	label    string // the server's name, or its URL
	resource string // the server's URL
	cfg      OAuthConfig
	opts     AuthOptions
	warn     func(string) // a line for the analyst (nil: none)

	mu     sync.Mutex // guards ts, loaded, fresh
	ts     oauth2.TokenSource
	loaded bool
	// fresh is the access token a sign-in just gave, until a request carrying it is answered;
	// refused is how the server refused such a token, nil when it did not.
	fresh   string
	refused *AccessRefusedError

	signMu   sync.Mutex // one sign-in at a time; guards the fields below
	attempts int
	code     *auth.AuthorizationCodeHandler
	redirect *loopback
	// signedIn is set once a sign-in completed in this connection.
	signedIn bool
}

func newOAuthHandler(label, resource string, cfg *OAuthConfig, o AuthOptions, warn func(string)) *oauthHandler {
	h := &oauthHandler{label: label, resource: resource, opts: o, warn: warn}
	if cfg != nil {
		h.cfg = *cfg
	}
	if h.opts.HTTPClient == nil {
		h.opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	return h
}

// TokenSource implements auth.OAuthHandler: the stored grant's, loaded once, refreshed when due.
func (h *oauthHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		h.loaded = true
		if h.opts.Tokens != nil {
			g, err := h.opts.Tokens.Load(h.resource)
			if err != nil {
				return nil, fmt.Errorf("MCP server %s: %w", h.label, err)
			}
			if g != nil {
				h.ts = h.saving(g.config(), g.Token)
			}
		}
	}
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

// signedInNow reports whether a sign-in completed in this connection.
func (h *oauthHandler) signedInNow() bool {
	h.signMu.Lock()
	defer h.signMu.Unlock()
	return h.signedIn
}

// hasGrant reports whether a stored grant was found (or made) for the server.
func (h *oauthHandler) hasGrant() bool {
	ts, _ := h.TokenSource(context.Background())
	return ts != nil
}

// signInFailed is a sign-in that could not be made: its message is one line that names the
// server, said as it is.
type signInFailed struct{ err error }

func (e *signInFailed) Error() string { return termsafe.Line(e.err.Error()) }
func (e *signInFailed) Unwrap() error { return e.err }

// Authorize implements auth.OAuthHandler: a 401, or a 403 for want of scope, runs the sign-in
// where one can be run and says which command signs in where it cannot.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := h.authorize(ctx, req, resp)
	if _, ok := authError(err); err != nil && !ok {
		err = &signInFailed{err}
	}
	return err
}

func (h *oauthHandler) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	body := resp.Body
	defer body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<16))
	resp.Body = io.NopCloser(strings.NewReader(""))
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && challengeParam(challenges, "error") != "insufficient_scope" {
		// Forbidden for another reason: no sign-in changes that; the request fails as it is.
		return nil
	}
	h.signMu.Lock()
	defer h.signMu.Unlock()
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if cur := h.current(); cur != "" && cur != sent {
		// Another request signed in meanwhile: retry with its token.
		return nil
	}
	if h.opts.SignIn == nil {
		return &SignInRequiredError{Server: h.label, StepUp: resp.StatusCode == http.StatusForbidden, Refused: sent != "" && resp.StatusCode == http.StatusUnauthorized}
	}
	if r := h.refusal(); r != nil && *r == *refusalOf(h.label, resp.StatusCode, challenges) {
		// The server wants what a sign-in just made was refused: another would be refused too.
		return r
	}
	h.attempts++
	if h.attempts > maxSignIns {
		return fmt.Errorf("MCP server %s still refuses after %d sign-ins; giving up", h.label, maxSignIns)
	}
	prm, err := h.resourceMetadata(ctx, challenges, req.URL.String())
	if err != nil {
		return err
	}
	code, err := h.codeHandler(!prm)
	if err != nil {
		return err
	}
	if err := code.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("signing in to MCP server %s: %s", h.label, termsafe.Line(err.Error()))
	}
	ts, err := code.TokenSource(ctx)
	if err != nil || ts == nil {
		return fmt.Errorf("signing in to MCP server %s: no token", h.label)
	}
	tok, err := ts.Token()
	if err != nil || tok == nil {
		return fmt.Errorf("signing in to MCP server %s: no token", h.label)
	}
	h.mu.Lock()
	h.ts, h.loaded, h.fresh = ts, true, tok.AccessToken
	h.mu.Unlock()
	h.signedIn = true
	return nil
}

// current is the access token in use, "" when there is none or it cannot be had.
func (h *oauthHandler) current() string {
	h.mu.Lock()
	ts := h.ts
	h.mu.Unlock()
	if ts == nil {
		return ""
	}
	t, err := ts.Token()
	if err != nil || t == nil {
		return ""
	}
	return t.AccessToken
}

// watch is the transport of the server's requests: the first answer to a request carrying
// the token a sign-in just gave is that sign-in's verdict. The SDK sends the request again once
// after a sign-in and reports a second refusal as its bare status ("Forbidden"); here it becomes
// an AccessRefusedError that says what the server wants.
func (h *oauthHandler) watch(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if err != nil || r.Method != http.MethodPost || tok == "" || !h.takeFresh(tok) ||
			(resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
			return resp, err
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
		e := refusalOf(h.label, resp.StatusCode, challenges)
		h.mu.Lock()
		h.refused = e
		h.mu.Unlock()
		return nil, e
	})
}

// refusalOf is a refusal as it is told: the server's error code and scope, cleaned.
func refusalOf(label string, status int, challenges []oauthex.Challenge) *AccessRefusedError {
	return &AccessRefusedError{Server: label, Status: status,
		Code: challengeCode(challengeParam(challenges, "error")), Scope: termsafe.Line(format.Truncate(challengeParam(challenges, "scope"), 120, "..."))}
}

// refusal is how the server refused the token of the last sign-in, nil when it did not.
func (h *oauthHandler) refusal() *AccessRefusedError {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// takeFresh reports whether tok is the token a sign-in just gave, and forgets it.
func (h *oauthHandler) takeFresh(tok string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fresh == "" || h.fresh != tok {
		return false
	}
	h.fresh = ""
	return true
}

// challengeCode is an OAuth error code as a server sent it, kept only when it looks like one.
func challengeCode(s string) string {
	if len(s) > 64 {
		return ""
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return s
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if v := c.Params[name]; v != "" {
			return v
		}
	}
	return ""
}

// codeHandler is the SDK's authorization-code handler, made at the first sign-in with the
// loopback redirect it needs; it stays for the connection, so a step-up asks for the scopes
// granted before and the new ones together. legacy: the server publishes no protected-resource
// metadata (the 2025-03-26 revision), and the metadata at its origin's root is read as that
// revision means it (legacyMetadata).
func (h *oauthHandler) codeHandler(legacy bool) (*auth.AuthorizationCodeHandler, error) {
	if h.code != nil {
		return h.code, nil
	}
	client := h.opts.HTTPClient
	rt := client.Transport
	if legacy {
		var err error
		if rt, err = newLegacyMetadata(h.resource, rt); err != nil {
			return nil, fmt.Errorf("signing in to MCP server %s: %w", h.label, err)
		}
	}
	// The authorization server's metadata is checked before the SDK uses it (oauthguard.go).
	guard := newMetadataGuard(h.label, rt)
	if h.cfg.ClientMetadataURL != "" {
		guard.pinned = h.cfg.Issuer
	}
	client = &http.Client{Transport: guard, Timeout: client.Timeout, CheckRedirect: client.CheckRedirect}
	lb, err := listenLoopback()
	if err != nil {
		return nil, fmt.Errorf("signing in to MCP server %s: %w", h.label, err)
	}
	c := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              lb.url,
		AuthorizationCodeFetcher: h.fetcher(lb),
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{lb.url}, ClientName: "alertchat",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		// RFC 9207: an "iss" in the redirect is compared with the issuer whether or not the
		// server advertises it; one that matches is taken, one that differs refused.
		AcceptUnadvertisedIss: true,
		Client:                client,
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			if err := h.save(cfg, tok); err != nil {
				return nil, err
			}
			return h.saving(cfg, tok), nil
		},
	}
	if h.cfg.ClientMetadataURL != "" {
		c.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.cfg.ClientMetadataURL}
	}
	if h.cfg.ClientID != "" {
		c.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.cfg.ClientID, Issuer: h.cfg.Issuer}
		if h.cfg.ClientSecret != "" {
			c.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.cfg.ClientSecret}
		}
	}
	if extra := h.cfg.Scopes; len(extra) > 0 {
		c.ScopeFilter = func(discovered []string) []string {
			out := slices.Clone(discovered)
			for _, s := range extra {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	code, err := auth.NewAuthorizationCodeHandler(c)
	if err != nil {
		lb.close()
		return nil, fmt.Errorf("signing in to MCP server %s: %w", h.label, err)
	}
	h.code, h.redirect = code, lb
	return code, nil
}

// fetcher opens the authorization URL and waits for the browser's redirect to the loopback.
func (h *oauthHandler) fetcher(lb *loopback) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		if !openableAuthURL(args.URL) {
			return nil, fmt.Errorf("the sign-in page %s is not an https URL; not opened", shown(args.URL))
		}
		u, _ := url.Parse(args.URL)
		lb.expect(u.Query().Get("state"))
		if err := h.opts.SignIn.Open(ctx, args.URL); err != nil {
			return nil, fmt.Errorf("opening the sign-in page: %w", err)
		}
		wait := h.opts.SignIn.Wait
		if wait <= 0 {
			wait = 5 * time.Minute
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case r := <-lb.results:
			if r.err != "" {
				return nil, fmt.Errorf("the authorization server refused: %s", r.err)
			}
			if r.iss == "" && needsIss(h.cfg, u.Query().Get("client_id")) {
				return nil, errNoIssuer
			}
			return &auth.AuthorizationResult{Code: r.code, State: r.state, Iss: r.iss}, nil
		case <-t.C:
			return nil, fmt.Errorf("no sign-in within %s", wait)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// save keeps the grant a sign-in made.
func (h *oauthHandler) save(cfg *oauth2.Config, tok *oauth2.Token) error {
	if h.opts.Tokens == nil {
		return nil
	}
	g := &Grant{Resource: h.resource, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: cfg.Scopes, Token: tok}
	if err := h.opts.Tokens.Save(g); err != nil {
		return fmt.Errorf("keeping the sign-in of MCP server %s: %w", h.label, err)
	}
	return nil
}

// saving is cfg's token source from tok, refreshed when due (oauth2's), each new token kept.
func (h *oauthHandler) saving(cfg *oauth2.Config, tok *oauth2.Token) oauth2.TokenSource {
	// The refresh outlives any one request: a background context carrying the client.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.opts.HTTPClient)
	return &savingTokenSource{base: cfg.TokenSource(ctx, tok), last: tok.AccessToken, save: func(t *oauth2.Token) {
		// The chat goes on with the new token; a server that rotates its refresh tokens will
		// refuse the old one next time, and the analyst should know why.
		if err := h.save(cfg, t); err != nil && h.warn != nil {
			h.warn(fmt.Sprintf("%s; the next run may need 'alertchat mcp login %s'", termsafe.Line(err.Error()), h.label))
		}
	}}
}

// savingTokenSource keeps each token its base source refreshes.
type savingTokenSource struct {
	base oauth2.TokenSource
	mu   sync.Mutex
	last string
	save func(*oauth2.Token)
}

func (s *savingTokenSource) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.last = t.AccessToken
		s.save(t)
	}
	return t, nil
}

func (h *oauthHandler) close() {
	h.signMu.Lock()
	defer h.signMu.Unlock()
	if h.redirect != nil {
		h.redirect.close()
		h.redirect = nil
	}
}

// loopback receives the authorization server's redirect on 127.0.0.1, a random port. Only a
// redirect carrying the state of the sign-in under way is taken: any other request (a stray
// one, or someone on this machine who read the port and wants the analyst signed in to their
// own account) is answered and ignored, and the sign-in waits on for the right one.
type loopback struct {
	url     string
	srv     *http.Server
	results chan redirectResult

	mu    sync.Mutex
	state string // the state of the sign-in under way, "" when none
}

// expect makes state the one the loopback takes, dropping any result of an earlier flow.
func (lb *loopback) expect(state string) {
	lb.mu.Lock()
	lb.state = state
	lb.mu.Unlock()
	lb.drain()
}

// takes reports whether state is the sign-in's under way.
func (lb *loopback) takes(state string) bool {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.state != "" && subtle.ConstantTimeCompare([]byte(state), []byte(lb.state)) == 1
}

type redirectResult struct{ code, state, iss, err string }

func listenLoopback() (*loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the sign-in redirect: %w", err)
	}
	lb := &loopback{url: "http://" + ln.Addr().String() + "/callback", results: make(chan redirectResult, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !lb.takes(q.Get("state")) {
			http.Error(w, "This is not the sign-in alertchat is waiting for.", http.StatusBadRequest)
			return
		}
		res := redirectResult{code: q.Get("code"), state: q.Get("state"), iss: q.Get("iss")}
		msg := "Signed in. You can close this window and go back to alertchat."
		if e := q.Get("error"); e != "" || res.code == "" {
			if e == "" {
				e = "no authorization code"
			}
			res.err = termsafe.Line(format.Truncate(e+" "+q.Get("error_description"), 200, "..."))
			msg = "Sign-in failed: " + res.err
		}
		// The page goes out before the result: the flow closes the listener once it has the
		// code, and the browser should still show what happened.
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>alertchat</title><p>%s</p>\n", html.EscapeString(msg))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case lb.results <- res:
		default: // the sign-in's redirect came twice: the first is waiting
		}
	})
	lb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = lb.srv.Serve(ln) }()
	return lb, nil
}

// drain drops a result left from an earlier flow.
func (lb *loopback) drain() {
	select {
	case <-lb.results:
	default:
	}
}

// close lets a page being written finish, for a moment, then stops listening.
func (lb *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if lb.srv.Shutdown(ctx) != nil {
		_ = lb.srv.Close()
	}
}

// errSignInRequired reports whether err is (or wraps) a sign-in nobody can do here.
func errSignInRequired(err error) (*SignInRequiredError, bool) {
	var e *SignInRequiredError
	ok := errors.As(err, &e)
	return e, ok
}

// authError is the sign-in error err is or wraps (a sign-in nobody can do here, a token refused
// right after its sign-in): its own one line, without the transport's wording around it.
func authError(err error) (error, bool) {
	if e, ok := errSignInRequired(err); ok {
		return e, true
	}
	var r *AccessRefusedError
	if errors.As(err, &r) {
		return r, true
	}
	var f *signInFailed
	if errors.As(err, &f) {
		return f, true
	}
	var n *NoAuthError
	if errors.As(err, &n) {
		return n, true
	}
	return nil, false
}
