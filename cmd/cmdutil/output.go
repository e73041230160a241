package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// PrintJSON writes v as indented JSON, HTML characters unescaped.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return goerr.Wrap(err, "failed to write JSON")
	}
	return nil
}

// CheckFormat accepts format when it is one of allowed (the value of -o).
func CheckFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return UsageErrorf("invalid output format %q: use %s", format, strings.Join(allowed, ", "))
}

// NoArgs refuses positional arguments; hint says where the input goes instead (may be "").
func NoArgs(args []string, hint string) error {
	if len(args) == 0 {
		return nil
	}
	if hint != "" {
		return UsageErrorf("unexpected arguments %v (%s)", args, hint)
	}
	return UsageErrorf("unexpected arguments %v", args)
}

// Table prints rows aligned under a header for a terminal, or tab-separated without a header
// for a pipe.
type Table struct {
	w      io.Writer
	pretty bool
	tw     *tabwriter.Writer
}

// NewTable starts a table; the header is printed only when pretty.
func NewTable(w io.Writer, pretty bool, header ...string) *Table {
	t := &Table{w: w, pretty: pretty}
	if pretty {
		t.tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(t.tw, strings.Join(header, "\t"))
	}
	return t
}

// Row adds a row; every cell is kept on one line and free of control characters.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		cells[i] = CleanCell(c)
	}
	line := strings.Join(cells, "\t")
	if t.pretty {
		fmt.Fprintln(t.tw, line)
		return
	}
	fmt.Fprintln(t.w, line)
}

// Flush ends the table.
func (t *Table) Flush() {
	if t.tw != nil {
		_ = t.tw.Flush()
	}
}

// CleanCell keeps a cell on one line and free of control characters.
func CleanCell(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// ReadInput reads a file, or stdin for "-", refusing more than max bytes.
func ReadInput(ios *IOStreams, path string, max int64) ([]byte, error) {
	var r io.Reader
	if path == "-" {
		r = ios.In
	} else {
		f, err := os.Open(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, UsageErrorf("cannot read %s: no such file", path)
			}
			return nil, UsageErrorf("cannot read %s: %v", path, err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, UsageErrorf("cannot read %s: it is a directory", path)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, UsageErrorf("cannot read %s: %v", InputName(path), err)
	}
	if int64(len(data)) > max {
		return nil, UsageErrorf("%s is larger than the limit of %d bytes", InputName(path), max)
	}
	return data, nil
}

// InputName names a path for messages: "stdin" for "-".
func InputName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// OneLine keeps text from storage or the model on one line and free of terminal controls.
func OneLine(s string) string { return termsafe.Line(s) }

// EnvVar is the ALERTCHAT_ variable of a flag. Only global flags and chat's defaults have one:
// a variable never changes what another command does, and nothing destructive comes from the
// environment.
func EnvVar(name string) cli.ValueSourceChain { return cli.EnvVars("ALERTCHAT_" + name) }

// NewMarkdownRenderer renders Markdown for the terminal on ios.Out.
func NewMarkdownRenderer(ios *IOStreams) (*mdstream.Renderer, error) {
	return mdstream.NewRenderer(mdstream.Options{Width: ios.TermWidth, Height: ios.TermHeight})
}
