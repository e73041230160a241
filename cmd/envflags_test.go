package cmd

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// envKeys reads a flag's variables through the interface every urfave flag implements, so
// flags of our own types (cmdutil.EnumFlag) are walked too.
func envKeys(f cli.Flag) []string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.GetEnvVars()
	}
	return nil
}

// TestEnvVarsOnlyForGlobalFlagsAndChatDefaults walks the whole command tree: every global flag
// and every default of chat has its ALERTCHAT_ variable, and no other flag has one, so a
// variable never changes what another command does and nothing destructive comes from the
// environment.
func TestEnvVarsOnlyForGlobalFlagsAndChatDefaults(t *testing.T) {
	t.Parallel()
	root, _ := newRoot(&cmdutil.IOStreams{}, RunOptions{Getenv: func(string) string { return "" }})
	chatDefaults := map[string]bool{"alert": true, "raw": true, "no-title-generation": true, "no-related": true, "continue": true, "judge-model": true, "no-tools": true, "max-tool-calls": true, "max-tool-result": true, "mcp-config": true, "bq-max-bytes": true}
	for _, f := range root.Flags {
		name := f.Names()[0]
		if name == "help" || name == "version" {
			continue
		}
		want := "ALERTCHAT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if keys := envKeys(f); len(keys) != 1 || keys[0] != want {
			t.Errorf("global --%s: variables %v, want [%s]", name, keys, want)
		}
	}
	var walk func(parent string, c *cli.Command)
	walk = func(parent string, c *cli.Command) {
		for _, f := range c.Flags {
			name := f.Names()[0]
			keys := envKeys(f)
			switch {
			case c.Name == "chat" && chatDefaults[name]:
				if len(keys) != 1 {
					t.Errorf("chat --%s: variables %v, want one", name, keys)
				}
			case parent == "mcp" && name == "mcp-config":
				// The contract: the mcp verbs read the same MCP config as chat.
				if len(keys) != 1 || keys[0] != "ALERTCHAT_MCP_CONFIG" {
					t.Errorf("%s --mcp-config: variables %v, want [ALERTCHAT_MCP_CONFIG]", c.FullName(), keys)
				}
			case len(keys) != 0:
				t.Errorf("%s --%s has variables %v: only global flags and chat's defaults may", c.FullName(), name, keys)
			}
		}
		for _, sub := range c.Commands {
			walk(c.Name, sub)
		}
	}
	for _, c := range root.Commands {
		walk("", c)
	}
}
