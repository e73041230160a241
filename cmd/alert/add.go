package alert

import (
	"context"
	"fmt"
	"slices"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/pkg/alert"
	"github.com/alertchat/alertchat/pkg/record"
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
			return AddRun(ctx, opts)
		},
	}
}

// AddRun reads and validates every file before storing any, so a bad file stores nothing;
// re-adding the same JSON returns the same ID.
func AddRun(ctx context.Context, opts *AddOptions) error {
	if n := countStdin(opts.Files); n > 1 {
		return cmdutil.UsageErrorf("stdin (-) can be read only once")
	}
	alerts, err := ParseFiles(opts.IO, opts.Files)
	if err != nil {
		return err
	}
	s, err := opts.OpenStore(ctx, factory.StoreOptions{})
	if err != nil {
		return err
	}
	defer s.Close()
	for _, a := range alerts {
		if err := Put(ctx, s, a); err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.Out, a.ID)
	}
	return nil
}

func countStdin(files []string) int {
	return len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" }))
}

// ParseFiles reads and validates alert files, in order.
func ParseFiles(ios *cmdutil.IOStreams, files []string) ([]*record.Alert, error) {
	out := make([]*record.Alert, 0, len(files))
	for _, path := range files {
		data, err := cmdutil.ReadInput(ios, path, alert.MaxSize)
		if err != nil {
			return nil, err
		}
		a, err := alert.Parse(data)
		if err != nil {
			return nil, goerr.Wrap(err, "cannot add "+cmdutil.InputName(path))
		}
		out = append(out, a)
	}
	return out, nil
}

// Putter is what storing an alert needs.
type Putter interface {
	PutAlert(ctx context.Context, a *record.Alert) (bool, error)
}

// Put stores a parsed alert (a no-op when it is there already).
func Put(ctx context.Context, s Putter, a *record.Alert) error {
	a.CreatedAt = store.Now()
	if _, err := s.PutAlert(ctx, a); err != nil {
		return goerr.Wrap(err, "failed to store alert", goerr.V("alert_id", a.ID))
	}
	return nil
}
