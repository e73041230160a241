package cmd

import (
	"encoding/json"
	"testing"

	"github.com/urfave/cli/v3"
)

// TestEveryFlagHasAnEnvVar walks the whole command tree.
func TestEveryFlagHasAnEnvVar(t *testing.T) {
	root, _ := newRoot(&IOStreams{})
	var walk func(c *cli.Command)
	walk = func(c *cli.Command) {
		for _, f := range c.Flags {
			var keys []string
			switch fl := f.(type) {
			case *cli.StringFlag:
				keys = fl.Sources.EnvKeys()
			case *cli.BoolFlag:
				keys = fl.Sources.EnvKeys()
			case *cli.IntFlag:
				keys = fl.Sources.EnvKeys()
			case *cli.DurationFlag:
				keys = fl.Sources.EnvKeys()
			case *cli.FloatFlag:
				keys = fl.Sources.EnvKeys()
			case *cli.GenericFlag:
				keys = fl.Sources.EnvKeys()
			default:
				t.Errorf("%s --%s: flag type %T not bound to a variable", c.FullName(), f.Names()[0], f)
			}
			if len(keys) == 0 {
				t.Errorf("%s --%s has no ALERTCHAT_ variable", c.FullName(), f.Names()[0])
			}
		}
		for _, sub := range c.Commands {
			walk(sub)
		}
	}
	walk(root)
}

func TestFlagFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	runCLI(t, dir, `{"Title": "one"}`, "alert", "add", "-f", "-")
	runCLI(t, dir, `{"Title": "two"}`, "alert", "add", "-f", "-")
	t.Setenv("ALERTCHAT_LIMIT", "1")
	t.Setenv("ALERTCHAT_OUTPUT", "json")
	out, errOut, code := runCLI(t, dir, "", "alert", "list")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 || len(list) != 1 {
		t.Fatalf("ALERTCHAT_LIMIT/OUTPUT ignored: exit %d, %q, %s", code, out, errOut)
	}
}
