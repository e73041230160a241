package geminitest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

// A Reply scripts the server's answer to one request. The zero Reply is a
// successful answer with no text.
//
// The content of a successful answer is Parts followed by one text part holding
// Text (or the concatenated Chunks). When streamed, each element of Parts is a
// chunk of its own, followed by the text chunks: Chunks as given, or Text split
// at word boundaries into chunks of a few words.
type Reply struct {
	// Text is the answer's text.
	Text string
	// Chunks is the answer's text as explicit stream chunks; it is used instead
	// of Text when not empty.
	Chunks []string
	// Parts gives full control over the answer's content: function calls,
	// thoughts with a ThoughtSignature, inline data and so on. They come before
	// the text.
	Parts []*genai.Part
	// FinishReason is the candidate's finish reason; "STOP" when empty.
	FinishReason genai.FinishReason
	// Usage replaces the default usage metadata, which estimates one token per
	// four bytes of request text (prompt), of answer text (candidates) and of
	// thought text (thoughts). For countTokens, Usage.TotalTokenCount is the count.
	Usage *genai.GenerateContentResponseUsageMetadata
	// BlockReason, when set, answers with promptFeedback.blockReason and no
	// candidates, as the API does for a blocked prompt (e.g. "SAFETY").
	BlockReason genai.BlockedReason
	// ThoughtTokens, in Gemini 3 mode (WithGemini3), is what the answer spends thinking
	// instead of what its level spends (ThinkingTokens); it counts against maxOutputTokens.
	ThoughtTokens int32

	// Latency is the wait before the first byte; when zero, the server's
	// default from WithLatency applies.
	Latency time.Duration
	// ChunkDelay is the wait between two streamed chunks; when zero, the
	// server's default from WithChunkDelay applies.
	ChunkDelay time.Duration

	// Status, when non-zero, makes this an error reply with this HTTP status
	// (e.g. 400, 403, 404, 429, 500, 503) and a Google error body. For a stream,
	// if the Reply also has content, the content is streamed first with status
	// 200 and the error follows as a final "data: {"error":...}" event, which
	// is how the API reports a failure in the middle of a stream.
	Status int
	// ErrorMessage is the error's message; a generic message when empty.
	ErrorMessage string
	// ErrorStatus is the error's canonical status (e.g. "RESOURCE_EXHAUSTED");
	// derived from Status when empty.
	ErrorStatus string
	// RetryDelay, when positive, adds a google.rpc.RetryInfo detail with this
	// delay to the error, as the API does on 429.
	RetryDelay time.Duration
	// ErrorDetails are added to the error's details as given.
	ErrorDetails []map[string]any

	// Hang makes the server never answer: it holds the request until the client
	// gives up (context deadline, cancellation) or the server is closed. For a
	// stream with content, the content is sent first and then the stream stalls.
	Hang bool

	// trailing is a last part of the content (Gemini 3 mode's signed empty text part),
	// streamed as an event of its own.
	trailing *genai.Part
}

func (r *Reply) isError() bool { return r.Status != 0 && r.Status != http.StatusOK }

// hasContent reports whether the reply carries anything to stream before an
// error event or a stall.
func (r *Reply) hasContent() bool {
	return r.Text != "" || len(r.Chunks) > 0 || len(r.Parts) > 0
}

func (r *Reply) text() string {
	if len(r.Chunks) > 0 {
		return strings.Join(r.Chunks, "")
	}
	return r.Text
}

func (r *Reply) textChunks() []string {
	if len(r.Chunks) > 0 {
		return r.Chunks
	}
	return splitText(r.Text, 4)
}

// splitText splits s after every n-th space, so that the pieces concatenate
// back to s.
func splitText(s string, n int) []string {
	if s == "" {
		return nil
	}
	words := strings.SplitAfter(s, " ")
	var chunks []string
	for len(words) > n {
		chunks = append(chunks, strings.Join(words[:n], ""))
		words = words[n:]
	}
	return append(chunks, strings.Join(words, ""))
}

// apiError builds the error body for an error reply.
func (r *Reply) apiError() genai.APIError {
	e := genai.APIError{
		Code:    r.Status,
		Message: r.ErrorMessage,
		Status:  r.ErrorStatus,
	}
	if e.Status == "" {
		e.Status = canonicalStatus(r.Status)
	}
	if e.Message == "" {
		e.Message = defaultMessage(r.Status)
	}
	if r.RetryDelay > 0 {
		e.Details = append(e.Details, map[string]any{
			"@type":      "type.googleapis.com/google.rpc.RetryInfo",
			"retryDelay": strconv.FormatFloat(r.RetryDelay.Seconds(), 'f', -1, 64) + "s",
		})
	}
	e.Details = append(e.Details, r.ErrorDetails...)
	return e
}

func canonicalStatus(code int) string {
	switch code {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 500:
		return "INTERNAL"
	case 501:
		return "UNIMPLEMENTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	}
	if code >= 500 {
		return "UNKNOWN"
	}
	return "FAILED_PRECONDITION"
}

func defaultMessage(code int) string {
	switch code {
	case 400:
		return "Request contains an invalid argument."
	case 401:
		return "Request had invalid authentication credentials."
	case 403:
		return "The caller does not have permission."
	case 404:
		return "Requested entity was not found."
	case 429:
		return "Resource has been exhausted (e.g. check quota)."
	case 500:
		return "An internal error has occurred."
	case 503:
		return "The model is overloaded. Please try again later."
	case 504:
		return "Deadline expired before operation could complete."
	}
	if t := http.StatusText(code); t != "" {
		return t + "."
	}
	return "Error " + strconv.Itoa(code) + "."
}

// estimateTokens is the package's token estimate: one token per four bytes,
// rounded up.
func estimateTokens(n int) int32 { return int32((n + 3) / 4) }

// responses renders a successful reply as the responses to send: one for a
// unary call, one per chunk for a stream.
func (r *Reply) responses(req *Request, stream bool) []*genai.GenerateContentResponse {
	promptTokens := estimateTokens(req.textBytes())
	if r.BlockReason != "" {
		usage := r.Usage
		if usage == nil {
			usage = &genai.GenerateContentResponseUsageMetadata{
				PromptTokenCount: promptTokens,
				TotalTokenCount:  promptTokens,
			}
		}
		return []*genai.GenerateContentResponse{{
			PromptFeedback: &genai.GenerateContentResponsePromptFeedback{BlockReason: r.BlockReason},
			UsageMetadata:  usage,
			ModelVersion:   req.Model,
			ResponseID:     req.responseID(),
		}}
	}

	// Each element of groups is the content of one response.
	var groups [][]*genai.Part
	if stream {
		for _, p := range r.Parts {
			groups = append(groups, []*genai.Part{p})
		}
		for _, c := range r.textChunks() {
			groups = append(groups, []*genai.Part{{Text: c}})
		}
		if r.trailing != nil {
			groups = append(groups, []*genai.Part{r.trailing})
		}
		if len(groups) == 0 {
			groups = append(groups, nil)
		}
	} else {
		parts := append([]*genai.Part(nil), r.Parts...)
		if t := r.text(); t != "" {
			parts = append(parts, &genai.Part{Text: t})
		}
		if r.trailing != nil {
			parts = append(parts, r.trailing)
		}
		groups = append(groups, parts)
	}

	usage := r.Usage
	if usage == nil {
		var answer, thoughts int
		for _, p := range r.Parts {
			if p.Thought {
				thoughts += len(p.Text)
			} else {
				answer += len(p.Text)
			}
		}
		answer += len(r.text())
		usage = &genai.GenerateContentResponseUsageMetadata{
			PromptTokenCount:     promptTokens,
			CandidatesTokenCount: estimateTokens(answer),
			ThoughtsTokenCount:   estimateTokens(thoughts),
		}
		usage.TotalTokenCount = usage.PromptTokenCount + usage.CandidatesTokenCount + usage.ThoughtsTokenCount
	}
	finish := r.FinishReason
	if finish == "" {
		finish = genai.FinishReasonStop
	}

	out := make([]*genai.GenerateContentResponse, len(groups))
	for i, parts := range groups {
		resp := &genai.GenerateContentResponse{
			Candidates: []*genai.Candidate{{
				Content: &genai.Content{Role: genai.RoleModel, Parts: parts},
			}},
			ModelVersion: req.Model,
			ResponseID:   req.responseID(),
		}
		if i == len(groups)-1 {
			resp.Candidates[0].FinishReason = finish
			resp.UsageMetadata = usage
		}
		out[i] = resp
	}
	return out
}
