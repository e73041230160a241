package mcp_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

	// What the tests change: the metadata's lies, the scope a call needs.
	issuer      string // "" = the server's own URL
	resource    string // "" = the MCP server's own URL
	alwaysDeny  bool   // 403 insufficient_scope to every token
	accessTTL   int    // expires_in of issued tokens (seconds)
	registered  atomic.Int32
	authorized  atomic.Int32
	refreshed   atomic.Int32
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
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			res := a.resource
			if res == "" {
				res = a.mcp.URL + "/mcp"
			}
			writeJSON(w, map[string]any{"resource": res, "authorization_servers": []string{a.as.URL}, "scopes_supported": []string{"read"}})
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.valid[tok]
		a.mu.Unlock()
		meta := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, a.mcp.URL)
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer scope="read", `+meta)
			http.Error(w, "sign in", http.StatusUnauthorized)
		case a.alwaysDeny:
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin", `+meta)
			http.Error(w, "more scope", http.StatusForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(a.mcp.Close)
	return a
}

func (a *authServer) url() string { return a.mcp.URL + "/mcp" }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (a *authServer) serveAS(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		iss := a.issuer
		if iss == "" {
			iss = a.as.URL
		}
		writeJSON(w, map[string]any{"issuer": iss, "authorization_endpoint": a.as.URL + "/authorize", "token_endpoint": a.as.URL + "/token",
			"registration_endpoint": a.as.URL + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"}})
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
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=code-1&state="+q.Get("state"), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
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
}

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
// stored.
func TestOAuthBadServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(a *authServer)
		says  string
		max   int32 // authorization requests allowed
	}{
		{"issuer mismatch", func(a *authServer) { a.issuer = "https://idp.example" }, "does not match issuer", 0},
		{"resource not its own", func(a *authServer) { a.resource = "https://other.example/mcp" }, "names another resource (https://other.example/mcp)", 0},
		{"step-up loop", func(a *authServer) { a.alwaysDeny = true }, "Forbidden", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := newAuthServer(t)
			tc.setup(a)
			store, dir := fileStore(t)
			var opened atomic.Int32
			ctx := context.Background()
			c, err := mcp.Dial(ctx, "siem", mcp.ServerConfig{HTTPURL: a.url(), Auth: mcp.AuthOAuth},
				mcp.Options{Auth: mcp.AuthOptions{Tokens: store, SignIn: &mcp.SignIn{Open: browser(&opened), Wait: 20 * time.Second}}})
			if err == nil {
				_, err = c.Tools(ctx)
				for i := 0; i < 5 && err != nil && strings.Contains(err.Error(), "Forbidden"); i++ {
					_, err = c.Call(ctx, "echo", map[string]any{"text": "x"})
				}
				_ = c.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line saying %q", err, tc.says)
			}
			if n := a.authorized.Load(); n > tc.max {
				t.Fatalf("%d authorization requests, at most %d", n, tc.max)
			}
			if tc.max == 0 {
				if files, _ := os.ReadDir(dir); len(files) != 0 {
					t.Fatalf("stored %v", files)
				}
			}
			t.Log(err)
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
			return nil, errors.New("could not find default credentials")
		}}})
	if err == nil || !strings.Contains(err.Error(), "no Google credentials") {
		t.Fatalf("error %v", err)
	}
}
