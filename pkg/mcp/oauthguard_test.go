package mcp

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// countingServer is an httptest server that counts the requests it gets and answers with h.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func prmJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"resource": "https://mcp.example/mcp"}`))
}

// TestMetadataFetchStaysOutOfTheNetwork: the resource_metadata a 401 names is fetched without
// reaching a loopback or private address for a server that is not on this machine, and without
// following a redirect to another origin.
func TestMetadataFetchStaysOutOfTheNetwork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	inside, hits := countingServer(t, prmJSON)
	h := newOAuthHandler("siem", "https://mcp.example/mcp", nil, AuthOptions{}, nil)
	if _, ok := h.fetchResource(ctx, inside.URL+"/.well-known/oauth-protected-resource"); ok || hits.Load() != 0 {
		t.Errorf("a server on mcp.example had its metadata fetched from this machine: ok %v, %d requests", ok, hits.Load())
	}

	// A server on this machine may point at this machine, but not be redirected elsewhere.
	elsewhere, elsewhereHits := countingServer(t, prmJSON)
	var mcpSrv *httptest.Server
	mcpSrv, _ = countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, elsewhere.URL+"/prm", http.StatusFound)
		case "/same":
			http.Redirect(w, r, mcpSrv.URL+"/prm", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"resource": "` + mcpSrv.URL + `/mcp"}`))
		}
	})
	h = newOAuthHandler("siem", mcpSrv.URL+"/mcp", nil, AuthOptions{}, nil)
	if _, ok := h.fetchResource(ctx, mcpSrv.URL+"/redirect"); ok || elsewhereHits.Load() != 0 {
		t.Errorf("a redirect to another origin was followed: ok %v, %d requests there", ok, elsewhereHits.Load())
	}
	if res, ok := h.fetchResource(ctx, mcpSrv.URL+"/same"); !ok || res != mcpSrv.URL+"/mcp" {
		t.Errorf("a redirect on the server's own origin: %q %v", res, ok)
	}
	if res, ok := h.fetchResource(ctx, elsewhere.URL+"/prm"); !ok || res == "" {
		t.Errorf("a loopback server's metadata on this machine: %q %v", res, ok)
	}
}

func TestPublicAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ip       string
		loopback bool
		want     bool
	}{
		{"203.0.113.7", false, true}, {"2001:db8::1", false, true}, {"8.8.8.8", false, true},
		{"127.0.0.1", false, false}, {"127.0.0.1", true, true}, {"::1", false, false},
		{"10.0.0.1", false, false}, {"10.0.0.1", true, false}, {"192.168.1.1", false, false}, {"172.16.0.1", false, false},
		{"169.254.169.254", false, false}, {"169.254.169.254", true, false}, {"fe80::1", false, false}, {"fd00::1", false, false},
		{"100.64.0.1", false, false}, {"0.0.0.0", false, false}, {"::ffff:10.0.0.1", false, false}, {"::ffff:169.254.169.254", false, false},
	} {
		if got := publicAddress(net.ParseIP(tc.ip), tc.loopback); got != tc.want {
			t.Errorf("publicAddress(%s, loopback %v) = %v, want %v", tc.ip, tc.loopback, got, tc.want)
		}
	}
}

// TestLoopbackTakesOnlyItsSignIn: a request to the redirect listener with another state (a stray
// one, or someone on this machine signing the analyst in to their own account) is ignored, and
// the sign-in goes on to take the right one.
func TestLoopbackTakesOnlyItsSignIn(t *testing.T) {
	t.Parallel()
	lb, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer lb.close()
	get := func(q string) int {
		resp, err := http.Get(lb.url + "?" + q)
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var redirected sync.WaitGroup
	defer redirected.Wait() // before the listener closes: its pages are asserted on
	h := newOAuthHandler("siem", "https://mcp.example/mcp", nil, AuthOptions{SignIn: &SignIn{Wait: 10 * time.Second, Open: func(_ context.Context, u string) error {
		state := mustQuery(t, u).Get("state")
		redirected.Add(1)
		go func() {
			defer redirected.Done()
			if c := get("code=theirs&state=not-" + state); c != http.StatusBadRequest {
				t.Errorf("a redirect of another state: HTTP %d", c)
			}
			get("error=access_denied&state=other")
			get("code=mine&state=" + url.QueryEscape(state))
		}()
		return nil
	}}}, nil)
	res, err := h.fetcher(lb)(context.Background(), &auth.AuthorizationArgs{URL: "https://idp.example/authorize?client_id=c&state=s%2B1"})
	if err != nil || res.Code != "mine" || res.State != "s+1" {
		t.Fatalf("took %+v, %v; want the redirect of its own state", res, err)
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// TestAuthorizationURLOpenedOnlyIfHTTPS: the sign-in page is opened only when it is https, or
// plain http to this machine.
func TestAuthorizationURLOpenedOnlyIfHTTPS(t *testing.T) {
	t.Parallel()
	lb, err := listenLoopback()
	if err != nil {
		t.Fatal(err)
	}
	defer lb.close()
	for _, tc := range []struct {
		url    string
		opened bool
	}{
		{"file://localhost/etc/passwd?state=s", false},
		{"file:///etc/passwd?state=s", false},
		{"javascript:alert(1)", false},
		{"ms-settings://localhost/?state=s", false},
		{"http://idp.example/authorize?state=s", false},
		{"https://user@idp.example/authorize?state=s", false},
		{"http://127.0.0.1:9/authorize?state=s", true},
		{"https://idp.example/authorize?state=s", true},
	} {
		var opened bool
		h := newOAuthHandler("siem", "https://mcp.example/mcp", nil, AuthOptions{SignIn: &SignIn{Wait: time.Millisecond, Open: func(context.Context, string) error {
			opened = true
			return nil
		}}}, nil)
		_, err := h.fetcher(lb)(context.Background(), &auth.AuthorizationArgs{URL: tc.url})
		if opened != tc.opened || err == nil {
			t.Errorf("%s: opened %v (want %v), %v", tc.url, opened, tc.opened, err)
		}
		if !tc.opened && !strings.Contains(err.Error(), "not an https URL") {
			t.Errorf("%s: %v", tc.url, err)
		}
	}
}

// TestMetadataGuard: authorization-server metadata is taken only from a server the protected
// resource named, with its authorization and token endpoints on its issuer's origin.
func TestMetadataGuard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		named               []string
		issuer, auth, token string
		says                string
	}{
		{"honest", []string{"https://idp.example"}, "https://idp.example", "https://idp.example/authorize", "https://idp.example/token", ""},
		{"honest with a path", []string{"https://idp.example/tenant/"}, "https://idp.example/tenant", "https://idp.example/tenant/authorize", "https://idp.example:443/token", ""},
		{"nothing named (2025-03-26)", nil, "https://mcp.example", "https://mcp.example/authorize", "https://mcp.example/token", ""},
		{"token endpoint elsewhere", []string{"https://idp.example"}, "https://idp.example", "https://idp.example/authorize", "https://evil.example/token", "token endpoint on another origin"},
		{"honest provider's page, own token endpoint", []string{"https://evil.example"}, "https://evil.example", "https://idp.example/authorize", "https://evil.example/token", "authorization endpoint on another origin"},
		{"token endpoint on another port", []string{"https://idp.example"}, "https://idp.example", "https://idp.example/authorize", "https://idp.example:8443/token", "token endpoint on another origin"},
		{"not the named server", []string{"https://idp.example"}, "https://evil.example", "https://evil.example/authorize", "https://evil.example/token", "is not the one its metadata names"},
	} {
		g := newMetadataGuard("siem", nil)
		g.servers = tc.named
		err := g.checkServer(tc.issuer, tc.auth, tc.token)
		if tc.says == "" && err != nil || tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.says)
		}
	}
}
