package cmd

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// Every command is its own manual page: it says what it does (Usage, Description) and shows
// an example, so help, the reference in docs/reference/ and the man pages are never empty.
func TestEveryCommandIsDescribed(t *testing.T) {
	t.Parallel()
	root, _ := newRoot(&cmdutil.IOStreams{}, RunOptions{Getenv: func(string) string { return "" }})
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		if c.Hidden || c.Name == "help" {
			return
		}
		switch {
		case c.Usage == "":
			t.Errorf("%s has no Usage", path)
		case c.Description == "":
			t.Errorf("%s has no Description", path)
		case !strings.Contains(c.Description, "Example"):
			t.Errorf("%s's Description shows no example", path)
		}
		for _, sub := range c.Commands {
			walk(sub, path+" "+sub.Name)
		}
	}
	walk(root, root.Name)
}

// The flags that take one of a fixed set of words are enum flags, so help, the reference and
// completion name their values (cmdutil.StringEnumFlag).
func TestEnumFlagsNameTheirValues(t *testing.T) {
	t.Parallel()
	enums := map[string]bool{"output": true, "verdict": true, "elicit": true, "thinking": true, "log-level": true, "severity": true}
	root, _ := newRoot(&cmdutil.IOStreams{}, RunOptions{Getenv: func(string) string { return "" }})
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		for _, f := range c.Flags {
			name := f.Names()[0]
			if !enums[name] {
				continue
			}
			values := cmdutil.EnumValues(f)
			if len(values) == 0 {
				t.Errorf("%s --%s is not an enum flag: declare it with cmdutil.StringEnumFlag", path, name)
				continue
			}
			if d, ok := f.(cli.DocGenerationFlag); ok && !strings.Contains(d.GetUsage(), cmdutil.FormatValues(values)) {
				t.Errorf("%s --%s: help does not name %v", path, name, values)
			}
		}
		for _, sub := range c.Commands {
			walk(sub, path+" "+sub.Name)
		}
	}
	walk(root, root.Name)
}
