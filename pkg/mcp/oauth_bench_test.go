package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/alertchat/alertchat/pkg/mcp"
)

// signedInServer is an HTTP MCP server that takes the bearer token "t1" (or anything when
// open), and a file token store holding that token for it, valid for an hour.
func signedInServer(b *testing.B, open bool) (url string, store mcp.TokenStore) {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !open && r.Header.Get("Authorization") != "Bearer t1" {
			w.Header().Set("WWW-Authenticate", `Bearer`)
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	s := &mcp.Tokens{Dir: b.TempDir()}
	if err := s.Save(&mcp.Grant{Resource: srv.URL + "/mcp", ClientID: "c", TokenURL: srv.URL + "/token",
		Token: &oauth2.Token{AccessToken: "t1", RefreshToken: "r1", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		b.Fatal(err)
	}
	return srv.URL + "/mcp", s
}

// A call to an HTTP server: plain, and signed in with OAuth (the token from the store once,
// then from memory, refreshed only when due). The goal: signed-in adds under 2 ms.
func BenchmarkHTTPCall(b *testing.B) {
	for _, bc := range []struct {
		name string
		auth string
	}{{"plain", ""}, {"signed-in", mcp.AuthOAuth}} {
		b.Run(bc.name, func(b *testing.B) {
			url, store := signedInServer(b, bc.auth == "")
			m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{"siem": {HTTPURL: url, Auth: bc.auth}}},
				mcp.Options{Auth: mcp.AuthOptions{Tokens: store}})
			defer m.Close()
			reg := registry(b, m.Tools(context.Background(), 20*time.Second))
			args := map[string]any{"text": "203.0.113.7"}
			ctx := context.Background()
			for b.Loop() {
				if res := reg.Call(ctx, "mcp_siem_echo", args); res["content"] == nil {
					b.Fatalf("echo: %v", res)
				}
			}
		})
	}
}

// Starting a chat with three remote servers signed in, against none: start-ms is how long the
// chat is kept from its prompt (the goal: no longer than with none).
func BenchmarkStartThreeSignedIn(b *testing.B) {
	servers := map[string]mcp.ServerConfig{}
	stores := mcp.Tokens{Dir: b.TempDir()}
	for _, n := range []string{"a", "b", "c"} {
		url, s := signedInServer(b, false)
		g, _ := s.Load(url)
		_ = stores.Save(g)
		servers[n] = mcp.ServerConfig{HTTPURL: url, Auth: mcp.AuthOAuth}
	}
	for _, bc := range []struct {
		name    string
		servers map[string]mcp.ServerConfig
	}{{"none", map[string]mcp.ServerConfig{}}, {"three-signed-in", servers}} {
		b.Run(bc.name, func(b *testing.B) {
			var startSum time.Duration
			for b.Loop() {
				t0 := time.Now()
				m := mcp.Start(context.Background(), &mcp.Config{Servers: bc.servers}, mcp.Options{Auth: mcp.AuthOptions{Tokens: &stores}})
				startSum += time.Since(t0)
				if tools := m.Tools(context.Background(), 10*time.Second); len(tools) != 4*len(bc.servers) {
					b.Fatalf("%d tools", len(tools))
				}
				_ = m.Close()
			}
			b.ReportMetric(float64(startSum.Microseconds())/1000/float64(b.N), "start-ms")
		})
	}
}
