package cmd

import (
	"strings"

	"github.com/urfave/cli/v3"
)

// bindEnvVars gives every flag of the tree that has no variable of its own the variable
// ALERTCHAT_<NAME> (dashes as underscores), so that every flag can be set from the environment
// or .env, as the command line contract says.
func bindEnvVars(c *cli.Command) {
	for _, f := range c.Flags {
		name := "ALERTCHAT_" + strings.ToUpper(strings.ReplaceAll(f.Names()[0], "-", "_"))
		switch fl := f.(type) {
		case *cli.StringFlag:
			if len(fl.Sources.EnvKeys()) == 0 {
				fl.Sources = cli.EnvVars(name)
			}
		case *cli.BoolFlag:
			if len(fl.Sources.EnvKeys()) == 0 {
				fl.Sources = cli.EnvVars(name)
			}
		case *cli.IntFlag:
			if len(fl.Sources.EnvKeys()) == 0 {
				fl.Sources = cli.EnvVars(name)
			}
		case *cli.DurationFlag:
			if len(fl.Sources.EnvKeys()) == 0 {
				fl.Sources = cli.EnvVars(name)
			}
		case *cli.FloatFlag:
			if len(fl.Sources.EnvKeys()) == 0 {
				fl.Sources = cli.EnvVars(name)
			}
		}
	}
	for _, sub := range c.Commands {
		bindEnvVars(sub)
	}
}
