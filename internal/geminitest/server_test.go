package geminitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
)

const model = "gemini-2.5-flash"

func newClient(t testing.TB, srv *geminitest.Server, mods ...func(*genai.ClientConfig)) *genai.Client {
	t.Helper()
	cc := &genai.ClientConfig{
		Backend:     genai.BackendGeminiAPI,
		APIKey:      "test-key",
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()},
		HTTPClient:  srv.Client(),
	}
	for _, m := range mods {
		m(cc)
	}
	c, err := genai.NewClient(context.Background(), cc)
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return c
}

// collect drains a stream, returning the chunks received before the first
// error and that error.
func collect(seq func(func(*genai.GenerateContentResponse, error) bool)) ([]*genai.GenerateContentResponse, error) {
	var chunks []*genai.GenerateContentResponse
	for resp, err := range seq {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, resp)
	}
	return chunks, nil
}

func TestGenerateContent(t *testing.T) {
	t.Parallel()
	sig := []byte{0x00, 0xff, 0x10, 'x'}
	tests := []struct {
		name       string
		reply      *geminitest.Reply // nil: the default reply
		wantText   string
		wantParts  []*genai.Part
		wantFinish genai.FinishReason
	}{
		{
			name:       "default echoes the prompt",
			wantText:   "ok: hello there",
			wantParts:  []*genai.Part{{Text: "ok: hello there"}},
			wantFinish: genai.FinishReasonStop,
		},
		{
			name:       "text",
			reply:      &geminitest.Reply{Text: "The answer is 42."},
			wantText:   "The answer is 42.",
			wantParts:  []*genai.Part{{Text: "The answer is 42."}},
			wantFinish: genai.FinishReasonStop,
		},
		{
			name:       "chunks joined",
			reply:      &geminitest.Reply{Chunks: []string{"a", "b", "c"}, FinishReason: genai.FinishReasonMaxTokens},
			wantText:   "abc",
			wantParts:  []*genai.Part{{Text: "abc"}},
			wantFinish: genai.FinishReasonMaxTokens,
		},
		{
			name: "function call",
			reply: &geminitest.Reply{Parts: []*genai.Part{{
				FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "get_alerts", Args: map[string]any{"severity": "high", "limit": 3.0}},
			}}},
			wantParts: []*genai.Part{{
				FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "get_alerts", Args: map[string]any{"severity": "high", "limit": 3.0}},
			}},
			wantFinish: genai.FinishReasonStop,
		},
		{
			name: "thought with signature, then text",
			reply: &geminitest.Reply{
				Parts: []*genai.Part{{Text: "Let me think.", Thought: true, ThoughtSignature: sig}},
				Text:  "Done.",
			},
			wantText:   "Done.",
			wantParts:  []*genai.Part{{Text: "Let me think.", Thought: true, ThoughtSignature: sig}, {Text: "Done."}},
			wantFinish: genai.FinishReasonStop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			if tt.reply != nil {
				srv.Enqueue(*tt.reply)
			}
			resp, err := newClient(t, srv).Models.GenerateContent(context.Background(), model, genai.Text("hello there"), nil)
			if err != nil {
				t.Fatalf("GenerateContent: %v", err)
			}
			if got := resp.Text(); got != tt.wantText {
				t.Errorf("Text() = %q, want %q", got, tt.wantText)
			}
			if len(resp.Candidates) != 1 {
				t.Fatalf("got %d candidates, want 1", len(resp.Candidates))
			}
			c := resp.Candidates[0]
			if c.FinishReason != tt.wantFinish {
				t.Errorf("FinishReason = %q, want %q", c.FinishReason, tt.wantFinish)
			}
			if c.Content.Role != genai.RoleModel {
				t.Errorf("Role = %q, want %q", c.Content.Role, genai.RoleModel)
			}
			if got, want := jsonOf(t, c.Content.Parts), jsonOf(t, tt.wantParts); got != want {
				t.Errorf("parts = %s, want %s", got, want)
			}
			if fc := resp.FunctionCalls(); tt.wantParts[0].FunctionCall != nil && (len(fc) != 1 || fc[0].Name != "get_alerts") {
				t.Errorf("FunctionCalls() = %v", fc)
			}
			u := resp.UsageMetadata
			if u == nil || u.PromptTokenCount == 0 || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount+u.ThoughtsTokenCount {
				t.Errorf("usage = %+v, want an estimate with a consistent total", u)
			}
			if resp.ModelVersion != model {
				t.Errorf("ModelVersion = %q, want %q", resp.ModelVersion, model)
			}
		})
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStream(t *testing.T) {
	t.Parallel()
	sig := []byte("signature-bytes")
	tests := []struct {
		name      string
		reply     geminitest.Reply
		wantTexts []string // text of each chunk
		wantText  string   // all text, thoughts excluded
	}{
		{
			name:      "explicit chunks",
			reply:     geminitest.Reply{Chunks: []string{"one ", "two ", "three"}},
			wantTexts: []string{"one ", "two ", "three"},
			wantText:  "one two three",
		},
		{
			name:      "text split at words",
			reply:     geminitest.Reply{Text: "a b c d e f g h i j"},
			wantTexts: []string{"a b c d ", "e f g h ", "i j"},
			wantText:  "a b c d e f g h i j",
		},
		{
			name: "parts first, then text",
			reply: geminitest.Reply{
				Parts: []*genai.Part{{Text: "thinking", Thought: true, ThoughtSignature: sig}},
				Text:  "answer",
			},
			wantTexts: []string{"thinking", "answer"},
			wantText:  "answer",
		},
		{
			name:      "empty answer is one chunk",
			reply:     geminitest.Reply{},
			wantTexts: []string{""},
			wantText:  "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.Enqueue(tt.reply)
			chunks, err := collect(newClient(t, srv).Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if len(chunks) != len(tt.wantTexts) {
				t.Fatalf("got %d chunks, want %d", len(chunks), len(tt.wantTexts))
			}
			var all strings.Builder
			for i, c := range chunks {
				var text string
				for _, p := range c.Candidates[0].Content.Parts {
					text += p.Text
				}
				if text != tt.wantTexts[i] {
					t.Errorf("chunk %d text = %q, want %q", i, text, tt.wantTexts[i])
				}
				all.WriteString(c.Text())
				last := i == len(chunks)-1
				if (c.UsageMetadata != nil) != last {
					t.Errorf("chunk %d: usage metadata present = %v, want %v", i, c.UsageMetadata != nil, last)
				}
				if got := c.Candidates[0].FinishReason; (got == genai.FinishReasonStop) != last {
					t.Errorf("chunk %d: finish reason %q", i, got)
				}
			}
			if all.String() != tt.wantText {
				t.Errorf("reassembled text = %q, want %q", all.String(), tt.wantText)
			}
			if p := chunks[0].Candidates[0].Content.Parts; len(tt.reply.Parts) > 0 && !bytes.Equal(p[0].ThoughtSignature, sig) {
				t.Errorf("thought signature = %q, want %q", p[0].ThoughtSignature, sig)
			}
		})
	}
}

func TestStreamFunctionCall(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Parts: []*genai.Part{{
		FunctionCall:     &genai.FunctionCall{Name: "lookup", Args: map[string]any{"q": "disk"}},
		ThoughtSignature: []byte{1, 2, 3},
	}}})
	chunks, err := collect(newClient(t, srv).Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 {
		t.Fatalf("got %d chunks, want 1", len(chunks))
	}
	p := chunks[0].Candidates[0].Content.Parts[0]
	if p.FunctionCall == nil || p.FunctionCall.Name != "lookup" || p.FunctionCall.Args["q"] != "disk" || !bytes.Equal(p.ThoughtSignature, []byte{1, 2, 3}) {
		t.Errorf("part = %s", jsonOf(t, p))
	}
}

func TestCountTokens(t *testing.T) {
	t.Parallel()
	t.Run("estimate", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Text: "not consumed by countTokens"})
		c := newClient(t, srv)
		resp, err := c.Models.CountTokens(context.Background(), model, genai.Text(strings.Repeat("x", 40)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.TotalTokens != 10 {
			t.Errorf("TotalTokens = %d, want 10", resp.TotalTokens)
		}
		gen, err := c.Models.GenerateContent(context.Background(), model, genai.Text("x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if gen.Text() != "not consumed by countTokens" {
			t.Errorf("queued reply was consumed by countTokens; got %q", gen.Text())
		}
		if k := srv.Requests()[0].Kind; k != geminitest.KindCountTokens {
			t.Errorf("Kind = %q", k)
		}
	})
	t.Run("handler sets the count", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
			if r.Kind == geminitest.KindCountTokens {
				return geminitest.Reply{Usage: &genai.GenerateContentResponseUsageMetadata{TotalTokenCount: 1234}}
			}
			return geminitest.Reply{}
		}))
		resp, err := newClient(t, srv).Models.CountTokens(context.Background(), model, genai.Text("hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.TotalTokens != 1234 {
			t.Errorf("TotalTokens = %d, want 1234", resp.TotalTokens)
		}
	})
}

func TestRecordedRequests(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	history := []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "first question"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "hmm", Thought: true, ThoughtSignature: []byte("sig")},
			{FunctionCall: &genai.FunctionCall{Name: "f", Args: map[string]any{"a": "b"}}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{Name: "f", Response: map[string]any{"output": "done"}}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "second "}, {Text: "question"}}},
	}
	temp := float32(0.25)
	budget := int32(128)
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "You are terse."}}},
		Temperature:       &temp,
		MaxOutputTokens:   256,
		ResponseMIMEType:  "application/json",
		ThinkingConfig:    &genai.ThinkingConfig{ThinkingBudget: &budget, IncludeThoughts: true},
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
			Name: "f", Description: "does f",
		}}}},
	}
	if _, err := c.Models.GenerateContent(ctx, model, history, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(c.Models.GenerateContentStream(ctx, "gemini-2.5-pro", genai.Text("streamed"), nil)); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests, want 2", len(reqs))
	}
	r := reqs[0]
	checks := []struct {
		name      string
		got, want any
	}{
		{"Seq", r.Seq, int64(1)},
		{"Kind", r.Kind, geminitest.KindGenerateContent},
		{"Model", r.Model, model},
		{"Path", r.Path, "/v1beta/models/" + model + ":generateContent"},
		{"APIKey", r.APIKey(), "test-key"},
		{"x-goog-api-key", r.Header.Get("x-goog-api-key"), "test-key"},
		{"LastUserText", r.LastUserText(), "second question"},
		{"SystemText", r.SystemText(), "You are terse."},
		{"Contents", jsonOf(t, r.Contents), jsonOf(t, history)},
		{"Temperature", *r.GenerationConfig.Temperature, temp},
		{"MaxOutputTokens", r.GenerationConfig.MaxOutputTokens, int32(256)},
		{"ResponseMIMEType", r.GenerationConfig.ResponseMIMEType, "application/json"},
		{"ThinkingBudget", *r.GenerationConfig.ThinkingConfig.ThinkingBudget, budget},
		{"IncludeThoughts", r.GenerationConfig.ThinkingConfig.IncludeThoughts, true},
		{"Tool", r.Tools[0].FunctionDeclarations[0].Name, "f"},
		{"stream Seq", reqs[1].Seq, int64(2)},
		{"stream Kind", reqs[1].Kind, geminitest.KindStreamGenerateContent},
		{"stream Model", reqs[1].Model, "gemini-2.5-pro"},
		{"stream LastUserText", reqs[1].LastUserText(), "streamed"},
		{"stream SystemInstruction", reqs[1].SystemInstruction == nil, true},
		{"stream GenerationConfig", reqs[1].GenerationConfig == nil, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if reqs[1].Time.Before(r.Time) {
		t.Errorf("request times out of order: %v, %v", r.Time, reqs[1].Time)
	}
	if !json.Valid(r.Body) || !bytes.Contains(r.Body, []byte(`"generationConfig"`)) {
		t.Errorf("Body = %s", r.Body)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      geminitest.Reply
		wantCode   int
		wantStatus string
		wantMsg    string
		wantDelay  string // retryDelay of a RetryInfo detail, if any
	}{
		{"429 with retry delay", geminitest.Reply{Status: 429, RetryDelay: 1500 * time.Millisecond}, 429, "RESOURCE_EXHAUSTED", "", "1.5s"},
		{"503", geminitest.Reply{Status: 503}, 503, "UNAVAILABLE", "overloaded", ""},
		{"500", geminitest.Reply{Status: 500}, 500, "INTERNAL", "", ""},
		{"400 custom message", geminitest.Reply{Status: 400, ErrorMessage: "API key not valid."}, 400, "INVALID_ARGUMENT", "API key not valid.", ""},
		{"403", geminitest.Reply{Status: 403}, 403, "PERMISSION_DENIED", "", ""},
		{"404 custom status", geminitest.Reply{Status: 404, ErrorStatus: "NOT_FOUND", ErrorMessage: "models/x is not found"}, 404, "NOT_FOUND", "is not found", ""},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				t.Parallel()
				srv := geminitest.NewServer(t)
				srv.Enqueue(tt.reply)
				c := newClient(t, srv)
				var err error
				if stream {
					var chunks []*genai.GenerateContentResponse
					chunks, err = collect(c.Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
					if len(chunks) != 0 {
						t.Errorf("got %d chunks before the error, want 0", len(chunks))
					}
				} else {
					_, err = c.Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil)
				}
				var apiErr genai.APIError // a value: a *genai.APIError target does not match
				if !errors.As(err, &apiErr) {
					t.Fatalf("error %v (%T) is not a genai.APIError", err, err)
				}
				if apiErr.Code != tt.wantCode || apiErr.Status != tt.wantStatus || !strings.Contains(apiErr.Message, tt.wantMsg) || apiErr.Message == "" {
					t.Errorf("APIError = %+v, want code %d status %s message containing %q", apiErr, tt.wantCode, tt.wantStatus, tt.wantMsg)
				}
				var gotDelay string
				for _, d := range apiErr.Details {
					if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo" {
						gotDelay, _ = d["retryDelay"].(string)
					}
				}
				if gotDelay != tt.wantDelay {
					t.Errorf("retryDelay = %q, want %q (details %v)", gotDelay, tt.wantDelay, apiErr.Details)
				}
				if st := srv.Stats(); st.Errors != 1 {
					t.Errorf("Stats().Errors = %d, want 1", st.Errors)
				}
			})
		}
	}
}

func TestStreamErrorAfterChunks(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Enqueue(geminitest.Reply{Chunks: []string{"partial ", "answer"}, Status: 503})
	chunks, err := collect(newClient(t, srv).Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
	if len(chunks) != 2 || chunks[0].Text() != "partial " || chunks[1].Text() != "answer" {
		t.Errorf("chunks before the error: %d", len(chunks))
	}
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 503 {
		t.Errorf("error = %v, want a 503 genai.APIError", err)
	}
}

func TestBlockReason(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.Enqueue(geminitest.Reply{BlockReason: genai.BlockedReasonSafety})
			c := newClient(t, srv)
			var resp *genai.GenerateContentResponse
			if stream {
				chunks, err := collect(c.Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
				if err != nil || len(chunks) != 1 {
					t.Fatalf("got %d chunks, error %v; want 1 chunk", len(chunks), err)
				}
				resp = chunks[0]
			} else {
				var err error
				if resp, err = c.Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil); err != nil {
					t.Fatal(err)
				}
			}
			if len(resp.Candidates) != 0 {
				t.Errorf("got %d candidates, want none", len(resp.Candidates))
			}
			if resp.PromptFeedback == nil || resp.PromptFeedback.BlockReason != genai.BlockedReasonSafety {
				t.Errorf("PromptFeedback = %+v, want block reason SAFETY", resp.PromptFeedback)
			}
			if resp.Text() != "" {
				t.Errorf("Text() = %q", resp.Text())
			}
		})
	}
}

func TestTiming(t *testing.T) {
	t.Parallel()
	t.Run("reply latency", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Text: "slow", Latency: 150 * time.Millisecond})
		start := time.Now()
		if _, err := newClient(t, srv).Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("answered after %v, want at least 150ms", d)
		}
	})
	t.Run("default latency", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t, geminitest.WithLatency(100*time.Millisecond))
		start := time.Now()
		if _, err := newClient(t, srv).Models.CountTokens(context.Background(), model, genai.Text("hi"), nil); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 100*time.Millisecond {
			t.Errorf("answered after %v, want at least 100ms", d)
		}
	})
	t.Run("chunk delay", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t, geminitest.WithChunkDelay(time.Hour))
		srv.Enqueue(geminitest.Reply{Chunks: []string{"a", "b", "c", "d"}, Latency: 50 * time.Millisecond, ChunkDelay: 60 * time.Millisecond})
		var arrivals []time.Duration
		start := time.Now()
		for _, err := range newClient(t, srv).Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil) {
			if err != nil {
				t.Fatal(err)
			}
			arrivals = append(arrivals, time.Since(start))
		}
		if len(arrivals) != 4 {
			t.Fatalf("got %d chunks, want 4", len(arrivals))
		}
		if arrivals[0] < 50*time.Millisecond {
			t.Errorf("first chunk after %v, want at least 50ms", arrivals[0])
		}
		for i := 1; i < len(arrivals); i++ {
			// The chunks are sent 60ms apart; allow for reads that batch a little.
			if gap := arrivals[i] - arrivals[0]; gap < time.Duration(i)*60*time.Millisecond-10*time.Millisecond {
				t.Errorf("chunk %d arrived %v after the first, want at least %v", i, gap, time.Duration(i)*60*time.Millisecond)
			}
		}
	})
}

func TestHang(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.Enqueue(geminitest.Reply{Hang: true})
			c := newClient(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			deadline, _ := ctx.Deadline()
			var err error
			if stream {
				_, err = collect(c.Models.GenerateContentStream(ctx, model, genai.Text("hi"), nil))
			} else {
				_, err = c.Models.GenerateContent(ctx, model, genai.Text("hi"), nil)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error = %v, want context.DeadlineExceeded", err)
			}
			// Measured against the context's own deadline: a clock started after the context
			// would count short by however long the test was descheduled in between.
			if early := deadline.Sub(time.Now()); early > 0 {
				t.Errorf("returned %v before the deadline", early)
			}
			// The server notices the client leaving and frees the handler.
			waitFor(t, func() bool { return srv.Stats().InFlight == 0 })
		})
	}
	t.Run("stream stalls after content", func(t *testing.T) {
		t.Parallel()
		srv := geminitest.NewServer(t)
		srv.Enqueue(geminitest.Reply{Chunks: []string{"a", "b"}, Hang: true})
		// The client gives up once both chunks are in (not at a deadline, which a loaded
		// machine could reach before they arrive).
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var chunks []*genai.GenerateContentResponse
		var err error
		for resp, rerr := range newClient(t, srv).Models.GenerateContentStream(ctx, model, genai.Text("hi"), nil) {
			if err = rerr; err != nil {
				break
			}
			if chunks = append(chunks, resp); len(chunks) == 2 {
				cancel()
			}
		}
		if len(chunks) != 2 || err == nil {
			t.Errorf("got %d chunks and error %v; want 2 chunks, then an error", len(chunks), err)
		}
	})
}

func TestCloseWithHangingRequest(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Hang: true}
	}))
	c := newClient(t, srv)
	errc := make(chan error, 2)
	go func() {
		_, err := c.Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil)
		errc <- err
	}()
	go func() {
		_, err := collect(c.Models.GenerateContentStream(context.Background(), model, genai.Text("hi"), nil))
		errc <- err
	}()
	waitFor(t, func() bool { return srv.Stats().InFlight == 2 })

	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return with hanging requests in flight")
	}
	for range 2 {
		select {
		case err := <-errc:
			if err == nil {
				t.Error("a hanging call succeeded after Close")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a hanging call did not return after Close")
		}
	}
	srv.Close() // idempotent
}

func TestConcurrency(t *testing.T) {
	t.Parallel()
	const n = 50
	// Every handler waits until all n requests are in, so all n are in flight at
	// once; the timeout only keeps a failure from hanging the test.
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		arrived.Done()
		select {
		case <-all:
		case <-time.After(30 * time.Second):
		}
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	c := newClient(t, srv)

	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			prompt := fmt.Sprintf("q%d", i)
			var err error
			if i%2 == 0 {
				var resp *genai.GenerateContentResponse
				resp, err = c.Models.GenerateContent(context.Background(), model, genai.Text(prompt), nil)
				if err == nil && resp.Text() != "answer to "+prompt {
					err = fmt.Errorf("got %q", resp.Text())
				}
			} else {
				var chunks []*genai.GenerateContentResponse
				chunks, err = collect(c.Models.GenerateContentStream(context.Background(), model, genai.Text(prompt), nil))
				var text string
				for _, ch := range chunks {
					text += ch.Text()
				}
				if err == nil && text != "answer to "+prompt {
					err = fmt.Errorf("got %q", text)
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	st := srv.Stats()
	if st.Requests != n || st.MaxInFlight != n || st.InFlight != 0 || st.Errors != 0 {
		t.Errorf("Stats() = %+v, want %d requests, %d max in flight, none in flight, no errors", st, n, n)
	}
	if got := len(srv.Requests()); got != n {
		t.Errorf("recorded %d requests, want %d", got, n)
	}
}

func TestRandomFaults(t *testing.T) {
	t.Parallel()
	const n = 1000
	count := func(seed uint64) int {
		f := geminitest.RandomFaults(0.2, seed, geminitest.Reply{Status: 429})
		faults := 0
		for i := int64(1); i <= n; i++ {
			if r := f(&geminitest.Request{Seq: i}); r != nil {
				if r.Status != 429 {
					t.Fatalf("fault = %+v", r)
				}
				faults++
			}
		}
		return faults
	}
	a, b := count(7), count(7)
	if a != b {
		t.Errorf("same seed gave %d and %d faults", a, b)
	}
	if a < n*15/100 || a > n*25/100 {
		t.Errorf("%d faults in %d requests at rate 0.2", a, n)
	}
	if count(8) == a && count(9) == a {
		t.Errorf("different seeds gave the same count %d", a)
	}
	if got := geminitest.RandomFaults(0, 1, geminitest.Reply{Status: 500})(&geminitest.Request{Seq: 1}); got != nil {
		t.Errorf("rate 0 gave a fault")
	}
}

// TestFaultsWithRetries drives concurrent calls through the SDK's own retries
// against faults that fail a call at most once in a row: every call succeeds.
func TestFaultsWithRetries(t *testing.T) {
	t.Parallel()
	const n = 60
	fault := geminitest.Reply{Status: 429, RetryDelay: time.Millisecond}
	srv := geminitest.NewServer(t, geminitest.WithFaults(geminitest.OncePerCall(geminitest.RandomFaults(0.3, 42, fault))))
	attempts := int32(3)
	delay, jitter := 0.01, 0.0
	c := newClient(t, srv, func(cc *genai.ClientConfig) {
		cc.HTTPOptions.RetryOptions = &genai.HTTPRetryOptions{Attempts: &attempts, InitialDelay: &delay, Jitter: &jitter}
	})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = c.Models.GenerateContent(context.Background(), model, genai.Text(fmt.Sprintf("call %d", i)), nil)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	st := srv.Stats()
	if st.Errors == 0 || st.Requests != n+st.Errors {
		t.Errorf("Stats() = %+v, want some faults, each followed by one retry", st)
	}
}

func TestWithoutRecording(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithoutRecording())
	if _, err := newClient(t, srv).Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("recorded %d requests", got)
	}
	if got := srv.Stats().Requests; got != 1 {
		t.Errorf("Stats().Requests = %d, want 1", got)
	}
}

func TestHandlerRouting(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if strings.Contains(r.SystemText(), "title") {
			return geminitest.Reply{Text: "A Title"}
		}
		return geminitest.Reply{Text: "body for " + r.Model}
	}))
	srv.Enqueue(geminitest.Reply{Text: "queued first"})
	c := newClient(t, srv)
	ctx := context.Background()
	titleCfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("Write a title.", genai.RoleUser)}
	for i, want := range []string{"queued first", "A Title", "body for " + model} {
		cfg := titleCfg
		if i != 1 {
			cfg = nil
		}
		resp, err := c.Models.GenerateContent(ctx, model, genai.Text("x"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text() != want {
			t.Errorf("call %d: %q, want %q", i, resp.Text(), want)
		}
	}
}

// TestPaths checks the routes outside the SDK's default path: other API
// versions, the Vertex AI layout, unknown paths and bad bodies.
func TestPaths(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	tests := []struct {
		method, path, body string
		wantCode           int
		wantModel          string
	}{
		{"POST", "/v1/models/gemini-x:generateContent", body, 200, "gemini-x"},
		{"POST", "/v1alpha/models/gemini-x:countTokens", body, 200, "gemini-x"},
		{"POST", "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-v:generateContent", body, 200, "gemini-v"},
		{"POST", "/v1beta/tunedModels/my-tune:generateContent", body, 200, "tunedModels/my-tune"},
		{"POST", "/v1beta/models/gemini-x:predict", body, 404, ""},
		{"POST", "/v2/models/gemini-x:generateContent", body, 404, ""},
		{"GET", "/v1beta/models/gemini-x:generateContent", "", 404, ""},
		{"GET", "/", "", 404, ""},
		{"POST", "/v1beta/models/gemini-x:generateContent", "{not json", 400, "gemini-x"},
		{"POST", "/v1beta/models/gemini-x:generateContent", `{"contents":[]}`, 400, "gemini-x"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL()+tt.path, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantCode {
			t.Errorf("%s %s: status %d, want %d (%s)", tt.method, tt.path, resp.StatusCode, tt.wantCode, b)
		}
		if tt.wantCode != 200 {
			var e struct{ Error genai.APIError }
			if err := json.Unmarshal(b, &e); err != nil || e.Error.Code != tt.wantCode || e.Error.Status == "" || e.Error.Message == "" {
				t.Errorf("%s %s: error body %s", tt.method, tt.path, b)
			}
		}
	}
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, r.Model)
	}
	if got, want := strings.Join(models, ","), "gemini-x,gemini-x,gemini-v,tunedModels/my-tune,gemini-x,gemini-x"; got != want {
		t.Errorf("recorded models %s, want %s", got, want)
	}
}

// TestOtherClientSetups runs the SDK with the v1 API version, the Vertex AI
// backend in API key (express) mode, and the base URL from the environment.
func TestOtherClientSetups(t *testing.T) {
	srv := geminitest.NewServer(t)
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	t.Setenv("GEMINI_API_KEY", "env-key")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")

	setups := []struct {
		name     string
		cc       *genai.ClientConfig
		wantPath string
		wantKey  string
	}{
		{"environment", &genai.ClientConfig{Backend: genai.BackendGeminiAPI}, "/v1beta/models/" + model + ":generateContent", "env-key"},
		{"v1", &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL(), APIVersion: "v1"}}, "/v1/models/" + model + ":generateContent", "k"},
		{"vertex express", &genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()}, "/v1beta1/publishers/google/models/" + model + ":generateContent", "k"},
	}
	for i, s := range setups {
		c, err := genai.NewClient(context.Background(), s.cc)
		if err != nil {
			t.Fatalf("%s: NewClient: %v", s.name, err)
		}
		resp, err := c.Models.GenerateContent(context.Background(), model, genai.Text(s.name), nil)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if resp.Text() != "ok: "+s.name {
			t.Errorf("%s: Text() = %q", s.name, resp.Text())
		}
		r := srv.Requests()[i]
		if r.Path != s.wantPath || r.APIKey() != s.wantKey || r.Model != model {
			t.Errorf("%s: path %s, key %q, model %q; want %s, %q, %q", s.name, r.Path, r.APIKey(), r.Model, s.wantPath, s.wantKey, model)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	eventually.True(t, 10*time.Second, "the condition", cond, nil)
}
