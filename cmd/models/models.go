// Package models is "alertchat models": the Gemini models the configured credentials can use
// for chat, from the API's own model list, the model alertchat uses marked.
package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/modelcfg"
)

// ModelsOptions are "alertchat models"'s.
type ModelsOptions struct {
	IO     *cmdutil.IOStreams
	Config func() cmdutil.Config
	// Models returns the model list of the credentials (the SDK's Models).
	Models func(ctx context.Context) (modelcfg.Lister, error)
	Output string
}

// modelJSON is one model of "models -o json".
type modelJSON struct {
	Name            string `json:"name"`
	DisplayName     string `json:"display_name"`
	InputTokenLimit int32  `json:"input_token_limit"`
	// Thinking is the API's word on whether the model thinks.
	Thinking bool `json:"thinking"`
	// Default marks the model alertchat uses (--model, else its default).
	Default bool `json:"default"`
}

// NewCmdModels is "alertchat models".
func NewCmdModels(f *factory.Factory, runF func(context.Context, *ModelsOptions) error) *cli.Command {
	opts := &ModelsOptions{IO: f.IO, Config: f.Config, Models: f.Models}
	return &cli.Command{
		Name:  "models",
		Usage: "list the Gemini models the configured credentials can use for chat (the one in use marked)",
		Description: `Lists the Gemini models the configured credentials can use for chat, with their input token
limit and thinking levels; the one in use is marked.

Example:
  alertchat models -o json

Exit status: 1 when the model list cannot be read (credentials, network).`,
		Flags: []cli.Flag{
			cmdutil.StringEnumFlag(&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "output format", Destination: &opts.Output}, "text", "json"),
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			if err := cmdutil.NoArgs(c.Args().Slice(), ""); err != nil {
				return err
			}
			if err := cmdutil.CheckFormat(opts.Output, "text", "json"); err != nil {
				return err
			}
			if runF != nil {
				return runF(ctx, opts)
			}
			return modelsRun(ctx, opts)
		},
	}
}

// modelsRun lists the chat models: JSON, a table on a terminal, tab-separated rows in a pipe.
func modelsRun(ctx context.Context, opts *ModelsOptions) error {
	lister, err := opts.Models(ctx)
	if err != nil {
		return err
	}
	list, err := modelcfg.ChatModels(ctx, lister)
	if err != nil {
		return report.DescribeModelError(err)
	}
	current := strings.TrimPrefix(opts.Config().Model, "models/")
	ios := opts.IO
	found := false
	out := make([]modelJSON, 0, len(list))
	for _, m := range list {
		found = found || m.Name == current
		out = append(out, modelJSON{Name: m.Name, DisplayName: m.DisplayName, InputTokenLimit: m.InputTokenLimit, Thinking: m.Thinking, Default: m.Name == current})
	}
	if !found {
		fmt.Fprintf(ios.ErrOut, "Warning: the model in use, %s, is not among them: set --model or ALERTCHAT_MODEL to one of these.\n", cmdutil.OneLine(current))
	}
	if opts.Output == "json" {
		return cmdutil.PrintJSON(ios.Out, out)
	}
	t := cmdutil.NewTable(ios.Out, ios.StdoutTTY, "NAME", "DISPLAY NAME", "INPUT TOKENS", "THINKING", "DEFAULT").Fit(ios.TermWidth, "DISPLAY NAME")
	for _, m := range out {
		def := ""
		if m.Default {
			def = "*"
			if !ios.StdoutTTY {
				def = "default"
			}
		}
		t.Row(m.Name, m.DisplayName, strconv.Itoa(int(m.InputTokenLimit)), thinking(m), def)
	}
	t.Flush()
	return nil
}

// thinking says how a model thinks: the levels it offers (its own in brackets), a budget, or
// not at all.
func thinking(m modelJSON) string {
	p := modelcfg.For(m.Name)
	switch {
	case p.Kind == modelcfg.Levels && p.Default != "":
		return p.LevelNames() + " (" + strings.ToLower(string(p.Default)) + ")"
	case p.Kind == modelcfg.Budget:
		return "budget"
	case m.Thinking:
		return "yes"
	}
	return "no"
}
