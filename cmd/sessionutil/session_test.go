package sessionutil_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/sessionutil"
)

// A limit or an evidence folder that makes no sense is a usage error naming it, before
// anything starts; 0 keeps the default.
func TestToolOptionsCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.log")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		to   sessionutil.ToolOptions
		want string // "" when valid
	}{
		{"defaults", sessionutil.ToolOptions{}, ""},
		{"limits", sessionutil.ToolOptions{MaxCalls: 3, MaxResult: 256, Evidence: []string{dir}}, ""},
		{"negative calls", sessionutil.ToolOptions{MaxCalls: -1}, "invalid --max-tool-calls -1"},
		{"tiny result", sessionutil.ToolOptions{MaxResult: 255}, "invalid --max-tool-result 255"},
		{"negative result", sessionutil.ToolOptions{MaxResult: -1}, "invalid --max-tool-result -1"},
		{"missing folder", sessionutil.ToolOptions{Evidence: []string{filepath.Join(dir, "none")}}, "does not exist"},
		{"a file", sessionutil.ToolOptions{Evidence: []string{file}}, "is not a folder"},
	} {
		err := tc.to.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		case tc.want != "" && cmdutil.ExitCode(err) != cmdutil.ExitCode(cmdutil.UsageErrorf("x")):
			t.Errorf("%s: exit code %d, not a usage error's", tc.name, cmdutil.ExitCode(err))
		}
	}
}

// The flag, when given, wins over ALERTCHAT_EVIDENCE, even empty; the variable is split like
// PATH, empty entries dropped.
func TestEvidenceDirs(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == sessionutil.EvidenceEnv {
				return v
			}
			return ""
		}
	}
	list := strings.Join([]string{"/a", " ", "/b"}, string(os.PathListSeparator))
	for _, tc := range []struct {
		name    string
		flag    []string
		flagSet bool
		getenv  func(string) string
		want    []string
	}{
		{"flag", []string{"/x"}, true, env(list), []string{"/x"}},
		{"flag set empty", nil, true, env(list), nil},
		{"variable", nil, false, env(list), []string{"/a", "/b"}},
		{"neither", nil, false, env(""), nil},
		// gs:// holds the Unix list separator: it is put back together.
		{"buckets", nil, false, env(strings.Join([]string{"/a", "gs://b/p", "gs://c", "/gs"}, string(os.PathListSeparator))), []string{"/a", "gs://b/p", "gs://c", "/gs"}},
	} {
		if got := sessionutil.EvidenceDirs(tc.flag, tc.flagSet, tc.getenv); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A --thinking word the model does not offer is a usage error; an empty one is the default.
func TestCheckThinking(t *testing.T) {
	t.Parallel()
	if err := sessionutil.CheckThinking(cmdutil.Config{Model: "gemini-2.5-flash"}); err != nil {
		t.Errorf("default level: %v", err)
	}
	err := sessionutil.CheckThinking(cmdutil.Config{Model: "gemini-2.5-flash", Thinking: "enormous"})
	if err == nil || !strings.Contains(err.Error(), "invalid --thinking") {
		t.Errorf("unknown level: %v", err)
	}
}
