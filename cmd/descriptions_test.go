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
