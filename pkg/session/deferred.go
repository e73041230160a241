package session

import (
	"context"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
)

// Questions answered later by someone else: a Gemini Batch API job asks the model on the
// service's side, hours later. Prepare gives the requests a question needs, exactly as Send
// would shape them; Complete takes the job's answers and ends the turn as Send does (the
// transcript, the title, redaction and the save). A job cannot run a call loop, so no tools
// are declared, and no summary is made: older turns are only left out of the request.

// Request is one model request, to be sent by someone else.
type Request struct {
	Contents []*genai.Content
	Config   *genai.GenerateContentConfig
}

// Prepare returns the request that answers input, and for a history that still needs a
// title (with titles on) the request for its title; title is nil otherwise.
func (s *Session) Prepare(input string) (answer Request, title *Request, err error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return Request{}, nil, goerr.New("empty question")
	}
	user := genai.NewContentFromText(input, genai.RoleUser)
	s.Knowledge(context.Background()) // bounded by the lookup's own timeout
	contents, _ := s.shape([]*genai.Content{user}, s.budget())
	answer = Request{Contents: contents, Config: &genai.GenerateContentConfig{SystemInstruction: s.system, ThinkingConfig: modelcfg.For(s.opts.Model).Main(s.opts.Thinking)}}
	if s.needsTitle() && s.opts.Titles {
		t := titleRequest(s.opts.TitleModel, input)
		title = &t
	}
	return answer, title, nil
}

// Answer is what a job answered for one question.
type Answer struct {
	// Response is the answer's response; nil when Err is set.
	Response *genai.GenerateContentResponse
	// Err is the job's error for the answer's request.
	Err error
	// Title is the response to the title request (nil: none was asked, or it failed, and the
	// fallback title is used).
	Title *genai.GenerateContentResponse
}

// Complete ends the turn of input with a job's answer, as SendTurn ends a turn it asked
// itself: the question and the reply join the transcript, a new history is titled, and the
// history is saved (redacted). An answer that failed adds nothing and is returned as the
// error, so the question can be asked again. An answer without text (all thought, or cut at
// its output cap while thinking) is kept as a local batch keeps it: the question saved, its
// reply marked cut short, ErrEmptyAnswer returned with the turn. A job declares no tools:
// calls in its answer are answered as calls that cannot run, and without text beside them
// the turn ends with ErrCallsNotText, as in a chat.
func (s *Session) Complete(ctx context.Context, input string, a Answer) (*Turn, error) {
	input = strings.TrimSpace(input)
	if input == "" {
		return nil, goerr.New("empty question")
	}
	if a.Err != nil {
		return nil, a.Err
	}
	reply, usage, err := jobReply(a.Response)
	exchange := []*genai.Content{genai.NewContentFromText(input, genai.RoleUser)}
	var calls []ToolCall
	if fcs := functionCalls(reply); len(fcs) > 0 {
		responses, reports, _ := s.runCalls(ctx, fcs, len(s.live)+1, 0, refuseNoTools, TurnHooks{})
		exchange = append(exchange, reply, responses)
		reply, calls = nil, reports
	}
	var titleCh chan titleResult
	if s.needsTitle() && s.opts.Titles {
		titleCh = make(chan titleResult, 1)
		t, terr := titleText(a.Title)
		titleCh <- titleResult{t, terr}
	}
	return s.finishTurn(ctx, input, exchange, reply, usage, calls, titleCh, err, TurnHooks{})
}

// jobReply reads a job's answer as a turn takes it: the reply, its usage, and the error that
// leaves the question without an answer (nothing but thought, a refusal, calls and no text).
func jobReply(resp *genai.GenerateContentResponse) (*genai.Content, record.Usage, error) {
	var rb replyBuilder
	rb.addResponse(resp, nil)
	reply, usage, err := rb.finish()
	if err == nil && len(functionCalls(reply)) > 0 && answerText(reply) == "" {
		err = goerr.Wrap(ErrCallsNotText, "the model called tools in a batch job, which declares none")
	}
	return reply, usage, err
}

// Answered returns the text, usage and error of a job's answer as Complete reports them,
// without saving anything (an answer a previous collection saved already).
func Answered(resp *genai.GenerateContentResponse) (string, record.Usage, error) {
	reply, usage, err := jobReply(resp)
	return answerText(reply), usage, err
}

// Holds reports whether the stored transcript has input as a question answered at index from
// or later: a job's answer to it was already saved (a collection that is run again saves
// nothing twice, even when the conversation went on after the first collection).
func (s *Session) Holds(from int, input string) bool {
	h := s.history
	red, _ := s.redactor.RedactString(strings.TrimSpace(input))
	for i := max(from, 0); i+1 < len(h.Contents); i++ {
		c, next := h.Contents[i], h.Contents[i+1]
		if c == nil || next == nil || c.Role != genai.RoleUser || next.Role != genai.RoleModel {
			continue
		}
		var got strings.Builder
		for _, p := range c.Parts {
			if p != nil {
				got.WriteString(p.Text)
			}
		}
		if got.String() == red {
			return true
		}
	}
	return false
}
