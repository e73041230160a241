package report

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/session"
)

// DescribeModelError turns the SDK's errors into messages a user can act on.
func DescribeModelError(err error) error {
	var apiErr genai.APIError
	var unavailable *modelcfg.UnavailableError
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &unavailable):
		return &described{msg: unavailableLine(unavailable), err: err}
	case errors.Is(err, session.ErrEmptyAnswer):
		// Said of a chat's answer, asked twice, and of a batch job's, asked once.
		return &described{msg: "Gemini gave no answer (it thought, and wrote nothing); " +
			"the question is saved in the conversation: ask again, or rephrase it", err: err}
	case errors.Is(err, session.ErrContextTooLong):
		return goerr.Wrap(err, "the request is too long for Gemini even with the earlier conversation summarised: lower --max-context-tokens, or start a new conversation")
	case errors.Is(err, session.ErrBlocked):
		return goerr.Wrap(err, "Gemini declined to answer (blocked by its safety filters); rephrase the question")
	case errors.Is(err, llm.ErrCallTimeout):
		return goerr.Wrap(err, "Gemini did not answer in time"+triedNote(err)+": try again, or raise --call-timeout")
	case errors.As(err, &apiErr):
		switch apiErr.Code {
		case 400:
			if apiErr.Status == "INVALID_ARGUMENT" && (strings.Contains(apiErr.Message, "API key") || strings.Contains(apiErr.Message, "API_KEY")) {
				return goerr.Wrap(err, "Gemini rejected the API key: check GEMINI_API_KEY")
			}
			return goerr.Wrap(err, "Gemini rejected the request: "+apiErr.Message)
		case 401, 403:
			return goerr.Wrap(err, "Gemini refused access: check the API key or the Vertex AI permissions")
		case 404:
			return goerr.Wrap(err, "Gemini does not know this model: check --model")
		case 429:
			return goerr.Wrap(err, "Gemini quota or rate limit reached"+triedNote(err)+": wait, or check the project's quota")
		}
		if apiErr.Code >= 500 {
			return goerr.Wrap(err, "Gemini is unavailable right now"+triedNote(err)+": try again")
		}
	}
	return goerr.Wrap(err, "Gemini request failed")
}

// unavailableLine is the one line that says a model cannot be used and what can be instead.
func unavailableLine(e *modelcfg.UnavailableError) string {
	msg := fmt.Sprintf("Gemini model %q is not available (it is retired, or these credentials cannot use it)", e.Model)
	switch {
	case len(e.Alternatives) > 0:
		msg += "; use one of: " + strings.Join(e.Alternatives, ", ") + " (--model or ALERTCHAT_MODEL; 'alertchat models' lists them all)"
	default:
		msg += "; set --model or ALERTCHAT_MODEL to one that 'alertchat models' lists"
	}
	return msg
}

// described is an error whose message is a sentence of its own: its cause is kept for
// errors.Is and As, and for -v, not repeated in the message.
type described struct {
	msg string
	err error
}

func (d *described) Error() string { return d.msg }
func (d *described) Unwrap() error { return d.err }

// triedNote says how many tries a failed call made, when it was more than one.
func triedNote(err error) string {
	if n := llm.Attempts(err); n > 1 {
		return fmt.Sprintf(" (%d attempts)", n)
	}
	return ""
}
