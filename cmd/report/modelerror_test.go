package report_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/session"
)

// Each model failure says what to do about it, and keeps its cause for errors.Is; a cancel is
// left as it is.
func TestDescribeModelError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"api key", genai.APIError{Code: 400, Status: "INVALID_ARGUMENT", Message: "API key not valid"}, "Gemini rejected the API key: check GEMINI_API_KEY"},
		{"bad request", genai.APIError{Code: 400, Message: "bad field"}, "Gemini rejected the request: bad field"},
		{"forbidden", genai.APIError{Code: 403}, "Gemini refused access"},
		{"unknown model", genai.APIError{Code: 404}, "Gemini does not know this model: check --model"},
		{"quota", genai.APIError{Code: 429}, "Gemini quota or rate limit reached: wait"},
		{"server", genai.APIError{Code: 503}, "Gemini is unavailable right now: try again"},
		{"other", errors.New("boom"), "Gemini request failed"},
		{"empty answer", fmt.Errorf("turn: %w", session.ErrEmptyAnswer), "Gemini gave no answer (it thought, and wrote nothing)"},
		{"blocked", session.ErrBlocked, "Gemini declined to answer"},
		{"retired", &modelcfg.UnavailableError{Model: "old", Alternatives: []string{"new-a", "new-b"}}, `Gemini model "old" is not available (it is retired, or these credentials cannot use it); use one of: new-a, new-b`},
		{"retired, no list", &modelcfg.UnavailableError{Model: "old"}, "; set --model or ALERTCHAT_MODEL to one that 'alertchat models' lists"},
	} {
		got := report.DescribeModelError(tc.err)
		if msg := cmdutil.Message(got); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, msg, tc.want)
		}
		if !errors.Is(got, tc.err) && !errors.As(got, new(genai.APIError)) {
			t.Errorf("%s: the cause is lost", tc.name)
		}
	}
	if err := report.DescribeModelError(context.Canceled); err != context.Canceled {
		t.Errorf("a cancel became %v", err)
	}
}
