package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/alertchat/alertchat/pkg/termsafe"
)

// Form asks a server's elicitation on the terminal: the server's message, then one line per
// field with its type and default; Enter takes the default (or leaves an optional field out).
// Everything the server wrote is shown terminal-safe. It reads only what the user types.
type Form struct {
	// Out is where the form is written (the terminal's stderr).
	Out io.Writer
	// ReadLine reads one line the user typed after prompt.
	ReadLine func(prompt string) (string, error)
}

// Prompter takes the terminal for one question: nothing is drawn over it while ask runs
// (cmdutil.IOStreams' status line, in the commands).
type Prompter interface {
	Prompt(ask func() error) error
}

// AskForm asks a server's form (an elicitation) on out through p, reading the answers with
// readLine: the status line is taken away as for any question, notices wait until it is
// answered, and no other question is asked meanwhile. A chat and "alertchat mcp call" ask the
// same way.
func AskForm(ctx context.Context, p Prompter, out io.Writer, readLine func(prompt string) (string, error), r ElicitRequest) (a ElicitAnswer, err error) {
	err = p.Prompt(func() (err error) {
		a, err = (&Form{Out: out, ReadLine: readLine}).Elicit(ctx, r)
		return err
	})
	return a, err
}

// maxTries bounds the answers to one field that do not fit it.
const maxTries = 3

// Elicit implements Elicitor.
func (f *Form) Elicit(ctx context.Context, r ElicitRequest) (ElicitAnswer, error) {
	who := "MCP server " + termsafe.Line(r.Server)
	if r.Tool != "" {
		who += " (during " + termsafe.Line(r.Tool) + ")"
	}
	fmt.Fprintf(f.Out, "%s asks for input:\n  %s\n", who, strings.ReplaceAll(termsafe.String(r.Message), "\n", "\n  "))
	fmt.Fprintf(f.Out, "It receives what you type here. Never type a password or a key a server did not need to ask for.\n")
	line, err := f.ReadLine("Answer? [y] fill in, [N] decline, [c] cancel the call ")
	if err != nil || ctx.Err() != nil {
		return ElicitAnswer{Action: "cancel", Asked: true}, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
	case "c", "cancel":
		return ElicitAnswer{Action: "cancel", Asked: true}, nil
	default:
		return ElicitAnswer{Action: "decline", Asked: true}, nil
	}
	content := map[string]any{}
	for _, fd := range r.Fields {
		v, ok, err := f.field(ctx, fd)
		if err != nil {
			return ElicitAnswer{Action: "cancel", Asked: true}, nil
		}
		if ok {
			content[fd.Name] = v
		}
	}
	return ElicitAnswer{Action: "accept", Content: content, Asked: true}, nil
}

// field asks one field; ok is false for an optional field left empty without a default.
func (f *Form) field(ctx context.Context, fd Field) (v any, ok bool, err error) {
	label := fd.Name
	if fd.Title != "" {
		label = fd.Title + " (" + fd.Name + ")"
	}
	if fd.Description != "" {
		label += ": " + fd.Description
	}
	prompt := termsafe.Line(label) + " [" + termsafe.Line(fieldKind(fd)) + "]"
	if fd.Default != nil {
		prompt += " (default " + termsafe.Line(showValue(fd.Default)) + ")"
	}
	for try := 0; try < maxTries; try++ {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		line, err := f.ReadLine(prompt + ": ")
		if err != nil {
			return nil, false, err
		}
		in := strings.TrimSpace(line)
		if in == "" {
			if fd.Default != nil {
				return fd.Default, true, nil
			}
			if !fd.Required {
				return nil, false, nil
			}
			fmt.Fprintln(f.Out, "  This field is required.")
			continue
		}
		v, err := ParseFieldValue(fd, in)
		if err != nil {
			fmt.Fprintf(f.Out, "  %s\n", termsafe.Line(err.Error()))
			continue
		}
		return v, true, nil
	}
	return nil, false, fmt.Errorf("no fitting answer")
}

// fieldKind says what a field takes: its type (y/n for a boolean), format and bounds, or its
// numbered choices, and whether it is required.
func fieldKind(fd Field) string {
	kind := fd.Type
	switch fd.Type {
	case "boolean":
		kind = "y/n"
	case "string":
		if fd.Format != "" {
			kind = fd.Format
		}
		if fd.MinLength != nil || fd.MaxLength != nil {
			kind += ", " + bounds(fd.MinLength, fd.MaxLength, "characters")
		}
	case "number", "integer":
		if fd.Minimum != nil || fd.Maximum != nil {
			lo, hi := "", ""
			if fd.Minimum != nil {
				lo = fmt.Sprintf("%g", *fd.Minimum)
			}
			if fd.Maximum != nil {
				hi = fmt.Sprintf("%g", *fd.Maximum)
			}
			kind += " " + lo + ".." + hi
		}
	}
	if len(fd.Enum) > 0 {
		opts := make([]string, 0, len(fd.Enum))
		for i, e := range fd.Enum {
			name := e
			if i < len(fd.EnumNames) && fd.EnumNames[i] != "" && fd.EnumNames[i] != e {
				name = fd.EnumNames[i] + " = " + e
			}
			opts = append(opts, fmt.Sprintf("%d) %s", i+1, name))
		}
		kind = strings.Join(opts, ", ")
		if fd.Type == "array" {
			kind = "any of " + kind + "; numbers or values separated by commas"
			if fd.MinItems != nil || fd.MaxItems != nil {
				kind += ", " + bounds(fd.MinItems, fd.MaxItems, "choices")
			}
		}
	}
	if fd.Required {
		kind += ", required"
	}
	return kind
}

// bounds says "2 to 5 things", "at least 2 things" or "at most 5 things".
func bounds(lo, hi *int, things string) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d to %d %s", *lo, *hi, things)
	case lo != nil:
		return fmt.Sprintf("at least %d %s", *lo, things)
	}
	return fmt.Sprintf("at most %d %s", *hi, things)
}

// showValue is a default as the form shows it: a list's values joined by commas.
func showValue(v any) string {
	if list, ok := stringList(v); ok {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = e.(string)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}
