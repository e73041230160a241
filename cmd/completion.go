package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Shell completion. `alertchat completion bash|zsh|fish` prints urfave/cli's script; the script
// runs `alertchat ARGS... --generate-shell-completion` on every TAB, and what is printed here,
// one "value:description" a line, is what the shell offers: commands, flags, the values of the
// flags that take one of a few, and alert and history IDs with their titles.
//
// IDs come only from the local store, read-only (local.RecentIDs): a TAB never opens the
// network, never uploads the spool, never creates a database. With the cloud store set, IDs are
// not completed at all: listing them would be a Firestore query with credentials on every TAB
// (hundreds of milliseconds, and traffic the analyst did not ask for), and a local copy of the
// workspace's titles would be a second, unredacted-by-design index of cloud data on disk.

// completionLimit is how many IDs are offered, newest first.
const completionLimit = 200

// completionFlag is the argument the scripts add (urfave/cli's).
const completionFlag = "--generate-shell-completion"

// idArgs are the commands whose positional arguments are IDs, and of what.
var idArgs = map[string]string{
	"alertchat history show":    local.KindHistories,
	"alertchat history rm":      local.KindHistories,
	"alertchat history rename":  local.KindHistories,
	"alertchat history resolve": local.KindHistories,
	"alertchat history reopen":  local.KindHistories,
	"alertchat alert show":      local.KindAlerts,
}

// flagValues are the values of flags that take one of a few and are not enum flags
// (cmdutil.StringEnumFlag, whose values the flag itself gives), by flag name; idFlags the flags
// that take an ID.
var (
	flagValues = map[string][]string{
		"log-level": {"debug", "info", "warn", "error"},
		"redact":    {"all", "none", "email", "phone", "cc", "ssn", "ip", "api_key", "secret", "my_number"},
		"verdict":   {"true_positive", "false_positive", "benign", "escalated", "inconclusive"},
	}
	outputValues = map[string][]string{
		"alertchat history show": {"text", "md", "json"},
	}
	idFlags = map[string]string{"alert": local.KindAlerts, "history": local.KindHistories}
)

// enableCompletion turns on completion for the command tree under root; args are the process's
// arguments (the scripts' request ends with completionFlag).
func enableCompletion(root *cli.Command, cfg *cmdutil.Config, args []string) {
	root.EnableShellCompletion = true
	root.ConfigureShellCompletionCommand = func(c *cli.Command) {
		c.Hidden = false
		c.Usage = "print a shell completion script: bash, zsh or fish"
		c.Commands = slices.DeleteFunc(c.Commands, func(s *cli.Command) bool { return s.Name == "pwsh" })
	}
	var walk func(c *cli.Command, path string)
	walk = func(c *cli.Command, path string) {
		c.ShellComplete = func(ctx context.Context, c *cli.Command) { complete(ctx, c, path, cfg, args) }
		for _, s := range c.Commands {
			walk(s, path+" "+s.Name)
		}
	}
	walk(root, root.Name)
}

// complete prints the candidates for the word after args (the last argument before the
// completion flag is the word before the cursor, or the start of the word being completed
// when it is a flag).
func complete(ctx context.Context, c *cli.Command, path string, cfg *cmdutil.Config, args []string) {
	w := c.Root().Writer
	if n := len(args); n > 0 && args[n-1] == completionFlag {
		args = args[:n-1]
	}
	last := ""
	if len(args) > 1 {
		last = args[len(args)-1]
	}
	if strings.HasPrefix(last, "-") {
		if f := findFlag(c, strings.TrimLeft(last, "-")); f != nil && takesValue(f) {
			flagName := f.Names()[0]
			if kind, ok := idFlags[flagName]; ok {
				printIDs(ctx, w, cfg, kind)
				return
			}
			values := cmdutil.EnumValues(f)
			if values == nil {
				values = flagValues[flagName]
			}
			if values == nil && flagName == "output" {
				values = outputValues[path]
				if values == nil {
					values = []string{"text", "json"}
				}
			}
			for _, v := range values {
				fmt.Fprintln(w, v)
			}
			return
		}
		cli.DefaultCompleteWithFlags(ctx, c)
		return
	}
	if kind, ok := idArgs[path]; ok {
		if path != "alertchat history rename" || c.Args().Len() == 0 {
			printIDs(ctx, w, cfg, kind)
		}
		return
	}
	// Subcommands (urfave's default reads os.Args at the root, not the arguments given).
	for _, s := range c.VisibleCommands() {
		fmt.Fprintf(w, "%s:%s\n", s.Name, s.Usage)
	}
}

// findFlag is the flag of c (or a parent's persistent flag) named name.
func findFlag(c *cli.Command, name string) cli.Flag {
	for _, cur := range c.Lineage() {
		for _, f := range cur.Flags {
			if slices.Contains(f.Names(), name) {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.TakesValue()
	}
	return false
}

// printIDs prints the local store's recent IDs of kind with their titles; nothing on the cloud
// store or on any error (a TAB shows nothing rather than an error).
func printIDs(ctx context.Context, w interface{ Write([]byte) (int, error) }, cfg *cmdutil.Config, kind string) {
	if cfg.FirestoreProject != "" || cfg.Bucket != "" {
		return
	}
	ids, err := local.RecentIDs(ctx, cfg.DataDir, cfg.Workspace, kind, completionLimit)
	if err != nil {
		return
	}
	for _, it := range ids {
		title := format.Truncate(termsafe.Line(it.Title), 60, format.Ellipsis)
		if title == "" {
			fmt.Fprintln(w, it.ID)
			continue
		}
		// ":" separates the value from its description in every script.
		fmt.Fprintf(w, "%s:%s\n", it.ID, title)
	}
}
