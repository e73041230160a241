package mcp

import (
	"os"
	"path/filepath"
)

// ConfigPath is the MCP config of flag (--mcp-config), else $XDG_CONFIG_HOME/alertchat/mcp.json
// when it exists, else "". A chat and "alertchat mcp" find the servers the same way.
func ConfigPath(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	dir := ConfigDir(getenv)
	if dir == "" {
		return ""
	}
	p := filepath.Join(dir, "mcp.json")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// ConfigDir is $XDG_CONFIG_HOME/alertchat, else ~/.config/alertchat; "" when neither is an
// absolute path. A relative one would be the working directory's: a folder of evidence others
// wrote must neither name the MCP servers alertchat runs nor receive its sign-ins (the XDG
// specification ignores relative paths too).
func ConfigDir(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if !filepath.IsAbs(home) {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "alertchat")
}

// UserTokens is where the user's sign-ins are kept: the system keyring, with a 0600 file per
// server under the config directory where there is none (no file where there is no config
// directory). ALERTCHAT_MCP_TOKEN_STORE=file keeps them in the files only (machines whose
// keyring should not be used, and the tests).
func UserTokens(getenv func(string) string) TokenStore {
	t := &Tokens{}
	if dir := ConfigDir(getenv); dir != "" {
		t.Dir = filepath.Join(dir, "mcp-tokens")
	}
	if getenv("ALERTCHAT_MCP_TOKEN_STORE") != "file" {
		t.Keyring = SystemKeyring()
	}
	return t
}
