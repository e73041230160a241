// Package redact is "alertchat redact": personal data and secrets removed from stdin to
// stdout, for text to share.
package redact

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Options are redact's.
type Options struct {
	IO     *cmdutil.IOStreams
	Config func() cmdutil.Config
	JSONL  bool
}

// NewCmdRedact is "alertchat redact": stdin to stdout, redacted as a history write would be.
func NewCmdRedact(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cli.Command {
	opts := &Options{IO: f.IO, Config: f.Config}
	return &cli.Command{
		Name:  "redact",
		Usage: "redact personal data and secrets from stdin to stdout",
		Description: `Redacts personal data and secrets, as alertchat does before it writes anything: e-mail
addresses, phone numbers, card numbers, national IDs, IP addresses, API keys, passwords and other secrets.
Values are replaced by placeholders such as [REDACTED_EMAIL]. With --jsonl each {"id","text"} line
is redacted on its own.

Examples:
  alertchat redact < notes.txt > clean.txt
  alertchat --redact email,ip redact < notes.txt

Exit status: 2 for an invalid --redact list or a line that is not {"id","text"} JSON.`,
		UsageText: "alertchat redact < notes.txt > clean.txt\nalertchat redact --jsonl   ({\"id\",\"text\"} lines in and out)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "jsonl", Usage: `read {"id":...,"text":...} lines and write them redacted, one per line`, Destination: &opts.JSONL},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), "redact reads stdin"); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return run(opts)
		},
	}
}

// run redacts stdin to stdout with the types of --redact, as it streams.
func run(opts *Options) error {
	types, err := redact.ParseTypes(opts.Config().Redact)
	if err != nil {
		return cmdutil.UsageErrorf("invalid --redact: %v", err)
	}
	r, ios := redact.New(types...), opts.IO
	if opts.JSONL {
		if err := r.RunJSONL(ios.In, ios.Out); err != nil {
			return cmdutil.UsageErrorf("redact --jsonl: %v", err)
		}
		return nil
	}
	// streamed: memory stays bounded however long the input is
	out, flush := io.Writer(ios.Out), func() error { return nil }
	if ios.StdoutTTY {
		// logs may hold escape sequences; a person reads them as text, as everything else shown
		tw := termsafe.NewWriter(ios.Out)
		out, flush = tw, tw.Flush
	}
	w := bufio.NewWriterSize(out, 64<<10)
	counts, err := r.Copy(w, ios.In)
	ferr := w.Flush()
	if ferr == nil {
		ferr = flush()
	}
	if err == nil && ferr != nil {
		err = goerr.Wrap(ferr, "failed to write the redacted text")
	}
	if err != nil {
		return err
	}
	if ios.StderrTTY && len(counts) > 0 {
		var parts []string
		for _, t := range redact.AllTypes() {
			if counts[t] > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", t, counts[t]))
			}
		}
		fmt.Fprintf(ios.ErrOut, "redacted: %s\n", strings.Join(parts, ", "))
	}
	return nil
}
