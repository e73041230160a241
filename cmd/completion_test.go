package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// seedStore makes a local store with one alert and two histories, and returns its directory
// and the IDs.
func seedStore(t testing.TB, histories int) (dir string, alertID record.AlertID, historyIDs []record.HistoryID) {
	t.Helper()
	ctx := context.Background()
	dir = t.TempDir()
	s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	alertID = "5ee4d7bf-97f7-5a5e-a8d9-9242136bad0d"
	if _, err := s.PutAlert(ctx, &record.Alert{ID: alertID, Title: "Suspicious login: admin console", Data: json.RawMessage(`{}`), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for i := range histories {
		h := storetest.NewHistory(alertID, []*genai.Content{genai.NewContentFromText("q", genai.RoleUser)})
		h.Title = "Rotate the role's keys\x1b[2J #" + strconv.Itoa(i)
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		historyIDs = append(historyIDs, h.ID)
	}
	return dir, alertID, historyIDs
}

func completeWith(t testing.TB, args ...string) string {
	t.Helper()
	ios, stdout, stderr := cmdutil.TestIO("", false)
	args = append(append([]string{"alertchat"}, args...), completionFlag)
	if code := RunWith(context.Background(), args, ios, RunOptions{Getenv: func(string) string { return "" }}); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return stdout.String()
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		// The -shm file is SQLite's shared-memory index of the WAL, which every reader updates
		// (read marks): coordination, not data.
		if err == nil && !fi.IsDir() && !strings.HasSuffix(p, "-shm") {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	dir, alertID, hids := seedStore(t, 2)
	before := snapshot(t, dir)
	hist := string(hids[1]) + ":Rotate the role's keys #1"
	alert := string(alertID) + ":Suspicious login: admin console"
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{"commands", nil, []string{"alert:", "chat:", "history:", "completion:"}, []string{"pwsh"}},
		{"subcommands", []string{"history"}, []string{"show:", "search:", "resolve:"}, nil},
		{"flags", []string{"chat", "--hi"}, []string{"--history:"}, nil},
		{"output values", []string{"history", "show", "-o"}, []string{"text\n", "md\n", "json\n"}, nil},
		{"enum values", []string{"--log-level"}, []string{"debug\n", "warn\n"}, nil},
		// The levels are modelcfg's, Gemini 4's xhigh included.
		{"thinking levels", []string{"--thinking"}, []string{"minimal\n", "high\n", "xhigh\n"}, nil},
		{"history IDs with titles", []string{"--data-dir", dir, "history", "show"}, []string{hist}, []string{"\x1b"}},
		{"alert IDs for chat -a", []string{"--data-dir", dir, "chat", "-a"}, []string{alert}, nil},
		{"history IDs for --history", []string{"--data-dir", dir, "chat", "--history"}, []string{hist}, nil},
		{"alert IDs for alert show", []string{"--data-dir", dir, "alert", "show"}, []string{alert}, nil},
		{"rename: the ID, then nothing", []string{"--data-dir", dir, "history", "rename", string(hids[0])}, nil, []string{hist}},
		{"no store: nothing", []string{"--data-dir", filepath.Join(dir, "none"), "history", "show"}, nil, []string{":"}},
		{"cloud store: no IDs", []string{"--data-dir", dir, "--firestore-project", "p", "--bucket", "b", "history", "show"}, nil, []string{hist}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := completeWith(t, tc.args...)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("completion of %v lacks %q:\n%s", tc.args, w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("completion of %v offers %q:\n%s", tc.args, w, got)
				}
			}
		})
	}
	// Completion wrote nothing: no database created, no file changed.
	if after := snapshot(t, dir); !maps.Equal(before, after) {
		for k := range after {
			if before[k] != after[k] {
				t.Errorf("completion changed %s", k)
			}
		}
		for k := range before {
			if _, ok := after[k]; !ok {
				t.Errorf("completion removed %s", k)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("completion created a data directory")
	}
}

// The scripts are valid for their shells: bash -n always; zsh -n and fish -n where the shell
// is installed (CI installs both).
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			ios, stdout, stderr := cmdutil.TestIO("", false)
			if code := RunWith(context.Background(), []string{"alertchat", "completion", shell}, ios, RunOptions{Getenv: func(string) string { return "" }}); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			script := stdout.String()
			if !strings.Contains(script, "alertchat") || !strings.Contains(script, completionFlag) {
				t.Fatalf("not a completion script for alertchat:\n%s", script)
			}
			bin, err := exec.LookPath(shell)
			if err != nil {
				if shell == "bash" || os.Getenv("CI") == "true" {
					t.Fatalf("%s is needed: %v", shell, err)
				}
				t.Skipf("%s is not installed", shell)
			}
			cmd := exec.Command(bin, "-n")
			cmd.Stdin = strings.NewReader(script)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s -n: %v: %s", shell, err, errOut.String())
			}
		})
	}
}
