package chat_test

import (
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
)

// Run where stdin is not a terminal and nothing is piped (make run from a script or an
// editor), chat says how to ask instead of only that the question is empty.
func TestNoQuestionSaysWhatToDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alert := clitest.WriteFile(t, "a.json", `{"Title": "x"}`)
	_, stderr, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini("http://127.0.0.1:1"), "chat", "-f", alert)
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "-q") || !strings.Contains(stderr, "terminal") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = clitest.RunWith(t, dir, "  \n", false, clitest.FakeGemini("http://127.0.0.1:1"), "chat", "-f", alert, "-q", " ")
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "the question is empty") {
		t.Fatalf("blank -q: exit %d, stderr %q", code, stderr)
	}
}
