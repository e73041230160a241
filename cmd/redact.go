package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/model"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// historyRedactor adapts the redaction engine to the redaction step every history write goes
// through.
type historyRedactor struct{ r *redact.Redactor }

func (h historyRedactor) RedactContents(cs []*genai.Content) map[string]int {
	return countsMap(h.r.Contents(cs))
}

func (h historyRedactor) RedactString(s string) (string, map[string]int) {
	out, c := h.r.String(s)
	return out, countsMap(c)
}

func countsMap(c redact.Counts) map[string]int {
	if len(c) == 0 {
		return nil
	}
	m := make(map[string]int, len(c))
	for t, n := range c {
		m[string(t)] = n
	}
	return m
}

// redactor builds the engine from --redact.
func (g *globalOptions) redactor() (session.Redactor, error) {
	types, err := redact.ParseTypes(g.Redact)
	if err != nil {
		return nil, usageErrorf("invalid --redact: %v", err)
	}
	return historyRedactor{redact.New(types...)}, nil
}

// warnIfRedactionOff says out loud, before anything is written, that nothing will be redacted.
func (g *globalOptions) warnIfRedactionOff() {
	if types, err := redact.ParseTypes(g.Redact); err == nil && len(types) == 0 {
		fmt.Fprintln(g.io.ErrOut, "Warning: redaction is off (--redact none): personal data and secrets will be stored as typed.")
	}
}

// redactingStore passes every history write through the redaction step, whichever command
// makes it.
type redactingStore struct {
	store.Store
	redactor session.Redactor
}

func (s redactingStore) SaveHistory(ctx context.Context, h *model.History) error {
	session.RedactHistory(s.redactor, h)
	return s.Store.SaveHistory(ctx, h)
}

type redactOptions struct {
	JSONL bool
}

func redactCommand(g *globalOptions) *cli.Command {
	opts := &redactOptions{}
	return &cli.Command{
		Name:      "redact",
		Usage:     "redact personal data and secrets from stdin to stdout",
		UsageText: "alertchat redact < notes.txt > clean.txt\nalertchat redact --jsonl   ({\"id\",\"text\"} lines in and out)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "jsonl", Usage: `read {"id":...,"text":...} lines and write them redacted, one per line`, Destination: &opts.JSONL},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if c.Args().Len() > 0 {
				return usageErrorf("redact reads stdin; unexpected arguments %v", c.Args().Slice())
			}
			types, err := redact.ParseTypes(g.Redact)
			if err != nil {
				return usageErrorf("invalid --redact: %v", err)
			}
			return runRedact(g.io, redact.New(types...), opts)
		},
	}
}

func runRedact(ios *IOStreams, r *redact.Redactor, opts *redactOptions) error {
	if opts.JSONL {
		if err := r.RunJSONL(ios.In, ios.Out); err != nil {
			return goerr.Wrap(errUsage, "redact --jsonl: "+err.Error())
		}
		return nil
	}
	data, err := io.ReadAll(ios.In)
	if err != nil {
		return goerr.Wrap(err, "failed to read stdin")
	}
	out, counts := r.String(string(data))
	if _, err := io.WriteString(ios.Out, out); err != nil {
		return goerr.Wrap(err, "failed to write stdout")
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
