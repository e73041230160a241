package docs

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v3"
)

type enumFlag struct {
	*cli.StringFlag
	values []string
}

func (f *enumFlag) EnumValues() []string { return f.values }

func tree() *cli.Command {
	return &cli.Command{
		Name: "tool", Usage: "does things",
		Description: "A tool.\n\nExamples:\n  tool sub -o json\n  .dangerous-line",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "where", Value: "/home/me", DefaultText: "$HOME", Sources: cli.EnvVars("TOOL_DIR")},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more", Sources: cli.EnvVars("TOOL_VERBOSE")},
		},
		Commands: []*cli.Command{
			{Name: "sub", Usage: "a sub-command", UsageText: "tool sub [-o text|json]", Description: "Sub.\n\nExample:\n  tool sub",
				Flags: []cli.Flag{
					&enumFlag{StringFlag: &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "format: {text|json}"}, values: []string{"text", "json"}},
					&cli.IntFlag{Name: "limit", Value: 20, Usage: "how many", Sources: cli.EnvVars("TOOL_LIMIT")},
					&cli.StringFlag{Name: "id", Usage: "which", Required: true},
				}},
			{Name: "hidden", Hidden: true},
		},
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	root := tree()
	got := Flags(root.Commands[0])
	want := []Flag{
		{Names: []string{"output", "o"}, Type: "string", Usage: "format: {text|json}", Default: "text", Values: []string{"text", "json"}},
		{Names: []string{"limit"}, Type: "int", Usage: "how many", Default: "20", Env: []string{"TOOL_LIMIT"}},
		{Names: []string{"id"}, Type: "string", Usage: "which", Required: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d flags, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if !slices.Equal(g.Names, w.Names) || g.Type != w.Type || g.Usage != w.Usage || g.Default != w.Default ||
			!slices.Equal(g.Env, w.Env) || !slices.Equal(g.Values, w.Values) || g.Required != w.Required {
			t.Errorf("flag %d: got %+v, want %+v", i, g, w)
		}
	}
	// DefaultText wins over the value (a path of the machine that generates), a switch that is off shows none.
	root2 := Flags(root)
	if root2[0].Default != "$HOME" || root2[1].Default != "" || root2[1].Spec() != "--verbose, -v" {
		t.Errorf("root flags: %+v", root2)
	}
}

func TestFiles(t *testing.T) {
	t.Parallel()
	files := Files(tree(), []Variable{{Name: "NO_COLOR", Meaning: "no colour"}})
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"man/tool-sub.1", "man/tool.1", "reference/README.md", "reference/environment.md", "reference/tool-sub.md", "reference/tool.md"}
	if !slices.Equal(names, want) {
		t.Fatalf("files %q, want %q (hidden commands left out)", names, want)
	}
	tests := []struct {
		file     string
		contains []string
	}{
		{"reference/tool-sub.md", []string{"# tool sub\n", "```\ntool sub [-o text|json]\n```", "```sh\ntool sub\n```",
			"| `--output, -o string` |  | `text` | format: {text\\|json} |", "| `--limit int` | `TOOL_LIMIT` | `20` | how many |", "which (required)"}},
		{"reference/tool.md", []string{"```sh\ntool sub -o json\n.dangerous-line\n```", "[`tool sub`](tool-sub.md): a sub-command"}},
		{"reference/environment.md", []string{"| `TOOL_DIR` | `--dir` | every command | `$HOME` | where |", "| `TOOL_LIMIT` | `--limit` | sub | `20` | how many |", "| `NO_COLOR` |  | no colour |"}},
		{"reference/README.md", []string{"- [`tool`](tool.md): does things", "  - [`tool sub`](tool-sub.md): a sub-command"}},
		{"man/tool-sub.1", []string{".TH TOOL\\-SUB 1 ", "tool\\-sub \\- a sub\\-command", "\\fB\\-\\-output\\fR, \\fB\\-o\\fR \\fItext|json\\fR", "Default: 20.", "Environment: \\fBTOOL_LIMIT\\fR.", "\\fBtool\\fR(1)"}},
		// A line that starts with a dot would be a roff request: it is guarded.
		{"man/tool.1", []string{"\\&.dangerous\\-line", ".SH ENVIRONMENT", "\\fBNO_COLOR\\fR", ".SH EXIT STATUS", "\\fBtool\\-sub\\fR(1)"}},
	}
	for _, tc := range tests {
		for _, s := range tc.contains {
			if !strings.Contains(files[tc.file], s) {
				t.Errorf("%s lacks %q:\n%s", tc.file, s, files[tc.file])
			}
		}
	}
}

func TestRoff(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`a-b`, `a\-b`},
		{`C:\path`, `C:\epath`},
		{".TH x\n'quote\nplain", "\\&.TH x\n\\&'quote\nplain"},
	}
	for _, tc := range tests {
		if got := roffLines(tc.in); got != tc.want {
			t.Errorf("roffLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
