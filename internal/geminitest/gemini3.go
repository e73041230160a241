package geminitest

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"
)

// WithGemini3 makes the server behave as the Gemini API serves Gemini 3 models (late 2026),
// for the models it knows (DefaultModels, or WithModels):
//
//   - A model it does not know, a retired one, or one that does not support the method
//     answers 404 NOT_FOUND "models/X is not found for API version v1beta, or is not
//     supported for generateContent. ...", as the API does.
//   - Thinking: thinkingLevel and thinkingBudget together are a 400; a level on a model that
//     takes none, or a level the model does not offer, is a 400. Every answer thinks (at the
//     requested level, else the model's default, never less than its lowest level even with
//     thinkingBudget 0; a budget model up to its budget), and the
//     thinking tokens (ThinkingTokens, or Reply.ThoughtTokens) count against
//     maxOutputTokens: a cap they reach ends the answer with finishReason MAX_TOKENS and no
//     text; a cap the answer reaches cuts its text. usageMetadata.thoughtsTokenCount reports
//     them. WithThinkingTime makes the thinking take time before the first byte.
//   - Function calls get an 8-character id when the reply has none and the first one a
//     thought signature; streamed, each call is an event of its own. Every answer ends with
//     an empty text part carrying a thought signature (its own event when streamed, with
//     finishReason STOP).
//   - Batch jobs: creating one for a model it does not serve is the 404 above; each request
//     of a job is checked and answered as a direct request is (the thinking, the signed
//     trailing part, the usage), its 400s reported as the job's per-request errors.
//   - Requests: a part with no data is a 400; the first function call of each model content
//     of the current turn (since the last question) must carry its thought signature, and a
//     signature must be one the server sent (sent back unchanged); a functionResponse must
//     carry its call's id. Each check answers the 400 the API does.
func WithGemini3() Option {
	return func(s *Server) { s.g3 = true }
}

// ThinkingTokens returns the thinking tokens an answer spends at each level in Gemini 3 mode
// unless WithThinkingTokens says otherwise: the order of what Gemini 3 Flash reports for an
// analyst's question about an alert.
func ThinkingTokens() map[genai.ThinkingLevel]int32 {
	return map[genai.ThinkingLevel]int32{
		genai.ThinkingLevelMinimal: 24,
		genai.ThinkingLevelLow:     160,
		genai.ThinkingLevelMedium:  700,
		genai.ThinkingLevelHigh:    2000,
	}
}

// WithThinkingTokens sets the thinking tokens an answer spends at each level (levels left out
// keep ThinkingTokens').
func WithThinkingTokens(t map[genai.ThinkingLevel]int32) Option {
	return func(s *Server) {
		s.thinking = ThinkingTokens()
		for k, v := range t {
			s.thinking[k] = v
		}
	}
}

// WithThinkingTime makes each thinking token take d before the first byte of an answer (in
// Gemini 3 mode), on top of the latency: a model thinks before it answers.
func WithThinkingTime(d time.Duration) Option {
	return func(s *Server) { s.thinkTime = d }
}

// notFound is the API's answer for a model it does not serve.
func notFound(model, method string) *Reply {
	return &Reply{Status: http.StatusNotFound, ErrorMessage: "models/" + model + " is not found for API version v1beta, or is not supported for " +
		method + ". Call ListModels to see the list of available models and their supported methods."}
}

func invalid(msg string) *Reply { return &Reply{Status: http.StatusBadRequest, ErrorMessage: msg} }

// serves reports whether the server serves model for method in Gemini 3 mode: a model it
// knows, not retired, that supports the method (a stream is served where generateContent is).
func (s *Server) serves(model, method string) bool {
	info, ok := s.model(model)
	return ok && !info.Retired && (slices.Contains(info.Methods, method) ||
		method == KindStreamGenerateContent && slices.Contains(info.Methods, KindGenerateContent))
}

// g3Check applies Gemini 3 mode's checks to a request, returning the error reply or nil.
func (s *Server) g3Check(req *Request) *Reply {
	info, _ := s.model(req.Model)
	if !s.serves(req.Model, req.Kind) {
		return notFound(req.Model, req.Kind)
	}
	if req.Kind == KindCountTokens {
		return nil
	}
	if tc := thinkingConfig(req); tc != nil {
		switch {
		case tc.ThinkingLevel != "" && tc.ThinkingBudget != nil:
			return invalid("Unable to submit request because thinking_budget and thinking_level are not supported together.")
		case tc.ThinkingLevel != "" && len(info.Levels) == 0:
			return invalid("Thinking level is not supported for this model.")
		case tc.ThinkingLevel != "" && !slices.Contains(info.Levels, tc.ThinkingLevel):
			return invalid(fmt.Sprintf("Thinking level %s is not supported for this model. Supported levels: %s.", tc.ThinkingLevel, levelList(info.Levels)))
		}
	}
	for i, c := range req.Contents {
		for j, p := range c.Parts {
			if p == nil || emptyPart(p) {
				return invalid(fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j))
			}
		}
	}
	// The current turn: the contents after the last question (a user content with text).
	start := 0
	for i, c := range req.Contents {
		if c != nil && c.Role != genai.RoleModel && contentText(c) != "" {
			start = i
		}
	}
	for i, c := range req.Contents {
		if c == nil || c.Role != genai.RoleModel {
			continue
		}
		first := true
		for j, p := range c.Parts {
			if p == nil {
				continue
			}
			if len(p.ThoughtSignature) > 0 && !s.issued(p.ThoughtSignature) {
				return invalid(fmt.Sprintf("Corrupted thought signature in contents[%d].parts[%d].", i, j))
			}
			if p.FunctionCall == nil {
				continue
			}
			if first && i > start && len(p.ThoughtSignature) == 0 {
				return invalid(fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, "+
					"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. "+
					"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", p.FunctionCall.Name, i+1))
			}
			first = false
		}
	}
	return nil
}

func thinkingConfig(req *Request) *genai.ThinkingConfig {
	if req.GenerationConfig == nil {
		return nil
	}
	return req.GenerationConfig.ThinkingConfig
}

func levelList(levels []genai.ThinkingLevel) string {
	s := make([]string, len(levels))
	for i, l := range levels {
		s[i] = string(l)
	}
	return strings.Join(s, ", ")
}

// emptyPart reports whether a part carries nothing the API accepts (a part holding only a
// thought signature is taken).
func emptyPart(p *genai.Part) bool {
	return p.Text == "" && !p.Thought && len(p.ThoughtSignature) == 0 && p.InlineData == nil && p.FileData == nil &&
		p.FunctionCall == nil && p.FunctionResponse == nil && p.ExecutableCode == nil && p.CodeExecutionResult == nil &&
		p.ToolCall == nil && p.ToolResponse == nil
}

// signature makes the thought signature of part i of a response, and remembers it as issued.
func (s *Server) signature(req *Request, i int) []byte {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", req.responseID(), i)))
	sig := append([]byte("g3sig:"), sum[:18]...)
	s.remember(sig)
	return sig
}

func (s *Server) remember(sig []byte) {
	s.mu.Lock()
	s.sigs[string(sig)] = true
	s.mu.Unlock()
}

func (s *Server) issued(sig []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sigs[string(sig)]
}

// callID makes the 8-character id of call i of a response (lower-case letters and digits, as
// the API's).
func callID(req *Request, i int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte(fmt.Sprintf("call/%s/%d", req.responseID(), i)))
	id := make([]byte, 8)
	for k := range id {
		id[k] = alphabet[int(sum[k])%len(alphabet)]
	}
	return string(id)
}

// g3Shape turns a successful reply into what a Gemini 3 model sends: thinking charged against
// the output cap, ids and a signature on the calls, the signed empty text part at the end. It
// returns the time the thinking takes.
func (s *Server) g3Shape(req *Request, reply *Reply) time.Duration {
	info, _ := s.model(req.Model)
	thoughts := reply.ThoughtTokens
	if thoughts == 0 && reply.Usage != nil {
		thoughts = reply.Usage.ThoughtsTokenCount
	}
	if thoughts == 0 {
		thoughts = s.thoughtsFor(info, thinkingConfig(req))
	}
	var maxOut int32
	if req.GenerationConfig != nil {
		maxOut = req.GenerationConfig.MaxOutputTokens
	}
	parts := make([]*genai.Part, 0, len(reply.Parts))
	calls := 0
	for _, p := range reply.Parts {
		cp := *p
		if len(cp.ThoughtSignature) > 0 {
			s.remember(cp.ThoughtSignature)
		}
		if p.FunctionCall != nil {
			fc := *p.FunctionCall
			if fc.ID == "" {
				fc.ID = callID(req, calls)
			}
			cp.FunctionCall = &fc
			if calls == 0 && len(cp.ThoughtSignature) == 0 {
				cp.ThoughtSignature = s.signature(req, len(parts))
			}
			calls++
		}
		parts = append(parts, &cp)
	}
	text := reply.text()
	finish := reply.FinishReason
	switch {
	case maxOut > 0 && thoughts >= maxOut:
		// Thinking took the whole allowance: no answer at all.
		thoughts, parts, text, finish = maxOut, nil, "", genai.FinishReasonMaxTokens
	case maxOut > 0 && estimateTokens(len(text)) > maxOut-thoughts:
		text = cutText(text, int(maxOut-thoughts)*4)
		finish = genai.FinishReasonMaxTokens
	}
	reply.Parts, reply.FinishReason = parts, finish
	if text != reply.text() {
		reply.Text, reply.Chunks = text, nil
	}
	if finish != genai.FinishReasonMaxTokens || len(parts) > 0 || text != "" {
		reply.trailing = &genai.Part{Text: "", ThoughtSignature: s.signature(req, len(parts)+1)}
	}
	usage := reply.Usage
	if usage == nil {
		answer := len(text)
		for _, p := range parts {
			if !p.Thought {
				answer += len(p.Text)
			}
		}
		usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: estimateTokens(req.textBytes()), CandidatesTokenCount: estimateTokens(answer)}
	} else {
		cp := *usage
		usage = &cp
	}
	usage.ThoughtsTokenCount = thoughts
	usage.TotalTokenCount = usage.PromptTokenCount + usage.CandidatesTokenCount + usage.ThoughtsTokenCount
	reply.Usage = usage
	return time.Duration(thoughts) * s.thinkTime
}

// thoughtsFor is how much a model thinks for a request's thinking configuration. A budget
// model thinks up to its budget (0: not at all; none given: as at MEDIUM). A Gemini 3 model
// always thinks: at the requested level, else its default; a budget it is given (taken for
// compatibility) bounds that, but never below its lowest level.
func (s *Server) thoughtsFor(info ModelInfo, tc *genai.ThinkingConfig) int32 {
	table := s.thinking
	var budget *int32
	if tc != nil && tc.ThinkingBudget != nil && *tc.ThinkingBudget >= 0 {
		budget = tc.ThinkingBudget
	}
	if info.Budget {
		if budget == nil {
			return table[genai.ThinkingLevelMedium]
		}
		return min(*budget, table[genai.ThinkingLevelMedium])
	}
	level := info.DefaultLevel
	if tc != nil && tc.ThinkingLevel != "" {
		level = tc.ThinkingLevel
	}
	if level == "" {
		return 0
	}
	n := table[level]
	if budget != nil && len(info.Levels) > 0 {
		n = max(min(n, *budget), table[info.Levels[0]])
	}
	return n
}

// cutText keeps at most n bytes of s, on a rune boundary.
func cutText(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
