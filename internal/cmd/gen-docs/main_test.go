package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/docs"
	"github.com/alertchat/alertchat/pkg/modelcfg"
)

// The committed reference and man pages are what the command definitions generate: a flag,
// command or Description changed without `make docs` fails here, naming the files.
func TestCommittedDocsAreCurrent(t *testing.T) {
	t.Parallel()
	want := files()
	root := filepath.Join("..", "..", "..", "docs")
	var stale []string
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(got) != content {
			stale = append(stale, "docs/"+name)
		}
	}
	for _, sub := range []string{"reference", "man"} {
		entries, err := os.ReadDir(filepath.Join(root, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, ok := want[sub+"/"+e.Name()]; !ok {
				stale = append(stale, "docs/"+sub+"/"+e.Name()+" (no such command any more)")
			}
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Fatalf("the generated documentation is stale; run `make docs` (go run ./internal/cmd/gen-docs) and commit the result:\n  %s",
			strings.Join(stale, "\n  "))
	}
}

// Generation writes exactly the files Files names, and a second run over the first leaves the
// same tree (no leftovers of removed commands, nothing that depends on the run).
func TestWriteTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A page of a command that no longer exists must go.
	if err := os.MkdirAll(filepath.Join(dir, "man"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "man", "alertchat-gone.1"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := docs.WriteTree(files(), dir); err != nil {
			t.Fatal(err)
		}
	}
	want := files()
	var got []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got = append(got, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(got)
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("files written:\n%q\nwant:\n%q", got, names)
	}
	for _, must := range []string{"reference/thinking.md", "man/alertchat-history-search.1", "reference/alertchat-history-search.md", "reference/environment.md", "reference/README.md", "man/alertchat.1"} {
		if _, ok := want[must]; !ok {
			t.Errorf("no %s", must)
		}
	}
}

// readsOfVariables are the ways the code reads an environment variable by name: a call of
// os.Getenv or os.LookupEnv (or a getenv or lookup function given in their place), a flag's
// variable (cmdutil.EnvVar adds ALERTCHAT_, cli.EnvVars does not), and a constant that names
// one for such a call.
var readsOfVariables = []struct {
	re     *regexp.Regexp
	prefix string
}{
	{regexp.MustCompile(`(?:Getenv|LookupEnv|getenv|lookup)\("([A-Z][A-Z0-9_]*)"\)`), ""},
	{regexp.MustCompile(`EnvVar\("([A-Z][A-Z0-9_]*)"\)`), "ALERTCHAT_"},
	{regexp.MustCompile(`EnvVars\("([A-Z][A-Z0-9_]*)"[,)]`), ""},
	{regexp.MustCompile(`(?m)^(?:const)?\s*\w+\s*=\s*"((?:ALERTCHAT|GOOGLE|GEMINI|XDG|GCE)_[A-Z0-9_]+)"`), ""},
}

// notListed are variables the code reads that the environment page leaves out, and why.
var notListed = map[string]string{
	"HOME": "the home directory, as every program reads it",
	"PATH": "where programs are found, as every program reads it",
}

// Every variable the shipped code reads by name is on the environment page: a variable added
// to the code without a line in the environment list above fails here, naming it.
func TestEveryVariableIsListed(t *testing.T) {
	t.Parallel()
	page := files()["reference/environment.md"]
	root := filepath.Join("..", "..", "..")
	read := map[string]string{}
	for _, dir := range []string{"cmd", "pkg", "main.go"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, r := range readsOfVariables {
				for _, m := range r.re.FindAllStringSubmatch(string(src), -1) {
					read[r.prefix+m[1]] = p
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(read) < 20 {
		t.Fatalf("only %d variables found in the code: the patterns no longer match how it reads them", len(read))
	}
	var missing []string
	for name, file := range read {
		if _, ok := notListed[name]; !ok && !strings.Contains(page, "| `"+name+"` |") {
			missing = append(missing, name+" (read in "+file+")")
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Fatalf("variables the code reads are not on docs/reference/environment.md; add them to environment in internal/cmd/gen-docs/main.go and run `make docs`:\n  %s",
			strings.Join(missing, "\n  "))
	}
}

// The levels --thinking takes are modelcfg's: its help, its completion and the pages show each
// one, xhigh included.
func TestThinkingLevelsAreModelcfgs(t *testing.T) {
	t.Parallel()
	f := files()
	for _, tc := range []struct {
		file, want string
	}{
		{"reference/environment.md", "{" + strings.Join(modelcfg.LevelValues(), "\\|") + "}"},
		{"reference/alertchat.md", "{" + strings.Join(modelcfg.LevelValues(), "\\|") + "}"},
		{"man/alertchat.1", strings.Join(modelcfg.LevelValues(), "|")},
		{"reference/thinking.md", "`xhigh`"},
		{"reference/thinking.md", "| `gemini-4*` (placed by its name) | low, medium, high, xhigh | high |"},
	} {
		if !strings.Contains(f[tc.file], tc.want) {
			t.Errorf("%s does not show %q", tc.file, tc.want)
		}
	}
}

// mdLink is a Markdown link's target: a path relative to the page, and an optional #anchor.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// The manual has one index, docs/README.md: it links every page of docs/, and its links, the
// README's and the troubleshooting page's reach a page that exists and a heading on it.
func TestManualIndex(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..", "..")
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if name := filepath.Base(p); name != "README.md" && !strings.Contains(string(index), "]("+name) {
			t.Errorf("docs/README.md does not link docs/%s", name)
		}
	}
	for _, page := range []string{"README.md", "docs/README.md", "docs/troubleshooting.md"} {
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(src), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") {
				continue
			}
			file := filepath.Join(root, filepath.Dir(page), target)
			if target == "" {
				file = filepath.Join(root, page)
			}
			content, err := os.ReadFile(file)
			if err != nil {
				if fi, serr := os.Stat(file); serr == nil && fi.IsDir() {
					continue
				}
				t.Errorf("%s links %s, which does not exist", page, m[0])
				continue
			}
			if anchor != "" && !slices.Contains(headingAnchors(string(content)), anchor) {
				t.Errorf("%s links %s: no such heading", page, m[0])
			}
		}
	}
}

// headingAnchors are the anchors GitHub gives a page's headings: lower case, spaces as "-",
// punctuation other than "-" and "_" dropped.
func headingAnchors(md string) []string {
	var out []string
	inCode := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#"))) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
