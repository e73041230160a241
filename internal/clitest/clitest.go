// Package clitest runs the command line in process for the commands' tests: each command's
// tests live beside it and drive it through the root command as a user would, with an
// isolated data dir and, for the model, a fake Gemini server's address.
package clitest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// Run runs the command line in process with the given stdin, not on a terminal; dataDir
// isolates the store.
func Run(t testing.TB, dataDir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return RunWith(t, dataDir, stdin, false, cmd.RunOptions{}, args...)
}

// RunTTY runs the command line as on a terminal (stdin, stdout and stderr).
func RunTTY(t testing.TB, dataDir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return RunWith(t, dataDir, stdin, true, cmd.RunOptions{}, args...)
}

// RunWith is Run with the root command's options and a choice of terminal.
func RunWith(t testing.TB, dataDir, stdin string, tty bool, o cmd.RunOptions, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut, StdinTTY: tty, StdoutTTY: tty, StderrTTY: tty}
	full := append([]string{"alertchat", "--data-dir", dataDir}, args...)
	code = cmd.RunWith(context.Background(), full, ios, o)
	return out.String(), errOut.String(), code
}

// FakeGemini is a run whose Gemini credentials and address come from a map, not the process
// environment.
func FakeGemini(url string) cmd.RunOptions {
	env := map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": url}
	return cmd.RunOptions{Getenv: func(k string) string { return env[k] }}
}

// WriteFile writes content to a new file named name and returns its path.
func WriteFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// OpenLocal opens the local store of dir as the command line would.
func OpenLocal(t testing.TB, dir, workspace string) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: workspace})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// SeedHistories saves hs into the workspace's store in dir and closes it.
func SeedHistories(t testing.TB, dir, workspace string, hs ...*record.History) {
	t.Helper()
	s := OpenLocal(t, dir, workspace)
	defer s.Close()
	for _, h := range hs {
		if err := s.SaveHistory(context.Background(), h); err != nil {
			t.Fatalf("seed %s: %v", h.ID, err)
		}
	}
}

// GetMeta reads a history of the default workspace in dir.
func GetMeta(t testing.TB, dir string, id record.HistoryID) (*record.History, error) {
	t.Helper()
	s := OpenLocal(t, dir, "default")
	defer s.Close()
	return s.GetHistory(context.Background(), id)
}

// NewHist is a history of alert titled title, last updated at updated.
func NewHist(alert record.AlertID, title string, updated time.Time, contents ...*genai.Content) *record.History {
	h := storetest.NewHistory(alert, contents)
	h.Title = title
	h.CreatedAt = updated.Add(-time.Minute)
	h.UpdatedAt = updated
	return h
}

// ObjectPath is where the local store keeps a history's transcript.
func ObjectPath(dir string, id record.HistoryID) string {
	return filepath.Join(dir, filepath.FromSlash(store.ObjectKey("", id)))
}
