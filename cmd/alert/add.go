package alert

import (
	"context"
	"fmt"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/store"
)

// AddOptions are "alert add"'s.
type AddOptions struct {
	IO        *cmdutil.IOStreams
	OpenStore openStore
	// Files are the alert files in order; "-" is stdin.
	Files []string
}

// NewCmdAdd is "alertchat alert add -f FILE [FILE...]". runF replaces the work (tests).
func NewCmdAdd(f *factory.Factory, runF func(context.Context, *AddOptions) error) *cli.Command {
	opts := &AddOptions{IO: f.IO, OpenStore: f.OpenStore}
	var first string
	return &cli.Command{
		Name:      "add",
		Usage:     "store alerts (JSON objects or arrays) and print their IDs, one a line, in order",
		UsageText: "alertchat alert add -f FILE [FILE...]   (-f - reads stdin; a shell glob gives several files)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "alert JSON file, - for stdin; more files may follow as arguments", Required: true, Destination: &first},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			opts.Files = append([]string{first}, c.Args().Slice()...)
			if runF != nil {
				return runF(ctx, opts)
			}
			return addRun(ctx, opts)
		},
	}
}

// addRun reads and validates every file before storing any, so a bad file stores nothing;
// re-adding the same JSON returns the same ID.
func addRun(ctx context.Context, opts *AddOptions) error {
	if n := countStdin(opts.Files); n > 1 {
		return cmdutil.UsageErrorf("stdin (-) can be read only once")
	}
	alerts, err := factory.ReadAlerts(opts.IO, opts.Files)
	if err != nil {
		return err
	}
	s, err := opts.OpenStore(ctx, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	for _, a := range alerts {
		if err := alert.Put(ctx, s, a, store.Now()); err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.Out, a.ID)
	}
	return nil
}

func countStdin(files []string) int {
	return len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" }))
}
