package docs

import (
	"fmt"
	"io"
	"strings"
)

// writeMan writes c's man page in roff (man(7) macros), section 1. The root's page also holds
// the environment variables and the exit status.
func writeMan(w io.Writer, c *Command, env []Variable) {
	fmt.Fprintln(w, `.\" Generated from the command definitions by make docs (go run ./internal/cmd/gen-docs). Do not edit.`)
	fmt.Fprintf(w, ".TH %s 1 \"\" \"alertchat\" \"alertchat manual\"\n", roff(strings.ToUpper(c.Slug())))
	// No hyphenation and a ragged right edge: flag names and IDs are typed as they are printed.
	fmt.Fprint(w, ".nh\n.ad l\n")
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", roff(c.Slug()), roff(c.Usage))
	fmt.Fprintf(w, ".SH SYNOPSIS\n.nf\n%s\n.fi\n", roffLines(Synopsis(c)))
	if c.Description != "" {
		fmt.Fprint(w, ".SH DESCRIPTION\n")
		for i, bl := range blocks(c.Description) {
			if bl.code {
				fmt.Fprintf(w, ".PP\n.RS 4\n.nf\n%s\n.fi\n.RE\n", roffLines(strings.Join(bl.lines, "\n")))
				continue
			}
			if i > 0 {
				fmt.Fprint(w, ".PP\n")
			}
			fmt.Fprintf(w, "%s\n", roffLines(strings.Join(bl.lines, "\n")))
		}
	}
	if subs := visible(c.Commands); len(subs) > 0 {
		fmt.Fprint(w, ".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(w, ".TP\n\\fB%s\\fR(1)\n%s\n", roff(c.Slug()+"-"+s.Name), roff(s.Usage))
		}
	}
	if flags := Flags(c.Command); len(flags) > 0 {
		if c.Parent == nil {
			fmt.Fprint(w, ".SH GLOBAL OPTIONS\nEvery command takes these.\n")
		} else {
			fmt.Fprint(w, ".SH OPTIONS\n")
		}
		for _, f := range flags {
			fmt.Fprintf(w, ".TP\n%s\n%s", manSpec(f), roff(f.Usage))
			if f.Required {
				fmt.Fprint(w, " (required)")
			}
			fmt.Fprint(w, "\n")
			if f.Default != "" {
				fmt.Fprintf(w, ".br\nDefault: %s.\n", roff(f.Default))
			}
			if len(f.Env) > 0 {
				fmt.Fprintf(w, ".br\nEnvironment: \\fB%s\\fR.\n", roff(strings.Join(f.Env, ", ")))
			}
		}
	}
	if c.Parent != nil {
		fmt.Fprint(w, ".PP\nThe global options of \\fBalertchat\\fR(1) apply too.\n")
	} else {
		fmt.Fprint(w, ".SH ENVIRONMENT\nEach global option above names its variable; these are read as well:\n")
		for _, v := range env {
			fmt.Fprintf(w, ".TP\n\\fB%s\\fR\n%s", roff(v.Name), roff(v.Meaning))
			if v.Default != "" {
				fmt.Fprintf(w, " (default: %s)", roff(v.Default))
			}
			fmt.Fprint(w, "\n")
		}
		fmt.Fprint(w, ".SH EXIT STATUS\n0 success, 1 failure (Gemini, storage), 2 usage or invalid input, 3 not found, 130 interrupted.\n")
	}
	fmt.Fprint(w, ".SH SEE ALSO\n")
	var see []string
	if c.Parent != nil {
		see = append(see, "\\fB"+roff(c.Parent.Slug())+"\\fR(1)")
	}
	for _, s := range visible(c.Commands) {
		see = append(see, "\\fB"+roff(c.Slug()+"-"+s.Name)+"\\fR(1)")
	}
	if c.Parent == nil || len(see) == 0 {
		see = append(see, "the manual in docs/ of the source")
	}
	fmt.Fprintln(w, strings.Join(see, ", "))
}

// manSpec is a flag as typed, in bold, its value's type in italics.
func manSpec(f Flag) string {
	names := make([]string, len(f.Names))
	for i, n := range f.Names {
		dash := "\\-\\-"
		if len(n) == 1 {
			dash = "\\-"
		}
		names[i] = "\\fB" + dash + roff(n) + "\\fR"
	}
	s := strings.Join(names, ", ")
	if len(f.Values) > 0 {
		s += " \\fI" + roff(strings.Join(f.Values, "|")) + "\\fR"
	} else if f.Type != "" {
		s += " \\fI" + roff(f.Type) + "\\fR"
	}
	return s
}

// roff escapes text for roff: backslashes and hyphens (so that they are not typeset as
// hyphenation points or lost in copy and paste).
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLines escapes each line, and guards lines that roff would read as requests (a leading
// dot or apostrophe).
func roffLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = roff(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}
