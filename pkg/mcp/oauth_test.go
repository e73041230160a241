package mcp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/alertchat/alertchat/pkg/mcp"
)

// authServer is an OAuth authorization server and an MCP server behind it, both httptest
// servers: protected-resource metadata, authorization-server metadata, dynamic registration,
// an authorization endpoint that approves at once, PKCE checked at the token endpoint, refresh.
type authServer struct {
	t   *testing.T
	as  *httptest.Server
	mcp *httptest.Server

	// What the tests change: the metadata's lies, the scope a call needs, where the
	// authorization server is.
	issuer     string // "" = the authorization server's own URL
	resource   string // "" = the MCP server's own URL
	alwaysDeny bool   // 403 insufficient_scope to every token
	denyCalls  bool   // 403 insufficient_scope to every tools/call
	// hideMeta: the challenge does not name the protected-resource metadata (it is found at
	// the well-known URL); noPRM: there is none (the 2025-03-26 revision).
	hideMeta, noPRM bool
	// asOnMCP: the authorization server is the MCP server's origin, under /oauth, its metadata
	// at the origin's root (as the TypeScript SDK serves a 2025-03-26 server's).
	asOnMCP bool
	// tokenURL replaces the token endpoint the metadata names.
	tokenURL string
	// issParam, when set, is the RFC 9207 "iss" of the authorization response.
	issParam string
	// namedAS replaces the authorization server the protected-resource metadata names.
	namedAS string
	// cimd: the metadata says client ID metadata documents are supported.
	cimd        bool
	accessTTL   int // expires_in of issued tokens (seconds)
	registered  atomic.Int32
	authorized  atomic.Int32
	refreshed   atomic.Int32
	secretSeen  atomic.Bool // a client secret reached the token endpoint
	mu          sync.Mutex
	valid       map[string]bool
	challenge   string
	resourceArg string
	next        int
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, valid: map[string]bool{}, accessTTL: 3600}
	a.as = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.as.Close)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	a.mcp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.asOnMCP && (strings.HasPrefix(r.URL.Path, "/oauth/") || r.URL.Path == "/.well-known/oauth-authorization-server") {
			a.serveASAt(w, r, a.mcp.URL, "/oauth")
			return
		}
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" && !a.noPRM {
			res := a.resource
			if res == "" {
				res = a.mcp.URL + "/mcp"
			}
			as := a.as.URL
			if a.asOnMCP {
				as = a.mcp.URL
			}
			if a.namedAS != "" {
				as = a.namedAS
			}
			writeJSON(w, map[string]any{"resource": res, "authorization_servers": []string{as}, "scopes_supported": []string{"read"}})
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.valid[tok]
		a.mu.Unlock()
		meta := fmt.Sprintf(`, resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, a.mcp.URL)
		if a.hideMeta || a.noPRM {
			meta = ""
		}
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer scope="read"`+meta)
			http.Error(w, "sign in", http.StatusUnauthorized)
		case a.alwaysDeny || a.denyCalls && isCall(r):
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`+meta)
			http.Error(w, "more scope", http.StatusForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(a.mcp.Close)
	return a
}

func (a *authServer) url() string { return a.mcp.URL + "/mcp" }

// isCall reports whether r posts a tools/call (its body is kept for the handler).
func isCall(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return strings.Contains(string(b), `"method":"tools/call"`)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (a *authServer) serveAS(w http.ResponseWriter, r *http.Request) { a.serveASAt(w, r, a.as.URL, "") }

// serveASAt serves the authorization server at base+prefix, its metadata at the root.
func (a *authServer) serveASAt(w http.ResponseWriter, r *http.Request, base, prefix string) {
	path := r.URL.Path
	if path != "/.well-known/oauth-authorization-server" {
		path = strings.TrimPrefix(path, prefix)
	}
	switch path {
	case "/.well-known/oauth-authorization-server":
		iss := a.issuer
		if iss == "" {
			iss = base + prefix
		}
		tokenURL := a.tokenURL
		if tokenURL == "" {
			tokenURL = base + prefix + "/token"
		}
		writeJSON(w, map[string]any{"issuer": iss, "authorization_endpoint": base + prefix + "/authorize", "token_endpoint": tokenURL,
			"registration_endpoint": base + prefix + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"client_id_metadata_document_supported": a.cimd})
	case "/register":
		a.registered.Add(1)
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "client-1", "redirect_uris": []string{}, "token_endpoint_auth_method": "none"})
	case "/authorize":
		a.authorized.Add(1)
		q := r.URL.Query()
		a.mu.Lock()
		a.challenge, a.resourceArg = q.Get("code_challenge"), q.Get("resource")
		a.mu.Unlock()
		iss := ""
		if a.issParam != "" {
			iss = "&iss=" + url.QueryEscape(a.issParam)
		}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=code-1&state="+url.QueryEscape(q.Get("state"))+iss, http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		if _, secret, ok := r.BasicAuth(); ok && secret != "" || r.Form.Get("client_secret") != "" {
			a.secretSeen.Store(true)
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != a.challenge || r.Form.Get("code") != "code-1" {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		case "refresh_token":
			if r.Form.Get("refresh_token") != "refresh-1" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
				return
			}
			a.refreshed.Add(1)
		}
		a.next++
		tok := fmt.Sprintf("access-%d", a.next)
		a.valid[tok] = true
		writeJSON(w, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": a.accessTTL, "refresh_token": "refresh-1"})
	default:
		http.NotFound(w, r)
	}
}

// browser follows the authorization URL's redirects to the loopback, as a person's browser would.
func browser(opened *atomic.Int32) func(ctx context.Context, u string) error {
	return func(ctx context.Context, u string) error {
		opened.Add(1)
		go func() {
			req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, u, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
}

func fileStore(t *testing.T) (*mcp.Tokens, string) {
	dir := filepath.Join(t.TempDir(), "tokens")
	return &mcp.Tokens{Dir: dir}, dir
}

// signingIn is a sign-in's surroundings: a token store in files under dir, and a browser that
// approves at once and counts how often it was opened.
type signingIn struct {
	dir    string
	opened atomic.Int32
}

// dialSigningIn reaches the server of cfg as 'mcp login' does, signing in where it asks.
func dialSigningIn(t *testing.T, cfg mcp.ServerConfig) (*mcp.Client, *signingIn, error) {
	t.Helper()
	store, dir := fileStore(t)
	s := &signingIn{dir: dir}
	c, err := mcp.Dial(context.Background(), "siem", cfg,
		mcp.Options{Auth: mcp.AuthOptions{Tokens: store, SignIn: &mcp.SignIn{Open: browser(&s.opened), Wait: 20 * time.Second}}})
	return c, s, err
}

// 'mcp login' against an OAuth test server: discovery, registration, PKCE, the resource
// indicator, the token kept in a 0600 file; a chat then uses the stored token without signing
// in, and refreshes it when it is due, keeping the new one.
func TestOAuthSignInThenChat(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t)
	store, dir := fileStore(t)
	var opened atomic.Int32
	ctx := context.Background()
	cfg := mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth}
	c, err := mcp.Dial(ctx, "siem", cfg, mcp.Options{Auth: mcp.AuthOptions{Tokens: store, SignIn: &mcp.SignIn{Open: browser(&opened), Wait: 20 * time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.Tools(ctx)
	if err != nil || len(tools) == 0 || !c.SignedIn() {
		t.Fatalf("tools %d, err %v, signed in %v", len(tools), err, c.SignedIn())
	}
	_ = c.Close()
	if opened.Load() != 1 || a.registered.Load() != 1 || a.resourceArg != a.url() {
		t.Fatalf("opened %d, registered %d, resource %q", opened.Load(), a.registered.Load(), a.resourceArg)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	for _, p := range []string{dir, filepath.Join(dir, files[0].Name())} {
		st, _ := os.Stat(p)
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			t.Fatalf("%s has mode %v", p, perm)
		}
	}

	// A chat: the stored sign-in, no browser, no registration.
	var warnings []string
	m := mcp.Start(ctx, &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": cfg}}, mcp.Options{Auth: mcp.AuthOptions{Tokens: store},
		Warn: func(l string) { warnings = append(warnings, l) }})
	if got := m.Tools(ctx, 20*time.Second); len(got) == 0 {
		t.Fatalf("no tools in the chat; warnings %q", warnings)
	}
	_ = m.Close()

	// The token is due: refreshed once, and the new one kept.
	g, err := store.Load(a.url())
	if err != nil || g == nil {
		t.Fatal(g, err)
	}
	old := g.Token.AccessToken
	g.Token.Expiry = time.Now().Add(-time.Minute)
	if err := store.Save(g); err != nil {
		t.Fatal(err)
	}
	m = mcp.Start(ctx, &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": cfg}}, mcp.Options{Auth: mcp.AuthOptions{Tokens: store}})
	if got := m.Tools(ctx, 20*time.Second); len(got) == 0 {
		t.Fatal("no tools after the refresh")
	}
	_ = m.Close()
	g, _ = store.Load(a.url())
	if a.refreshed.Load() != 1 || g.Token.AccessToken == old || opened.Load() != 1 {
		t.Fatalf("refreshed %d, token still %q: %v, browser opened %d", a.refreshed.Load(), old, g.Token.AccessToken == old, opened.Load())
	}

	// Due again, and the new token cannot be kept: the chat goes on, and says so.
	g.Token.Expiry = time.Now().Add(-time.Minute)
	if err := store.Save(g); err != nil {
		t.Fatal(err)
	}
	warnings = nil
	m = mcp.Start(ctx, &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": cfg}}, mcp.Options{Auth: mcp.AuthOptions{Tokens: failingSaves{store}},
		Warn: func(l string) { warnings = append(warnings, l) }})
	if got := m.Tools(ctx, 20*time.Second); len(got) == 0 {
		t.Fatalf("no tools when the refreshed token cannot be kept; warnings %q", warnings)
	}
	_ = m.Close()
	if !slices.Contains(warnings, "keeping the sign-in of MCP server siem: disk full; the next run may need 'alertchat mcp login siem'") {
		t.Fatalf("warnings %q", warnings)
	}
}

// failingSaves is a token store that can load but no longer save.
type failingSaves struct{ mcp.TokenStore }

func (failingSaves) Save(*mcp.Grant) error { return errors.New("disk full") }

// A chat never signs in: a server that asks for it (no sign-in stored, or one it refuses) is
// one line naming the command that signs in, its tools left out, and nothing is registered or
// opened.
func TestChatDoesNotSignIn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		stored bool
		says   string
	}{
		{"none stored", false, "MCP server siem needs sign-in: run 'alertchat mcp login siem'; its tools are left out"},
		{"refused", true, "MCP server siem refused the stored sign-in: run 'alertchat mcp login siem'; its tools are left out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			store, _ := fileStore(t)
			if tc.stored {
				_ = store.Save(&mcp.Grant{Resource: a.url(), ClientID: "c", TokenURL: a.as.URL + "/token",
					Token: &oauth2.Token{AccessToken: "revoked-token", Expiry: time.Now().Add(time.Hour)}})
			}
			var warnings []string
			var mu sync.Mutex
			m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": {HTTPURL: a.url(), Auth: mcp.AuthOAuth}}},
				mcp.Options{Auth: mcp.AuthOptions{Tokens: store}, Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() }})
			tools := m.Tools(context.Background(), 20*time.Second)
			_ = m.Close()
			mu.Lock()
			defer mu.Unlock()
			if len(tools) != 0 || len(warnings) != 1 || warnings[0] != tc.says {
				t.Fatalf("tools %d, warnings %q, want %q", len(tools), warnings, tc.says)
			}
			if a.registered.Load() != 0 || a.authorized.Load() != 0 {
				t.Fatalf("registered %d, authorized %d", a.registered.Load(), a.authorized.Load())
			}
			for _, w := range warnings {
				if strings.Contains(w, "revoked-token") {
					t.Fatalf("a token in a warning: %q", w)
				}
			}
		})
	}
}

// A server that lies in its metadata (another issuer, another resource) or never has enough
// scope is refused with one clear line, after a bounded number of sign-ins, and nothing is
// stored. A server that refuses the token of the sign-in it asked for is told as such, once per
// sign-in: calling again does not sign in again for the same want.
func TestOAuthBadServers(t *testing.T) {
	t.Parallel()
	const refused = `MCP server siem refused the token of the sign-in just made (HTTP 403 insufficient_scope): it asks for scope "admin", which the authorization server did not grant; signing in again will not help`
	for _, tc := range []struct {
		name  string
		setup func(a *authServer)
		says  string
		exact bool  // says is the whole message
		max   int32 // authorization requests allowed
	}{
		{"issuer mismatch", func(a *authServer) { a.issuer = "https://idp.example" }, "does not match issuer", false, 0},
		{"resource not its own", func(a *authServer) { a.resource = "https://other.example/mcp" },
			"MCP server siem: its metadata names another resource (https://other.example/mcp), not the server's own URL; refusing to sign in", true, 0},
		{"resource not its own, at the well-known URL", func(a *authServer) { a.resource, a.hideMeta = "https://other.example/mcp", true },
			"MCP server siem: its metadata names another resource (https://other.example/mcp), not the server's own URL; refusing to sign in", true, 0},
		{"step-up loop", func(a *authServer) { a.alwaysDeny = true }, refused, true, 1},
		// One sign-in to connect, one step-up for the call; the second call signs in no more.
		{"step-up loop on calls", func(a *authServer) { a.denyCalls = true }, refused, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			tc.setup(a)
			ctx := context.Background()
			c, run, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth})
			if err == nil {
				if _, err = c.Tools(ctx); err == nil {
					// Called twice: the second call meets the same refusal without a sign-in.
					for range 2 {
						_, err = c.Call(ctx, "echo", map[string]any{"text": "x"})
					}
				}
				_ = c.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") || tc.exact && err.Error() != tc.says {
				t.Fatalf("error %v, want one line saying %q", err, tc.says)
			}
			if n := a.authorized.Load(); n > tc.max {
				t.Fatalf("%d authorization requests, at most %d", n, tc.max)
			}
			if tc.max == 0 {
				if files, _ := os.ReadDir(run.dir); len(files) != 0 {
					t.Fatalf("stored %v", files)
				}
			}
			if strings.Contains(err.Error(), "access-") {
				t.Fatalf("a token in the error: %v", err)
			}
		})
	}
}

// A server of the 2025-03-26 revision (no protected-resource metadata) whose authorization
// server's metadata, at its origin's root, names an issuer with a path (the TypeScript SDK's
// shape): signed in when the issuer and every endpoint are on the server's own origin. The same
// document is refused when an endpoint is elsewhere, and when the server has protected-resource
// metadata (then RFC 8414's issuer check holds as it is).
func TestOAuthLegacyMetadata(t *testing.T) {
	t.Parallel()
	evil := newRecorder(t)
	t.Cleanup(func() {
		if got := evil.saw(); len(got) != 0 {
			t.Errorf("another origin was sent %q", got)
		}
	})
	for _, tc := range []struct {
		name  string
		setup func(a *authServer)
		err   string // "" = signed in
	}{
		{"issuer with a path", func(a *authServer) { a.asOnMCP, a.noPRM = true, true }, ""},
		{"token endpoint on another origin", func(a *authServer) { a.asOnMCP, a.noPRM, a.tokenURL = true, true, evil.URL+"/token" }, "does not match issuer"},
		{"protected-resource metadata present", func(a *authServer) { a.asOnMCP = true }, "does not match issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			tc.setup(a)
			c, _, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth})
			if err == nil {
				_, err = c.Tools(context.Background())
				signedIn := c.SignedIn()
				_ = c.Close()
				if err == nil && !signedIn {
					t.Fatal("listed without a sign-in")
				}
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("not signed in: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want it to say %q", err, tc.err)
			}
			if tc.err == "" && (a.registered.Load() != 1 || a.resourceArg != a.url()) {
				t.Fatalf("registered %d, resource %q", a.registered.Load(), a.resourceArg)
			}
		})
	}
}

// The token store: the keyring when it answers, a 0600 file where it does not; a grant is
// used for the server it was made for only; logout forgets both copies.
func TestTokenStore(t *testing.T) {
	t.Parallel()
	kr := &fakeKeyring{m: map[string]string{}}
	dir := t.TempDir()
	s := &mcp.Tokens{Keyring: kr, Dir: dir}
	g := &mcp.Grant{Resource: "HTTPS://Siem.Example:443/mcp", ClientID: "c", TokenURL: "https://idp/token", Token: &oauth2.Token{AccessToken: "a1"}}
	if err := s.Save(g); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 || len(kr.m) != 1 {
		t.Fatalf("keyring %d, files %d: want the keyring only", len(kr.m), len(files))
	}
	got, err := s.Load("https://siem.example/mcp")
	if err != nil || got == nil || got.Token.AccessToken != "a1" {
		t.Fatalf("load %+v %v", got, err)
	}
	if other, _ := s.Load("https://siem.example/other"); other != nil {
		t.Fatal("a grant for another URL")
	}
	kr.broken = true // the keyring stops answering: the file takes it
	if err := s.Save(g); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("https://siem.example/mcp"); got == nil {
		t.Fatal("not found in the file")
	}
	kr.broken = false
	if found, err := s.Delete("https://siem.example/mcp"); !found || err != nil {
		t.Fatal(found, err)
	}
	if got, _ := s.Load("https://siem.example/mcp"); got != nil || len(kr.m) != 0 {
		t.Fatal("still there after logout")
	}
	if found, _ := s.Delete("https://siem.example/mcp"); found {
		t.Fatal("found twice")
	}
}

type fakeKeyring struct {
	mu     sync.Mutex
	m      map[string]string
	broken bool
}

func (k *fakeKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.broken {
		return "", errors.New("no keyring")
	}
	v, ok := k.m[service+"|"+user]
	if !ok {
		return "", mcp.ErrKeyringNotFound
	}
	return v, nil
}

func (k *fakeKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.broken {
		return errors.New("no keyring")
	}
	k.m[service+"|"+user] = secret
	return nil
}

func (k *fakeKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.m[service+"|"+user]; !ok || k.broken {
		return mcp.ErrKeyringNotFound
	}
	delete(k.m, service+"|"+user)
	return nil
}

// "auth": "google": the token of Application Default Credentials (a fake source here, no
// network) goes with each request to the server: an ID token for the server's URL, or an
// access token for Google's APIs.
func TestGoogleAuth(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var gotAuth string
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		mu.Lock()
		gotAuth = r.Header.Get("Authorization")
		mu.Unlock()
		return testServer()
	}, nil)
	srv := httptest.NewServer(h)
	defer srv.Close()
	var audiences []string
	google := func(_ context.Context, audience string, scopes []string) (oauth2.TokenSource, error) {
		mu.Lock()
		audiences = append(audiences, audience+"|"+strings.Join(scopes, ","))
		mu.Unlock()
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "google-token"}), nil
	}
	c, err := mcp.Dial(context.Background(), "run", mcp.ServerConfig{HTTPURL: srv.URL + "/mcp", Auth: mcp.AuthGoogle}, mcp.Options{Auth: mcp.AuthOptions{Google: google}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	// Google's APIs take an access token; the transport is never reached here.
	_, _ = mcp.Dial(context.Background(), "apis", mcp.ServerConfig{HTTPURL: "http://127.0.0.1:1/mcp", Auth: mcp.AuthGoogle}, mcp.Options{Auth: mcp.AuthOptions{Google: google}})
	mu.Lock()
	defer mu.Unlock()
	if gotAuth != "Bearer google-token" {
		t.Fatalf("Authorization %q", gotAuth)
	}
	if want := "http://127.0.0.1|"; audiences[0] != want {
		t.Fatalf("audiences %q, want %q first", audiences, want)
	}
	// A failing source is one line naming the server.
	_, err = mcp.Dial(context.Background(), "run", mcp.ServerConfig{HTTPURL: srv.URL, Auth: mcp.AuthGoogle}, mcp.Options{Auth: mcp.AuthOptions{
		Google: func(context.Context, string, []string) (oauth2.TokenSource, error) {
			return nil, errors.New("could not find\x1b]0;title\x07 default \u202ecredentials")
		}}})
	// what comes from outside is shown as text: no escape sequence, no bidi override
	if err == nil || !strings.Contains(err.Error(), "no Google credentials (Application Default Credentials): could not find default credentials") {
		t.Fatalf("error %v", err)
	}
}

// ctxTokenSource is a token source as oauth2's user and service-account sources are: it keeps
// the context it was made with and refreshes with it, and its tokens are always due.
type ctxTokenSource struct{ ctx context.Context }

func (s ctxTokenSource) Token() (*oauth2.Token, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	return &oauth2.Token{AccessToken: "fresh", Expiry: time.Now().Add(-time.Minute)}, nil
}

// A Google token refreshed after the server was dialled still comes: the context of the
// start that dialled it (cancelled once the chat's servers are up) is not the source's.
func TestGoogleRefreshAfterStart(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil))
	defer srv.Close()
	start, cancel := context.WithCancel(context.Background())
	c, err := mcp.Dial(start, "run", mcp.ServerConfig{HTTPURL: srv.URL + "/mcp", Auth: mcp.AuthGoogle}, mcp.Options{Auth: mcp.AuthOptions{
		Google: func(ctx context.Context, _ string, _ []string) (oauth2.TokenSource, error) {
			return ctxTokenSource{ctx}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	if _, err := c.Tools(context.Background()); err != nil {
		t.Fatalf("after the start's context ended: %v", err)
	}
}

// A token store whose directory is relative (it would be the working directory's, a folder of
// evidence others wrote) keeps nothing there and reads nothing from there.
func TestTokenStoreRelativeDir(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("tokens", 0o700); err != nil {
		t.Fatal(err)
	}
	s := &mcp.Tokens{Dir: "tokens"}
	g := &mcp.Grant{Resource: "https://siem.example/mcp", ClientID: "c", TokenURL: "https://idp/token", Token: &oauth2.Token{AccessToken: "a1"}}
	if err := s.Save(g); err == nil {
		t.Fatal("saved into a relative directory")
	}
	if files, _ := os.ReadDir("tokens"); len(files) != 0 {
		t.Fatalf("written into the working directory: %v", files)
	}
	// A grant planted there is not read.
	abs, _ := filepath.Abs("tokens")
	if err := (&mcp.Tokens{Dir: abs}).Save(g); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Load(g.Resource); got != nil || err != nil {
		t.Fatalf("read %+v %v from the working directory", got, err)
	}
}

// A pre-registered client pinned to its authorization server ("oauth": {"issuer"}): a server
// that names another authorization server is refused before the client or its secret is sent;
// the one it belongs to gets them.
func TestOAuthPreregisteredIssuer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		issuer func(a *authServer) string
		err    string
	}{
		{"another authorization server", func(*authServer) string { return "https://idp.example" }, "does not match pre-registered credentials issuer"},
		{"its own", func(a *authServer) string { return a.as.URL }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			c, run, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth,
				OAuth: &mcp.OAuthConfig{ClientID: "pre", ClientSecret: "s3cret", Issuer: tc.issuer(a)}})
			if err == nil {
				_ = c.Close()
			}
			if tc.err == "" {
				if err != nil || !a.secretSeen.Load() {
					t.Fatalf("not signed in with the client: %v (secret sent: %v)", err, a.secretSeen.Load())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("error %v, want it to say %q", err, tc.err)
			}
			if a.secretSeen.Load() || a.authorized.Load() != 0 || run.opened.Load() != 0 {
				t.Fatalf("secret sent %v, authorization requests %d, browser opened %d", a.secretSeen.Load(), a.authorized.Load(), run.opened.Load())
			}
		})
	}
}

// In a chat, a call the stored sign-in has too little access for is answered {"error": ...}
// with the command that signs in, said once on the terminal, and nothing signs in or retries.
func TestChatCallNeedingMoreAccess(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t)
	a.denyCalls = true
	cfg := mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth}
	c, run, err := dialSigningIn(t, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	var mu sync.Mutex
	var warnings []string
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": cfg}}, mcp.Options{
		Auth: mcp.AuthOptions{Tokens: &mcp.Tokens{Dir: run.dir}}, Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() }})
	defer m.Close()
	reg := registry(t, m.Tools(context.Background(), 20*time.Second))
	const says = "MCP server siem needs a sign-in with more access: run 'alertchat mcp login siem'"
	for range 2 {
		if res := reg.Call(context.Background(), "mcp_siem_echo", map[string]any{"text": "x"}); res["error"] != says {
			t.Fatalf("answered %v, want the error %q", res, says)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	said := 0
	for _, w := range warnings {
		if strings.Contains(w, "sign-in") {
			said++
		}
	}
	if said != 1 || !slices.Contains(warnings, says) || a.authorized.Load() != 1 || run.opened.Load() != 1 {
		t.Fatalf("warnings %q, authorization requests %d, browser opened %d", warnings, a.authorized.Load(), run.opened.Load())
	}
}

// TestOAuthMixUp: a server whose authorization-server metadata names a token endpoint on another
// origin than its issuer (the code and the PKCE verifier would go there) is refused before the
// browser opens; an RFC 9207 "iss" in the redirect is compared with the issuer, taken when it
// matches even where the server does not advertise it, refused when it differs.
func TestOAuthMixUp(t *testing.T) {
	t.Parallel()
	t.Run("token endpoint elsewhere", func(t *testing.T) {
		t.Parallel()
		var hits atomic.Int32
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		}))
		defer evil.Close()
		a := newAuthServer(t)
		a.tokenURL = evil.URL + "/token"
		_, run, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth})
		if err == nil || !strings.Contains(err.Error(), "token endpoint on another origin") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %v", err)
		}
		if hits.Load() != 0 || a.authorized.Load() != 0 || run.opened.Load() != 0 {
			t.Fatalf("%d requests to the other token endpoint, %d authorizations, browser opened %d times", hits.Load(), a.authorized.Load(), run.opened.Load())
		}
	})
	for _, tc := range []struct {
		name string
		iss  func(a *authServer) string
		says string
	}{
		{"iss matches", func(a *authServer) string { return a.as.URL }, ""},
		{"iss of another server", func(*authServer) string { return "https://idp.example" }, "does not match expected issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			a.issParam = tc.iss(a)
			c, _, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth})
			if err == nil {
				_, err = c.Tools(context.Background())
				_ = c.Close()
			}
			if tc.says == "" && err != nil || tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
				t.Fatalf("error %v, want %q", err, tc.says)
			}
		})
	}
}

// TestOAuthMixUpThroughARedirect: a hostile authorization server whose metadata is all on its own
// origin, but whose authorization endpoint redirects the browser to an honest provider with the
// query unchanged. With a client ID metadata document any provider takes the client, approves,
// and sends the code back without RFC 9207's "iss"; the code and the PKCE verifier would then
// go to the hostile token endpoint. That client ID is used only where the code comes back with
// the issuer's "iss", or with the issuer the configuration names (oauth.issuer).
func TestOAuthMixUpThroughARedirect(t *testing.T) {
	t.Parallel()
	const clientDoc = "https://client.example/alertchat.json"
	for _, tc := range []struct {
		name      string
		hostile   bool
		iss       bool   // the honest provider returns "iss"
		pinned    string // oauth.issuer: "honest", "hostile" or none
		signedIn  bool
		tokenHits int32 // code exchanges at the hostile token endpoint
	}{
		{name: "hostile, no iss", hostile: true},
		{name: "hostile, pinned to the honest issuer", hostile: true, pinned: "honest"},
		{name: "honest, no iss", iss: false},
		{name: "honest, iss", iss: true, signedIn: true},
		{name: "honest, no iss, pinned to it", pinned: "honest", signedIn: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			honest := newAuthServer(t)
			honest.cimd = true
			if tc.iss {
				honest.issParam = honest.as.URL
			}
			var hits atomic.Int32
			var hostile *httptest.Server
			hostile = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/.well-known/oauth-authorization-server":
					writeJSON(w, map[string]any{"issuer": hostile.URL, "authorization_endpoint": hostile.URL + "/authorize",
						"token_endpoint": hostile.URL + "/token", "response_types_supported": []string{"code"},
						"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
						"client_id_metadata_document_supported": true})
				case "/authorize":
					http.Redirect(w, r, honest.as.URL+"/authorize?"+r.URL.RawQuery, http.StatusFound)
				case "/token":
					_ = r.ParseForm()
					if r.Form.Get("code_verifier") != "" {
						hits.Add(1)
					}
					http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				default:
					http.NotFound(w, r)
				}
			}))
			defer hostile.Close()
			if tc.hostile {
				honest.namedAS = hostile.URL
			}
			oc := &mcp.OAuthConfig{ClientMetadataURL: clientDoc}
			switch tc.pinned {
			case "honest":
				oc.Issuer = honest.as.URL
			}
			c, _, err := dialSigningIn(t, mcp.ServerConfig{HTTPURL: honest.url(), Auth: mcp.AuthOAuth, OAuth: oc})
			if err == nil {
				_, err = c.Tools(context.Background())
				_ = c.Close()
			}
			if tc.signedIn != (err == nil) {
				t.Fatalf("signed in %v, want %v: %v", err == nil, tc.signedIn, err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
			if hits.Load() != tc.tokenHits {
				t.Fatalf("the code and verifier went to the hostile token endpoint %d times", hits.Load())
			}
		})
	}
}
