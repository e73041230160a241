package mcp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/alertchat/alertchat/pkg/mcp"
)

// Without an absolute config directory ($XDG_CONFIG_HOME relative, no home), the MCP config and
// the token files are not looked for in the working directory, a folder others may have written.
func TestConfigDirNeverRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll(filepath.Join("rel", "alertchat"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("rel", "alertchat", "mcp.json"), []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", "")
	getenv := func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": "rel", "ALERTCHAT_MCP_TOKEN_STORE": "file"}[k]
	}
	if p := mcp.ConfigPath("", getenv); p != "" {
		t.Fatalf("config %q read from the working directory", p)
	}
	if d := mcp.UserTokens(getenv).(*mcp.Tokens).Dir; d != "" && !filepath.IsAbs(d) {
		t.Fatalf("token directory %q", d)
	}
	// With an absolute one, both are under it.
	abs := t.TempDir()
	getenv = func(k string) string { return map[string]string{"XDG_CONFIG_HOME": abs}[k] }
	if d := mcp.UserTokens(getenv).(*mcp.Tokens).Dir; d != filepath.Join(abs, "alertchat", "mcp-tokens") {
		t.Fatalf("token directory %q", d)
	}
}
