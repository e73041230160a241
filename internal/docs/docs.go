// Package docs writes the command reference (Markdown) and the man pages from the command tree
// itself, as gh's internal/docs does from cobra's: a command's Usage, Description, UsageText and
// flags are the only source, so the manual cannot say what the code does not do.
//
// The output depends on nothing but the tree: no date, no path of this machine, commands and
// flags in the order they are declared. That is what lets a test compare the committed files
// with a fresh generation.
package docs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"github.com/urfave/cli/v3"
)

// Variable is an environment variable that no flag declares (credentials, emulators, the
// terminal), documented beside the flags' own.
type Variable struct {
	Name, Default, Meaning string
}

// Command is one command of the tree with its full name ("alertchat history search").
type Command struct {
	*cli.Command
	Path   []string
	Parent *Command
}

// FullName is the command as typed: "alertchat history search".
func (c *Command) FullName() string { return strings.Join(c.Path, " ") }

// Slug is the command's file name without extension: "alertchat-history-search".
func (c *Command) Slug() string { return strings.Join(c.Path, "-") }

// Commands walks the tree depth first, in declaration order, leaving out hidden commands and
// urfave's own help command.
func Commands(root *cli.Command) []*Command {
	var out []*Command
	var walk func(c *cli.Command, parent *Command)
	walk = func(c *cli.Command, parent *Command) {
		if c.Hidden || c.Name == "help" {
			return
		}
		dc := &Command{Command: c, Parent: parent, Path: []string{c.Name}}
		if parent != nil {
			dc.Path = append(slices.Clone(parent.Path), c.Name)
		}
		out = append(out, dc)
		for _, sub := range c.Commands {
			walk(sub, dc)
		}
	}
	walk(root, nil)
	return out
}

// Flag is what the reference says of one flag.
type Flag struct {
	Names    []string // long name first, as declared
	Type     string   // "string", "int", "duration"; "" for a switch
	Usage    string
	Default  string
	Env      []string
	Values   []string // an enum's allowed values
	Required bool
}

// enum is what cmdutil.EnumFlag offers; read through an interface so that this package needs
// nothing of the command line's own packages.
type enum interface{ EnumValues() []string }

// Flags describes the visible flags of c, in declaration order.
func Flags(c *cli.Command) []Flag {
	var out []Flag
	for _, f := range c.Flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		fl := Flag{Names: f.Names()}
		if d, ok := f.(cli.DocGenerationFlag); ok {
			fl.Usage = d.GetUsage()
			fl.Env = d.GetEnvVars()
			if d.TakesValue() {
				fl.Type = d.TypeName()
			}
			fl.Default = defaultOf(d)
		}
		if r, ok := f.(cli.RequiredFlag); ok {
			fl.Required = r.IsRequired()
		}
		if e, ok := f.(enum); ok {
			fl.Values = e.EnumValues()
		}
		out = append(out, fl)
	}
	return out
}

// defaultOf is a flag's default as help shows it: its DefaultText, else its value, nothing for
// an empty string or a switch that is off.
func defaultOf(d cli.DocGenerationFlag) string {
	if t := d.GetDefaultText(); t != "" {
		return t
	}
	if !d.IsDefaultVisible() {
		return ""
	}
	// A switch that is off by default (a bool flag, or chat's --continue[=auto]) has no default
	// worth printing.
	v := strings.Trim(d.GetValue(), `"`)
	if v == "false" {
		return ""
	}
	return v
}

// Spec is the flag as typed: "--output, -o string".
func (f Flag) Spec() string {
	names := make([]string, len(f.Names))
	for i, n := range f.Names {
		if len(n) == 1 {
			names[i] = "-" + n
		} else {
			names[i] = "--" + n
		}
	}
	s := strings.Join(names, ", ")
	if f.Type != "" {
		s += " " + f.Type
	}
	return s
}

// Synopsis is how the command is typed: its UsageText, else its name with what it takes.
func Synopsis(c *Command) string {
	if c.UsageText != "" {
		return c.UsageText
	}
	s := c.FullName()
	if len(c.Flags) > 0 {
		s += " [options]"
	}
	if len(c.Commands) > 0 {
		s += " command [command options]"
	}
	if c.ArgsUsage != "" {
		s += " " + c.ArgsUsage
	}
	return s
}

// block is a piece of a Description: prose, or lines that were indented (examples), kept as
// they are.
type block struct {
	code  bool
	lines []string
}

// blocks splits a Description into paragraphs of prose and indented example lines.
func blocks(desc string) []block {
	var out []block
	for _, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
		var cur *block
		for _, line := range strings.Split(para, "\n") {
			code := strings.HasPrefix(line, "  ")
			if cur == nil || cur.code != code {
				out = append(out, block{code: code})
				cur = &out[len(out)-1]
			}
			if code {
				line = strings.TrimPrefix(line, "  ")
			}
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// WriteTree writes files (Files, and any page made elsewhere) under dir: dir/reference/*.md and
// dir/man/*.1. What was there before is replaced, so a removed command leaves no page.
func WriteTree(files map[string]string, dir string) error {
	for _, sub := range []string{"reference", "man"} {
		p := filepath.Join(dir, sub)
		if err := os.RemoveAll(p); err != nil {
			return goerr.Wrap(err, "failed to clear the generated pages", goerr.V("dir", p))
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return goerr.Wrap(err, "failed to create the pages' directory", goerr.V("dir", p))
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return goerr.Wrap(err, "failed to write a page", goerr.V("path", p))
		}
	}
	return nil
}

// Files is every generated file by its path under docs/ ("reference/alertchat-chat.md",
// "man/alertchat-chat.1") and its content.
func Files(root *cli.Command, env []Variable) map[string]string {
	cmds := Commands(root)
	files := map[string]string{}
	var b strings.Builder
	for _, c := range cmds {
		b.Reset()
		writeMarkdown(&b, c)
		files["reference/"+c.Slug()+".md"] = b.String()
		b.Reset()
		writeMan(&b, c, env)
		files["man/"+c.Slug()+".1"] = b.String()
	}
	b.Reset()
	writeIndex(&b, cmds)
	files["reference/README.md"] = b.String()
	b.Reset()
	writeEnvironment(&b, cmds, env)
	files["reference/environment.md"] = b.String()
	return files
}

const generatedNote = "<!-- Generated from the command definitions by `make docs` (go run ./internal/cmd/gen-docs). Do not edit. -->\n\n"

func writeIndex(w io.Writer, cmds []*Command) {
	fmt.Fprint(w, generatedNote)
	fmt.Fprint(w, "# Command reference\n\n")
	fmt.Fprint(w, "Every command of alertchat, its flags and their `ALERTCHAT_*` variables, generated from the\n")
	fmt.Fprint(w, "command definitions (the same text as `--help`). The same pages are man pages in `docs/man/`\n")
	fmt.Fprint(w, "(`make install-man`, then `man alertchat-history-search`). Every environment variable, flags'\n")
	fmt.Fprint(w, "and others, is in [environment.md](environment.md).\n\n")
	for _, c := range cmds {
		indent := strings.Repeat("  ", len(c.Path)-1)
		fmt.Fprintf(w, "%s- [`%s`](%s.md): %s\n", indent, c.FullName(), c.Slug(), c.Usage)
	}
}

func writeMarkdown(w io.Writer, c *Command) {
	fmt.Fprint(w, generatedNote)
	fmt.Fprintf(w, "# %s\n\n%s\n\n", c.FullName(), capitalize(c.Usage))
	fmt.Fprintf(w, "```\n%s\n```\n\n", Synopsis(c))
	if c.Description != "" {
		for _, bl := range blocks(c.Description) {
			if bl.code {
				fmt.Fprintf(w, "```sh\n%s\n```\n\n", strings.Join(bl.lines, "\n"))
			} else {
				fmt.Fprintf(w, "%s\n\n", strings.Join(bl.lines, "\n"))
			}
		}
	}
	if subs := visible(c.Commands); len(subs) > 0 {
		fmt.Fprint(w, "## Commands\n\n")
		for _, s := range subs {
			slug := c.Slug() + "-" + s.Name
			fmt.Fprintf(w, "- [`%s %s`](%s.md): %s\n", c.FullName(), s.Name, slug, s.Usage)
		}
		fmt.Fprint(w, "\n")
	}
	if flags := Flags(c.Command); len(flags) > 0 {
		title := "Options"
		if c.Parent == nil {
			title = "Global options (every command takes them)"
		}
		fmt.Fprintf(w, "## %s\n\n", title)
		writeFlagTable(w, flags)
	}
	if c.Parent != nil {
		fmt.Fprint(w, "The [global options](alertchat.md#global-options-every-command-takes-them) apply too.\n\n")
		fmt.Fprintf(w, "See also: [`%s`](%s.md).\n", c.Parent.FullName(), c.Parent.Slug())
	} else {
		fmt.Fprint(w, "`alertchat --version` prints the version; `--help` (`-h`) on any command prints its help.\n\n")
		fmt.Fprint(w, "See also: [environment variables](environment.md), [all commands](README.md).\n")
	}
}

func writeFlagTable(w io.Writer, flags []Flag) {
	fmt.Fprint(w, "| flag | variable | default | meaning |\n|---|---|---|---|\n")
	for _, f := range flags {
		env := ""
		if len(f.Env) > 0 {
			env = "`" + strings.Join(f.Env, "`, `") + "`"
		}
		def := ""
		if f.Default != "" {
			def = "`" + f.Default + "`"
		}
		usage := f.Usage
		if f.Required {
			usage += " (required)"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s |\n", cell(f.Spec()), cell(env), cell(def), cell(usage))
	}
	fmt.Fprint(w, "\n")
}

// writeEnvironment is every variable alertchat reads: the flags' own (with the commands that
// have the flag) and the others.
func writeEnvironment(w io.Writer, cmds []*Command, env []Variable) {
	type row struct {
		flag, def, usage string
		commands         []string
	}
	rows := map[string]*row{}
	var order []string
	for _, c := range cmds {
		for _, f := range Flags(c.Command) {
			for _, v := range f.Env {
				r, ok := rows[v]
				if !ok {
					r = &row{flag: "--" + f.Names[0], def: f.Default, usage: f.Usage}
					rows[v] = r
					order = append(order, v)
				}
				name := "every command"
				if c.Parent != nil {
					name = strings.Join(c.Path[1:], " ")
				}
				r.commands = append(r.commands, name)
			}
		}
	}
	fmt.Fprint(w, generatedNote)
	fmt.Fprint(w, "# Environment variables\n\n")
	fmt.Fprint(w, "The global flags and the defaults of `chat` (and the MCP config of the `mcp` commands) have\n")
	fmt.Fprint(w, "`ALERTCHAT_*` variables; a flag given on the command line wins over its variable. No other\n")
	fmt.Fprint(w, "flag has one, so a variable never changes what another command does and nothing destructive\n")
	fmt.Fprint(w, "comes from the environment. A `.env` file in the working directory is read too, but may not\n")
	fmt.Fprint(w, "set some of them: see [configuration](../configuration.md) and [the threat model](../threat-model.md).\n\n")
	fmt.Fprint(w, "## Variables of flags\n\n")
	fmt.Fprint(w, "| variable | flag | commands | default | meaning |\n|---|---|---|---|---|\n")
	for _, v := range order {
		r := rows[v]
		def := ""
		if r.def != "" {
			def = "`" + r.def + "`"
		}
		fmt.Fprintf(w, "| `%s` | `%s` | %s | %s | %s |\n", v, r.flag, cell(strings.Join(r.commands, ", ")), cell(def), cell(r.usage))
	}
	fmt.Fprint(w, "\n## Other variables\n\n")
	fmt.Fprint(w, "| variable | default | meaning |\n|---|---|---|\n")
	for _, v := range env {
		def := ""
		if v.Default != "" {
			def = "`" + v.Default + "`"
		}
		fmt.Fprintf(w, "| `%s` | %s | %s |\n", v.Name, cell(def), cell(v.Meaning))
	}
}

func visible(cmds []*cli.Command) []*cli.Command {
	var out []*cli.Command
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			out = append(out, c)
		}
	}
	return out
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
