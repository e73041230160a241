package pager_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/pager"
)

// fakePager is a PAGER that marks what it shows and records its environment's LESS.
func fakePager(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fakepager")
	script := "#!/bin/sh\necho \"PAGED LESS=$LESS\"\ncat\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestShow(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("line\n", 30)
	fake := fakePager(t)
	for _, tc := range []struct {
		name      string
		opts      pager.Options
		text      string
		wantPaged bool
	}{
		{"long on a terminal", pager.Options{TTY: true, Height: 24, Width: 80, Command: fake}, long, true},
		{"long in a pipe", pager.Options{TTY: false, Height: 24, Width: 80, Command: fake}, long, false},
		{"short on a terminal", pager.Options{TTY: true, Height: 24, Width: 80, Command: fake}, "line\nline\n", false},
		{"wrapped lines count", pager.Options{TTY: true, Height: 24, Width: 10, Command: fake}, strings.Repeat("0123456789abcdefghij\n", 12), true},
		{"colours do not count", pager.Options{TTY: true, Height: 24, Width: 10, Command: fake}, strings.Repeat("\x1b[1;38;5;252mshort\x1b[0m\n", 12), false},
		{"unknown height", pager.Options{TTY: true, Command: fake}, long, false},
		{"PAGER=cat", pager.Options{TTY: true, Height: 24, Command: "cat"}, long, false},
		{"missing pager", pager.Options{TTY: true, Height: 24, Command: "/nonexistent/pager"}, long, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			tc.opts.Out, tc.opts.ErrOut = &out, &errOut
			tc.opts.Env = []string{"PATH=" + os.Getenv("PATH")}
			if err := pager.Show(context.Background(), tc.opts, tc.text); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			paged := strings.HasPrefix(got, "PAGED LESS=FRX\n")
			if paged != tc.wantPaged {
				t.Fatalf("paged = %v, want %v; output %q, stderr %q", paged, tc.wantPaged, got, errOut.String())
			}
			if body := strings.TrimPrefix(got, "PAGED LESS=FRX\n"); body != tc.text {
				t.Fatalf("text changed: %q", body)
			}
		})
	}
}

// Without a shell to run $PAGER (Windows, unless one is on PATH), the text is shown unpaged
// rather than lost to an error. Not parallel: it empties PATH.
func TestShowWithoutAShell(t *testing.T) {
	fake := fakePager(t)
	t.Setenv("PATH", t.TempDir())
	long := strings.Repeat("line\n", 30)
	var out, errOut bytes.Buffer
	opts := pager.Options{TTY: true, Height: 24, Width: 80, Command: fake, Out: &out, ErrOut: &errOut}
	if err := pager.Show(context.Background(), opts, long); err != nil {
		t.Fatal(err)
	}
	if out.String() != long {
		t.Fatalf("output %q, stderr %q", out.String(), errOut.String())
	}
}
