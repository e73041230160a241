package cmd

import (
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
)

// CommandTree is the whole command tree, for the documentation generator (and anything else
// that reads the definitions without running them). It is built with an empty environment, so
// nothing of this machine shows in it.
func CommandTree() *cli.Command {
	root, _ := newRoot(&cmdutil.IOStreams{}, RunOptions{Getenv: func(string) string { return "" }})
	return root
}
