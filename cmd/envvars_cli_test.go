package cmd_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/store"
)

// TestVariablesDoNotReachOtherCommands: chat's alert variable does not filter history list, and
// a command's own flags (limit, output, yes) are not read from the environment.
func TestVariablesDoNotReachOtherCommands(t *testing.T) {
	dir := t.TempDir()
	clitest.Run(t, dir, `{"Title": "one"}`, "alert", "add", "-f", "-")
	clitest.Run(t, dir, `{"Title": "two"}`, "alert", "add", "-f", "-")
	clitest.SeedHistories(t, dir, "default", clitest.NewHist("alert-1", "first", store.Now()), clitest.NewHist("alert-2", "second", store.Now()))
	t.Setenv("ALERTCHAT_LIMIT", "1")
	t.Setenv("ALERTCHAT_OUTPUT", "json")
	t.Setenv("ALERTCHAT_ALERT", "alert-1")
	t.Setenv("ALERTCHAT_YES", "true")
	out, errOut, code := clitest.Run(t, dir, "", "alert", "list")
	if code != 0 || strings.HasPrefix(strings.TrimSpace(out), "[") || strings.Count(out, "\n") != 2 {
		t.Fatalf("alert list read ALERTCHAT_LIMIT/OUTPUT: exit %d, %q, %s", code, out, errOut)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "list", "-o", "json")
	var hs []map[string]any
	if err := json.Unmarshal([]byte(out), &hs); err != nil || code != 0 || len(hs) != 2 {
		t.Fatalf("history list filtered by ALERTCHAT_ALERT or limited by ALERTCHAT_LIMIT: exit %d, %q, %s", code, out, errOut)
	}
	if _, _, code := clitest.Run(t, dir, "", "history", "rm", hs[0]["id"].(string)); code != cmdutil.ExitUsage {
		t.Fatalf("history rm took ALERTCHAT_YES: exit %d", code)
	}
}

// A model given as a full resource name is the request path the SDK uses: one in another
// project than GOOGLE_CLOUD_PROJECT names is refused before anything is sent (exit 2), from a
// flag or the environment alike; a bare ID, or a name in the configured project, is taken.
func TestModelResourceNameOnlyInTheConfiguredProject(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GOOGLE_CLOUD_PROJECT": "mine"}
	o := cmd.RunOptions{Getenv: func(k string) string { return env[k] }}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--model", "gemini-3.8-flash", "alert", "list"}, 0},
		{[]string{"--model", "projects/mine/locations/us-central1/publishers/google/models/gemini-3.8-flash", "alert", "list"}, 0},
		{[]string{"--model", "projects/theirs/locations/us-central1/publishers/google/models/gemini-3.8-flash", "alert", "list"}, cmdutil.ExitUsage},
		{[]string{"--model", "projects//locations/x", "alert", "list"}, cmdutil.ExitUsage},
		{[]string{"chat", "--judge-model", "projects/theirs/locations/us/endpoints/1", "-a", "x", "-q", "hi"}, cmdutil.ExitUsage},
	} {
		_, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, o, tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
		if tc.code != 0 && !strings.Contains(errOut, "GOOGLE_CLOUD_PROJECT") {
			t.Errorf("%v: the error does not say why: %s", tc.args, errOut)
		}
	}
}
