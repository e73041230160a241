package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/pkg/geminitest"
)

// An interactive chat on a retired model: the error names the model and the ones to use
// instead, the question is saved in the conversation and kept for /retry; /usage counts the
// thinking of a model that answers.
func TestInteractiveGemini3(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	for _, tc := range []struct {
		model, typed string
		want         []string
	}{
		{"gemini-2.5-flash", "Is it bad?\n/retry\n", []string{
			`Error: Gemini model "gemini-2.5-flash" is not available (it is retired, or these credentials cannot use it); use one of: gemini-3.8-flash, `,
			"(your question is saved in the conversation; /retry sends it again)",
		}},
		{"gemini-3.8-flash", "Is it bad?\n/usage\n", []string{"thinking (", " over 2 messages."}},
	} {
		stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
		ios := &cmdutil.IOStreams{In: strings.NewReader(tc.typed), Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
		opts := testOptions(t, srv, ios)
		cfg := opts.Config()
		cfg.Model = tc.model
		opts.Config = func() cmdutil.Config { return cfg }
		opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
		if err := chatRun(context.Background(), opts); err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.model, w, stderr)
			}
		}
	}
	// The retried question went out twice, and both were saved with the conversation.
	n := 0
	for _, r := range srv.Requests() {
		if r.Model == "gemini-2.5-flash" && r.Kind == geminitest.KindStreamGenerateContent {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d requests of the retired model, want the question and its /retry", n)
	}
}
