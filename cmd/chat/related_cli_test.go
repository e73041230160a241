package chat_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
)

// The next analyst meets the indicator: a chat on a new alert that shares an address with an
// alert investigated before shows, on a terminal, how those investigations ended; an
// interactive chat offers the same to the model, and one-shot chats never wait for it.
func TestRelatedInvestigationsCarryVerdicts(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Port probe triage"}
		}
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	env := clitest.FakeGemini(srv.URL())
	dir := t.TempDir()
	run := func(ios *cmdutil.IOStreams, args ...string) {
		t.Helper()
		if code := cmd.RunWith(context.Background(), append([]string{"alertchat", "--data-dir", dir}, args...), ios, env); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
	}
	addAlert := func(data string) string {
		out, errOut, code := clitest.Run(t, dir, data, "alert", "add", "-f", "-")
		if code != 0 {
			t.Fatal(errOut)
		}
		return strings.TrimSpace(out)
	}
	first := addAlert(`{"Title":"Port probe","RemoteIp":"203.0.113.7","Instance":"i-0aaa"}`)
	second := addAlert(`{"Title":"Port probe","RemoteIp":"203.0.113.7","Instance":"i-0bbb"}`)
	third := addAlert(`{"Title":"SSH brute force","RemoteIp":"203.0.113.7","Instance":"i-0ccc"}`)

	piped, _, _ := cmdutil.TestIO("", false)
	run(piped, "--analyst", "alice", "chat", "--no-related", "-a", first, "-q", "Who owns 203.0.113.7?")
	run(piped, "--analyst", "bob", "chat", "--no-related", "-a", second, "-q", "Is 203.0.113.7 in our inventory?")
	list, _, _ := clitest.Run(t, dir, "", "history", "list", "-a", first)
	resolved := strings.Fields(list)[0]
	if _, errOut, code := clitest.Run(t, dir, "", "--analyst", "alice", "history", "resolve", resolved, "--verdict", "false_positive",
		"--note", "Our vulnerability scanner."); code != 0 {
		t.Fatal(errOut)
	}
	rh, err := clitest.GetMeta(t, dir, record.HistoryID(resolved))
	if err != nil {
		t.Fatal(err)
	}
	day := rh.Resolution.ResolvedAt.In(time.Local).Format("01-02")

	// One-shot on a terminal: shown after the answer, in one line per shared indicator.
	var out, errOut bytes.Buffer
	tty := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, StdinTTY: true, StdoutTTY: true, StderrTTY: true, NoColor: true}
	run(tty, "--analyst", "carol", "chat", "--no-title-generation", "-a", third, "-q", "Seen before?")
	head, _, _ := strings.Cut(errOut.String(), "\n")
	if !strings.HasPrefix(head, "2 earlier investigations of 203.0.113.7: ") || !strings.Contains(head, "open (bob)") ||
		!strings.Contains(head, "false positive (alice, "+day+")") || !strings.Contains(errOut.String(), resolved[:8]) {
		t.Fatalf("stderr:\n%s", errOut.String())
	}
	reqs := srv.Requests()
	if sys := reqs[len(reqs)-1].SystemText(); strings.Contains(sys, "Earlier investigations") {
		t.Fatal("a one-shot question waited for the related investigations")
	}

	// Interactive: looked up before the first question, shown, and offered to the model.
	fourth := addAlert(`{"Title":"Outbound to 203.0.113.7","RemoteIp":"203.0.113.7","Instance":"i-0ddd"}`)
	out.Reset()
	errOut.Reset()
	inter := &cmdutil.IOStreams{In: strings.NewReader("What do we know?\n"), Out: &out, ErrOut: &errOut, StdinTTY: true, StderrTTY: true, NoColor: true}
	run(inter, "--analyst", "dave", "chat", "--no-title-generation", "-a", fourth)
	if !strings.Contains(errOut.String(), "earlier investigations of 203.0.113.7") {
		t.Fatalf("interactive stderr:\n%s", errOut.String())
	}
	reqs = srv.Requests()
	sys := reqs[len(reqs)-1].SystemText()
	for _, w := range []string{"Earlier investigations in this workspace", resolved, "false positive, resolved by alice", "Our vulnerability scanner.", "still open (asked by bob)", "(shares 203.0.113.7)"} {
		if !strings.Contains(sys, w) {
			t.Errorf("the model was not offered %q:\n%s", w, sys)
		}
	}
	// Never stored: the history of the fourth alert holds the question and the answer only.
	list, _, _ = clitest.Run(t, dir, "", "history", "list", "-a", fourth)
	h, err := clitest.GetMeta(t, dir, record.HistoryID(strings.Fields(list)[0]))
	if err != nil || len(h.Contents) != 2 || strings.Contains(h.Contents[0].Parts[0].Text, "Earlier") || h.Analysts()[0] != "dave" {
		t.Fatalf("stored: %v %+v", err, h)
	}
}
