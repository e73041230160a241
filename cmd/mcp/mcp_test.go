package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/mcp"
)

// openServer is a streamable-HTTP MCP server with an echo tool.
func openServer(t *testing.T) string {
	s := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo.\nSecond line.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + string(r.Params.Arguments)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "down"}}}, nil
		})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func testDeps(t *testing.T, config string) (*Deps, *strings.Builder, *strings.Builder) {
	ios, out, errOut := cmdutil.TestIO("", false)
	dir := t.TempDir()
	d := &Deps{IO: ios, Getenv: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": dir, "ALERTCHAT_MCP_TOKEN_STORE": "file"}[k]
	}}
	if config != "" {
		p := filepath.Join(dir, "mcp.json")
		if err := os.WriteFile(p, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		d.MCPConfig = p
	}
	o, e := &strings.Builder{}, &strings.Builder{}
	ios.Out, ios.ErrOut = o, e
	_, _ = out, errOut
	return d, o, e
}

// mcp list, tools and call against a configured server and one given by its URL; bad input
// is a usage error (2), an unknown server or tool "not found" (3), a tool's error a failure.
func TestVerbs(t *testing.T) {
	t.Parallel()
	url := openServer(t) + "/mcp"
	cfg := `{"mcpServers": {"siem": {"httpUrl": "` + url + `", "trust": true}, "gone": {"command": "/nonexistent/server"},
		"sso": {"httpUrl": "` + url + `", "auth": "oauth"}}}`
	ctx := context.Background()

	d, out, _ := testDeps(t, cfg)
	if err := listRun(ctx, &ListOptions{Deps: d, Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var rows []ServerState
	if err := json.Unmarshal([]byte(out.String()), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("list: %v %q", err, out)
	}
	if r := rows[1]; r.Name != "siem" || r.State != "ready" || r.Tools != 2 || !r.Trust || r.Transport != "http" || r.Auth != "none" || r.Error != nil {
		t.Fatalf("siem %+v", r)
	}
	if r := rows[0]; r.Name != "gone" || r.State != "failed" || r.Error == nil || *r.Error == "" {
		t.Fatalf("gone %+v", r)
	}
	// Every element has the README's keys, "error" null for a server that is ready.
	var raw []map[string]any
	if err := json.Unmarshal([]byte(out.String()), &raw); err != nil {
		t.Fatal(err)
	}
	for _, e := range raw {
		keys := slices.Sorted(maps.Keys(e))
		if want := []string{"auth", "error", "name", "signed_in", "state", "tools", "transport", "trust"}; !slices.Equal(keys, want) {
			t.Errorf("%v: keys %v, want %v", e["name"], keys, want)
		}
	}
	if v, ok := raw[1]["error"]; !ok || v != nil {
		t.Errorf("a ready server's error: %v (present %v), want null", v, ok)
	}
	if r := rows[2]; r.Auth != "oauth" || r.SignedIn {
		t.Fatalf("sso %+v", r)
	}

	d, out, _ = testDeps(t, "")
	if err := toolsRun(ctx, &ToolsOptions{Deps: d, Server: url, Output: "text"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "echo") || strings.Contains(out.String(), "Second line") {
		t.Fatalf("tools %q", out)
	}

	d, out, _ = testDeps(t, cfg)
	if err := callRun(ctx, &CallOptions{Deps: d, Server: "siem", Tool: "echo", Args: `{"q": "203.0.113.7"}`, Output: "json"}); err != nil {
		t.Fatal(err)
	}
	var res sdk.CallToolResult
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || !strings.Contains(mcp.ResultText(&res), `"q":"203.0.113.7"`) {
		t.Fatalf("call -o json %v %q", err, out)
	}

	for _, tc := range []struct {
		name string
		o    CallOptions
		code int
	}{
		{"bad JSON", CallOptions{Server: "siem", Tool: "echo", Args: `[1]`}, cmdutil.ExitUsage},
		{"unknown server", CallOptions{Server: "nope", Tool: "echo"}, cmdutil.ExitNotFound},
		{"unknown tool", CallOptions{Server: "siem", Tool: "nope"}, cmdutil.ExitNotFound},
		{"tool error", CallOptions{Server: "siem", Tool: "fail"}, cmdutil.ExitFailure},
		{"an oauth server that does not ask for sign-in", CallOptions{Server: "sso", Tool: "echo"}, cmdutil.ExitOK},
	} {
		d, _, _ := testDeps(t, cfg)
		o := tc.o
		o.Deps, o.Output = d, "text"
		err := callRun(ctx, &o)
		if got := cmdutil.ExitCode(err); got != tc.code {
			t.Errorf("%s: exit %d (%v), want %d", tc.name, got, err, tc.code)
		}
	}
}

// mcp call shows a server's text terminal-safe on a terminal, and as sent elsewhere.
func TestCallTextIsTerminalSafe(t *testing.T) {
	t.Parallel()
	url := openServer(t) + "/mcp"
	for _, tty := range []bool{true, false} {
		d, out, _ := testDeps(t, "")
		d.IO.StdoutTTY = tty
		if err := callRun(context.Background(), &CallOptions{Deps: d, Server: url, Tool: "echo", Args: `{"q": "invoice\u202efdp.exe"}`, Output: "text"}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "\u202e") == tty || !strings.Contains(out.String(), "fdp.exe") {
			t.Errorf("terminal %v: %q", tty, out.String())
		}
	}
}

// login and logout of a server that does not sign in with OAuth say how it gets credentials;
// logout of a URL never signed in to says so.
func TestLoginLogoutMessages(t *testing.T) {
	t.Parallel()
	d, _, errOut := testDeps(t, `{"mcpServers": {"run": {"httpUrl": "https://svc.example/mcp", "auth": "google"}, "plain": {"command": "x"}}}`)
	for _, s := range []string{"run", "plain"} {
		if err := loginRun(context.Background(), &LoginOptions{Deps: d, Server: s}); !cmdutil.IsUsage(err) {
			t.Fatalf("login %s: %v", s, err)
		}
	}
	if err := logoutRun(context.Background(), &LoginOptions{Deps: d, Server: "https://never.example/mcp"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "Not signed in to https://never.example/mcp") {
		t.Fatalf("stderr %q", errOut)
	}
}
