package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/internal/docs"
)

// The committed reference and man pages are what the command definitions generate: a flag,
// command or Description changed without `make docs` fails here, naming the files.
func TestCommittedDocsAreCurrent(t *testing.T) {
	t.Parallel()
	want := docs.Files(cmd.CommandTree(), environment)
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
		if err := docs.WriteTree(cmd.CommandTree(), environment, dir); err != nil {
			t.Fatal(err)
		}
	}
	want := docs.Files(cmd.CommandTree(), environment)
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
	for _, must := range []string{"man/alertchat-history-search.1", "reference/alertchat-history-search.md", "reference/environment.md", "reference/README.md", "man/alertchat.1"} {
		if _, ok := want[must]; !ok {
			t.Errorf("no %s", must)
		}
	}
}
