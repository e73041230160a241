package chat

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/pkg/modelcfg"
)

// An interactive chat on a retired model ends at its first question: the error names the
// model and the ones to use instead (exit 1), the question is saved in the conversation and the
// resume hint names it; what was typed after it is not sent (the model would refuse it too).
// /usage counts the thinking of a model that answers.
func TestInteractiveGemini3(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	for _, tc := range []struct {
		model, typed string
		ends         bool
		want         []string
	}{
		{"gemini-2.5-flash", "Is it bad?\n/retry\nAnd now?\n", true, []string{"\nResume with: alertchat chat -a "}},
		{"gemini-3.8-flash", "Is it bad?\n/usage\n", false, []string{"thinking (", " over 2 messages."}},
	} {
		stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		ios := &cmdutil.IOStreams{In: strings.NewReader(tc.typed), Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
		opts := testOptions(t, srv, ios)
		cfg := opts.Config()
		cfg.Model = tc.model
		opts.Config = func() cmdutil.Config { return cfg }
		opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
		err := chatRun(context.Background(), opts)
		var unavailable *modelcfg.UnavailableError
		if tc.ends != errors.As(err, &unavailable) {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if tc.ends && (cmdutil.ExitCode(err) != cmdutil.ExitFailure ||
			!strings.HasPrefix(cmdutil.Message(err), `Gemini model "gemini-2.5-flash" is not available (it is retired, or these credentials cannot use it); use one of: gemini-3.8-flash, `)) {
			t.Fatalf("%s: exit %d: %s", tc.model, cmdutil.ExitCode(err), cmdutil.Message(err))
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.model, w, stderr)
			}
		}
		if tc.ends && strings.Contains(stderr.String(), "Error:") {
			t.Errorf("%s: the error is printed twice:\n%s", tc.model, stderr)
		}
	}
	// The question went out once: the 404 is not retried, and nothing typed after it is sent.
	n := 0
	for _, r := range srv.Requests() {
		if r.Model == "gemini-2.5-flash" && r.Kind == geminitest.KindStreamGenerateContent {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d requests of the retired model, want the question alone", n)
	}
}
