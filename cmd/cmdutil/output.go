package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/charmbracelet/x/ansi"
	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"

	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/mdstream"
	"github.com/alertchat/alertchat/pkg/termsafe"
)

// PrintJSON writes v as indented JSON, HTML characters unescaped, and every character that is
// not plainly visible (termsafe.Hidden: C1 controls, bidirectional overrides, zero-width and tag
// characters) written as its \uXXXX escape: JSON from a server or a model printed on a terminal
// can neither drive it (U+009B is a CSI) nor reorder or hide what is read. Such characters
// only occur inside JSON strings, where the escape means the same to every parser.
func PrintJSON(w io.Writer, v any) error { return printJSON(w, v, "  ") }

// PrintJSONLine writes v as PrintJSON does, on one line: a line of JSON Lines output.
func PrintJSONLine(w io.Writer, v any) error { return printJSON(w, v, "") }

func printJSON(w io.Writer, v any, indent string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", indent)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return goerr.Wrap(err, "failed to write JSON")
	}
	out := b.Bytes()
	if bytes.ContainsFunc(out, termsafe.Hidden) {
		var e bytes.Buffer
		for _, r := range string(out) {
			if !termsafe.Hidden(r) {
				e.WriteRune(r)
				continue
			}
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&e, "\\u%04x", u)
			}
		}
		out = e.Bytes()
	}
	if _, err := w.Write(out); err != nil {
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
// for a pipe. Columns are aligned by display width (a Japanese character takes two columns),
// and with Fit a table wider than the terminal gives up room in its widest columns, whose
// cells are cut with "…". A pipe gets every cell whole.
type Table struct {
	w      io.Writer
	pretty bool
	rows   [][]string // pretty: the header and the rows, printed by Flush
	header []string   // not pretty: the header, printed only by PipeHeader
	width  int
	cut    []bool           // the columns Fit may cut; nil: any
	focus  map[int][]string // per column, marks that a cut keeps in sight (a search match)
}

// NewTable starts a table; the header is printed only when pretty (or, tab-separated, with
// PipeHeader).
func NewTable(w io.Writer, pretty bool, header ...string) *Table {
	t := &Table{w: w, pretty: pretty}
	if pretty {
		t.rows = append(t.rows, header)
	} else {
		t.header = header
	}
	return t
}

// PipeHeader prints the header as the first tab-separated row of a table that is not pretty,
// when on (a pipe that asked for the column names); a pretty table has its header anyway.
func (t *Table) PipeHeader(on bool) *Table {
	if on && !t.pretty {
		t.Row(slices.Clone(t.header)...)
	}
	return t
}

// Fit keeps a pretty table within width columns (0: no limit): the widest column gives up
// room first, down to minFlexWidth (or its header), then the next widest. With columns named,
// only those are cut (IDs and dates stay whole).
func (t *Table) Fit(width int, columns ...string) *Table {
	t.width = width
	if len(columns) > 0 && len(t.rows) > 0 {
		t.cut = make([]bool, len(t.rows[0]))
		for _, c := range columns {
			if i := slices.Index(t.rows[0], c); i >= 0 {
				t.cut[i] = true
			}
		}
	}
	return t
}

// Focus makes a cut of the column headed column keep the first of marks in sight (the start
// of a search match's highlighting), dropping text before it as well as after.
func (t *Table) Focus(column string, marks ...string) *Table {
	if len(t.rows) > 0 {
		if i := slices.Index(t.rows[0], column); i >= 0 {
			if t.focus == nil {
				t.focus = map[int][]string{}
			}
			t.focus[i] = marks
		}
	}
	return t
}

// minFlexWidth is the narrowest a cut column gets, however narrow the terminal.
const minFlexWidth = 12

// Row adds a row; every cell is kept on one line and free of control characters.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		cells[i] = CleanCell(c)
	}
	if t.pretty {
		t.rows = append(t.rows, cells)
		return
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

// RowStyled adds a row whose cells the caller has made safe (CleanCell) and may have styled
// with SGR sequences, which take no room.
func (t *Table) RowStyled(cells ...string) {
	if t.pretty {
		t.rows = append(t.rows, cells)
		return
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

// Flush prints a pretty table: each column as wide as its widest cell plus two spaces, the
// last column unpadded.
func (t *Table) Flush() {
	if !t.pretty || len(t.rows) == 0 {
		return
	}
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	full := slices.Clone(widths)
	if t.width > 0 {
		t.shrink(widths)
	}
	var b strings.Builder
	for _, r := range t.rows {
		b.Reset()
		for i, c := range r {
			if widths[i] < full[i] && cellWidth(c) > widths[i] {
				c = truncateStyled(keepInSight(c, widths[i], t.focus[i]), widths[i])
			}
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", max(widths[i]+2-cellWidth(c), 0)))
		}
		fmt.Fprintln(t.w, b.String())
	}
	t.rows = nil
}

// shrink narrows the widest columns Fit may cut, a column at a time, until the table fits.
func (t *Table) shrink(widths []int) {
	total := 2 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	floor := make([]int, len(widths))
	for i := range widths {
		floor[i] = min(widths[i], max(minFlexWidth, format.Width(t.rows[0][i])))
	}
	for over := total - t.width; over > 0; over-- {
		widest := -1
		for i, w := range widths {
			if w > floor[i] && (t.cut == nil || (i < len(t.cut) && t.cut[i])) && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return // as narrow as it gets: the terminal wraps the rest
		}
		widths[widest]--
	}
}

// keepInSight drops the start of a cell (for "…") when the first of marks would otherwise
// fall past a third of width, so that a cut to width still shows it.
func keepInSight(c string, width int, marks []string) string {
	at := -1
	for _, m := range marks {
		if i := strings.Index(c, m); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if at < 0 {
		return c
	}
	if before := cellWidth(c[:at]); before > width/3 {
		return ansi.TruncateLeft(c, before-width/3+1, format.Ellipsis)
	}
	return c
}

// truncateStyled cuts a cell to width columns with "…", keeping its SGR styling (a search
// match's highlighting) and ending it so nothing leaks into the next cell.
func truncateStyled(c string, width int) string {
	if !strings.Contains(c, "\x1b") {
		return format.Truncate(c, width, format.Ellipsis)
	}
	out := ansi.Truncate(c, width, format.Ellipsis)
	if cellWidth(out) > width { // a cluster ansi measures otherwise than format.Width
		return format.Truncate(termsafe.StripCSI(c), width, format.Ellipsis)
	}
	return out + "\x1b[0m"
}

// cellWidth is the columns a cell takes: its SGR sequences take none.
func cellWidth(c string) int {
	if strings.Contains(c, "\x1b") {
		c = termsafe.StripCSI(c)
	}
	return format.Width(c)
}

// CleanCell keeps a cell on one line and terminal-safe (termsafe: no control characters,
// escape sequences or bidirectional overrides).
func CleanCell(s string) string {
	return termsafe.String(strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s))
}

// ReadInput reads a file, or stdin for "-", refusing more than max bytes.
func ReadInput(ios *IOStreams, path string, max int64) ([]byte, error) {
	r, err := OpenInput(ios, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, UsageErrorf("cannot read %s: %v", InputName(path), err)
	}
	if int64(len(data)) > max {
		return nil, UsageErrorf("%s is larger than the limit of %d bytes", InputName(path), max)
	}
	return data, nil
}

// OpenInput opens a file, or stdin for "-" (which Close leaves open); a missing file or a
// directory is a usage error.
func OpenInput(ios *IOStreams, path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(ios.In), nil
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, UsageErrorf("cannot read %s: no such file", path)
		}
		return nil, UsageErrorf("cannot read %s: %v", path, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		_ = f.Close()
		return nil, UsageErrorf("cannot read %s: it is a directory", path)
	}
	return f, nil
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
