package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/pkg/mcp"
)

// recorder is a server on another origin that notes the Authorization header of every request.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auths = append(r.auths, req.Header.Get("Authorization")+"|"+req.Header.Get("X-Api-Key"))
		r.mu.Unlock()
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) saw() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

// A server's headers go to its own origin only: a 307 to another origin, or an SSE endpoint
// event naming another origin, is refused, and the other origin never receives the token. The
// server itself still gets its headers, on a same-origin redirect too.
func TestHeadersOnlyToTheServersOrigin(t *testing.T) {
	t.Parallel()
	evil := newRecorder(t)
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	var mu sync.Mutex
	var ownAuth []string
	own := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ownAuth = append(ownAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		switch r.URL.Path {
		case "/elsewhere": // a redirect to another origin
			http.Redirect(w, r, evil.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/moved": // a redirect within the origin
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		case "/sse": // the SSE transport's endpoint event names another origin
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionid=1\n\n", evil.URL)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			mcpHandler.ServeHTTP(w, r)
		}
	}))
	defer own.Close()
	headers := map[string]string{"Authorization": "Bearer secret-token", "X-Api-Key": "k"}
	var warnings []string
	m := mcp.Start(context.Background(), &mcp.Config{Servers: map[string]mcp.ServerConfig{
		"redirected": {HTTPURL: own.URL + "/elsewhere", Headers: headers},
		"sse":        {URL: own.URL + "/sse", Headers: headers},
		"moved":      {HTTPURL: own.URL + "/moved", Headers: headers, Trust: true},
	}}, mcp.Options{Warn: func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() }, StartTimeout: 10 * time.Second})
	tools := m.Tools(context.Background(), 20*time.Second)
	if err := m.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if got := evil.saw(); len(got) != 0 {
		t.Fatalf("another origin received %q", got)
	}
	if len(tools) == 0 {
		t.Fatalf("the server redirecting within its origin is not offered")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range ownAuth {
		if a != "Bearer secret-token" {
			t.Fatalf("the server's own origin got Authorization %q", a)
		}
	}
	joined := strings.Join(warnings, "\n")
	for _, name := range []string{"redirected", "sse"} {
		if !strings.Contains(joined, "MCP server "+name+" did not start") || !strings.Contains(joined, "another origin") {
			t.Errorf("no warning naming %s and the other origin: %q", name, joined)
		}
	}
}
