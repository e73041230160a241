package modelcfg

import (
	"context"
	"errors"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// Generator is the unary call an auxiliary request needs (*genai.Models, llm.Client).
type Generator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// ErrNoText is returned when an answer had no text even with room to think: the model spent
// its whole output allowance thinking (finish reason MAX_TOKENS) twice.
var ErrNoText = errors.New("the model thought but gave no text, even with more room")

// Generate sends an auxiliary request built with Auxiliary. An answer that ends MAX_TOKENS
// with no text (the thinking took the whole cap) is asked once more with room (WithRoom); a
// second such answer is ErrNoText, never an empty success. The returned response's usage sums
// both tries.
func Generate(ctx context.Context, gen Generator, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	resp, err := gen.GenerateContent(ctx, model, contents, cfg)
	if err != nil || !NoTextAtCap(resp) {
		return resp, err
	}
	first := resp.UsageMetadata
	resp, err = gen.GenerateContent(ctx, model, contents, WithRoom(cfg))
	if err != nil {
		return nil, err
	}
	resp.UsageMetadata = AddUsage(first, resp.UsageMetadata)
	if NoTextAtCap(resp) {
		return resp, goerr.Wrap(ErrNoText, "no answer within the output cap", goerr.V("model", model), goerr.V("max_output_tokens", WithRoom(cfg).MaxOutputTokens))
	}
	return resp, nil
}

// NoTextAtCap reports whether resp ended at its output cap (MAX_TOKENS) without any answer
// text: what a Gemini 3 model returns when thinking used the whole allowance.
func NoTextAtCap(resp *genai.GenerateContentResponse) bool {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return false
	}
	c := resp.Candidates[0]
	return c.FinishReason == genai.FinishReasonMaxTokens && !HasText(c.Content)
}

// Text is the answer text of resp's first candidate, thoughts left out; "" when it has none.
// (The SDK's own Text logs a warning for every part that is not text.)
func Text(resp *genai.GenerateContentResponse) string {
	if resp == nil || len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range resp.Candidates[0].Content.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// HasText reports whether c holds answer text (thoughts aside).
func HasText(c *genai.Content) bool {
	if c == nil {
		return false
	}
	for _, p := range c.Parts {
		if p != nil && !p.Thought && p.Text != "" {
			return true
		}
	}
	return false
}

// AddUsage sums two usage reports (nil counts as zero; both nil is nil).
func AddUsage(a, b *genai.GenerateContentResponseUsageMetadata) *genai.GenerateContentResponseUsageMetadata {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount:     a.PromptTokenCount + b.PromptTokenCount,
		CandidatesTokenCount: a.CandidatesTokenCount + b.CandidatesTokenCount,
		ThoughtsTokenCount:   a.ThoughtsTokenCount + b.ThoughtsTokenCount,
		TotalTokenCount:      a.TotalTokenCount + b.TotalTokenCount,
	}
}
