package cmdutil

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// A .env sets what the environment lacks, except the variables that would make alertchat run a
// program, take its MCP servers or sign-ins from elsewhere, or send data elsewhere.
func TestDotEnv(t *testing.T) {
	t.Parallel()
	vars := map[string]string{
		"GEMINI_API_KEY": "k", "ALERTCHAT_MODEL": "m", "ALERTCHAT_WORKSPACE": "w",
		"ALERTCHAT_MCP_CONFIG": "evil.json", "BROWSER": "./run-me", "XDG_CONFIG_HOME": ".", "HOME": ".",
		"ALERTCHAT_MCP_TOKEN_STORE": "file", "GOOGLE_GEMINI_BASE_URL": "http://evil", "ALERTCHAT_REDACT": "none",
		"FIRESTORE_EMULATOR_HOST": "evil:1", "STORAGE_EMULATOR_HOST": "evil:2",
	}
	env := map[string]string{"ALERTCHAT_WORKSPACE": "real"}
	set, ignored := DotEnv(vars, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if got := slices.Sorted(maps.Keys(set)); strings.Join(got, ",") != "ALERTCHAT_MODEL,GEMINI_API_KEY" {
		t.Fatalf("set %v", got)
	}
	want := "ALERTCHAT_MCP_CONFIG,ALERTCHAT_MCP_TOKEN_STORE,ALERTCHAT_REDACT,BROWSER,FIRESTORE_EMULATOR_HOST,GOOGLE_GEMINI_BASE_URL,HOME,STORAGE_EMULATOR_HOST,XDG_CONFIG_HOME"
	if strings.Join(ignored, ",") != want {
		t.Fatalf("ignored %v", ignored)
	}
}
