package triage_test

import (
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/clitest"
)

// Bad flags are usage errors (exit 2) naming what is wrong, before any store or model is
// reached.
func TestTriageBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "0"}, "--concurrency"},
		{[]string{"--concurrency", "65"}, "--concurrency"},
		{[]string{"--limit", "0"}, "--limit"},
		{[]string{"--max-cost-tokens", "-1"}, "--max-cost-tokens"},
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--since", "-3d"}, "--since"},
		{[]string{"abcdef12", "--open"}, "alert IDs"},
		{[]string{"-o", "yaml"}, "yaml"},
		{[]string{"--remote"}, "--no-tools"},
		{[]string{"--remote", "--no-tools", "--evidence", "."}, "--evidence"},
		{[]string{"--no-wait"}, "--remote"},
		{[]string{"--max-tool-result", "10"}, "--max-tool-result"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := clitest.Run(t, t.TempDir(), "", append([]string{"triage"}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d: %s", code, errOut)
			}
		})
	}
}
