package chat

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/syncbuf"
)

// /report writes the live conversation's report, raw values included, mode 0600; a file that
// exists is left alone where nobody can be asked (here stderr is not a terminal).
func TestReportCommand(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "Ask the owner.\n\nNext steps:\n- Mail the owner."}
	}))
	dir := t.TempDir()
	fresh, existing := filepath.Join(dir, "case.md"), filepath.Join(dir, "old.md")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, typed := io.Pipe()
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	ios := &cmdutil.IOStreams{In: in, Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
	opts := testOptions(t, srv, ios)
	opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
	done := make(chan error, 1)
	go func() { done <- chatRun(context.Background(), opts) }()
	for _, line := range []string{"who owns ops-lead@example.com?", "/report", "/report " + fresh, "/report " + existing} {
		if _, err := io.WriteString(typed, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	_ = typed.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chat ended with %v; stderr:\n%s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the chat did not end; stderr:\n%s", stderr)
	}
	errText := stderr.String()
	for _, want := range []string{"usage: /report FILE", "Report written to " + fresh + " (mode 0600). It holds what the screen showed",
		existing + " exists; not overwritten"} {
		if !strings.Contains(errText, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errText)
		}
	}
	b, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	for _, want := range []string{"who owns ops-lead@example.com?", "## Next steps\n\n- Mail the owner."} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q:\n%s", want, b)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q", b)
	}
}
