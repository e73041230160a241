package geminitest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genai"
)

// Kinds of request, as found in Request.Kind.
const (
	KindGenerateContent       = "generateContent"
	KindStreamGenerateContent = "streamGenerateContent"
	KindCountTokens           = "countTokens"
)

// A Request is a request received by the server, decoded from the REST JSON the
// SDK sends. Requests are shared between the server and its users: treat them
// as read-only.
type Request struct {
	// chunks counts the stream chunks sent in answer (see Chunks).
	chunks atomic.Int64

	// Seq is the request's arrival number, starting at 1.
	Seq int64
	// Time is the arrival time.
	Time time.Time
	// Kind is KindGenerateContent, KindStreamGenerateContent or KindCountTokens.
	Kind string
	// Model is the model name from the path, without the "models/" prefix
	// (e.g. "gemini-3.8-flash"); tuned models keep their "tunedModels/" prefix.
	Model string
	// Path is the URL path, e.g. "/v1beta/models/gemini-3.8-flash:generateContent".
	Path string
	// Header holds the request headers; the SDK sends the API key in
	// x-goog-api-key.
	Header http.Header
	// Body is the raw request body.
	Body []byte

	// Contents, SystemInstruction, GenerationConfig, Tools, ToolConfig and
	// SafetySettings are decoded from Body; they are nil when absent.
	Contents          []*genai.Content
	SystemInstruction *genai.Content
	GenerationConfig  *genai.GenerationConfig
	Tools             []*genai.Tool
	ToolConfig        *genai.ToolConfig
	SafetySettings    []*genai.SafetySetting
}

// wireRequest is the REST shape of a generateContent or countTokens request
// body for the Gemini Developer API. The genai types' JSON tags match the REST
// field names, so they decode directly.
type wireRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig"`
	Tools             []*genai.Tool           `json:"tools"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig"`
	SafetySettings    []*genai.SafetySetting  `json:"safetySettings"`
	// countTokens also accepts a whole generateContent request.
	GenerateContentRequest *wireRequest `json:"generateContentRequest"`
}

func (r *Request) decode() error {
	if len(r.Body) == 0 {
		return nil
	}
	var w wireRequest
	if err := json.Unmarshal(r.Body, &w); err != nil {
		return err
	}
	if g := w.GenerateContentRequest; g != nil && len(w.Contents) == 0 {
		w = *g
	}
	r.Contents = w.Contents
	r.SystemInstruction = w.SystemInstruction
	r.GenerationConfig = w.GenerationConfig
	r.Tools = w.Tools
	r.ToolConfig = w.ToolConfig
	r.SafetySettings = w.SafetySettings
	return nil
}

// APIKey returns the x-goog-api-key header, where the SDK sends the API key.
func (r *Request) APIKey() string { return r.Header.Get("x-goog-api-key") }

// LastUserText returns the text of the last content with role "user" (or no
// role), its text parts joined; thoughts are skipped.
func (r *Request) LastUserText() string {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c != nil && (c.Role == genai.RoleUser || c.Role == "") {
			return contentText(c)
		}
	}
	return ""
}

// SystemText returns the text of the system instruction, its text parts joined.
func (r *Request) SystemText() string { return contentText(r.SystemInstruction) }

func contentText(c *genai.Content) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Parts {
		if p != nil && !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// textBytes counts the bytes of text in the request, the base of the token
// estimates.
func (r *Request) textBytes() int {
	n := len(r.SystemText())
	for _, c := range r.Contents {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			if p == nil {
				continue
			}
			n += len(p.Text)
			if p.FunctionResponse != nil {
				if b, err := json.Marshal(p.FunctionResponse.Response); err == nil {
					n += len(b)
				}
			}
		}
	}
	return n
}

func (r *Request) responseID() string { return "geminitest-" + strconv.FormatInt(r.Seq, 10) }

// Chunks is how many stream chunks have been written and flushed in answer to r so far: a
// test waits until a chunk has reached the client instead of sleeping.
func (r *Request) Chunks() int64 { return r.chunks.Load() }
