package geminitest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

const g3Model = "gemini-3.8-flash"

func apiError(t *testing.T, err error) genai.APIError {
	t.Helper()
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("want an API error, got %v", err)
	}
	return apiErr
}

// Retired, unknown and non-chat models answer 404 with the API's message, for unary and
// streamed calls alike; current ones answer.
func TestGemini3Models404(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3())
	c := newClient(t, srv)
	ctx := context.Background()
	for _, m := range []string{"gemini-2.5-flash", "gemini-2.0-flash", "gemini-9-imaginary", "gemini-embedding-001"} {
		_, err := c.Models.GenerateContent(ctx, m, genai.Text("hi"), nil)
		e := apiError(t, err)
		want := "models/" + m + " is not found for API version v1beta, or is not supported for generateContent"
		if e.Code != 404 || e.Status != "NOT_FOUND" || !strings.Contains(e.Message, want) {
			t.Fatalf("%s: %d %s %q", m, e.Code, e.Status, e.Message)
		}
		if _, err := collect(c.Models.GenerateContentStream(ctx, m, genai.Text("hi"), nil)); apiError(t, err).Code != 404 {
			t.Fatalf("%s streamed: %v", m, err)
		}
	}
	for _, m := range []string{"gemini-3.8-flash", "gemini-3.1-pro-preview", "gemini-3.5-flash-lite"} {
		if _, err := c.Models.GenerateContent(ctx, m, genai.Text("hi"), nil); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	// Without Gemini 3 mode any model answers.
	legacy := newClient(t, geminitest.NewServer(t))
	if _, err := legacy.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("hi"), nil); err != nil {
		t.Fatal(err)
	}
}

// Models.List pages through what is served (not the retired models), with each model's
// methods, limits and thinking.
func TestModelList(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModelPageSize(2))
	c := newClient(t, srv)
	ctx := context.Background()
	page, err := c.Models.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	pages := 0
	for {
		pages++
		for _, m := range page.Items {
			names = append(names, m.Name)
			if m.Name == "models/gemini-3.8-flash" && (m.InputTokenLimit != 1048576 || !m.Thinking || m.DisplayName != "Gemini 3.8 Flash" ||
				strings.Join(m.SupportedActions, ",") != "generateContent,countTokens,createCachedContent,batchGenerateContent") {
				t.Fatalf("model: %+v", m)
			}
		}
		if page, err = page.Next(ctx); errors.Is(err, genai.ErrPageDone) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	want := "models/gemini-3.8-flash models/gemini-3.7-flash models/gemini-3.6-flash models/gemini-3.5-flash-lite models/gemini-3.1-flash-lite models/gemini-3.1-pro-preview models/gemini-embedding-001"
	if strings.Join(names, " ") != want || pages != 4 || srv.ModelListRequests() != 4 {
		t.Fatalf("%d pages (%d requests): %s", pages, srv.ModelListRequests(), names)
	}
	m, err := c.Models.Get(ctx, "gemini-3.1-pro-preview", nil)
	if err != nil || m.DisplayName != "Gemini 3.1 Pro Preview" {
		t.Fatalf("get: %+v %v", m, err)
	}
	if _, err := c.Models.Get(ctx, "gemini-2.5-flash", nil); apiError(t, err).Code != 404 {
		t.Fatalf("get retired: %v", err)
	}
}

func TestGemini3ThinkingConfig(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3())
	c := newClient(t, srv)
	budget := int32(0)
	for _, tc := range []struct {
		name  string
		model string
		cfg   *genai.ThinkingConfig
		want  string // "" accepted, else part of the 400's message
	}{
		{"level offered", g3Model, &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}, ""},
		{"level not offered", g3Model, &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelMinimal}, "Thinking level MINIMAL is not supported for this model. Supported levels: LOW, MEDIUM, HIGH."},
		{"lite offers minimal", "gemini-3.5-flash-lite", &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelMinimal}, ""},
		{"both", g3Model, &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow, ThinkingBudget: &budget}, "not supported together"},
		{"budget alone is taken for compatibility", g3Model, &genai.ThinkingConfig{ThinkingBudget: &budget}, ""},
	} {
		_, err := c.Models.GenerateContent(context.Background(), tc.model, genai.Text("hi"), &genai.GenerateContentConfig{ThinkingConfig: tc.cfg})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if e := apiError(t, err); e.Code != 400 || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %d %q", tc.name, e.Code, e.Message)
		}
	}
	legacyLevels := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModels(geminitest.ModelInfo{
		Name: "gemini-2.5-flash", Methods: []string{"generateContent"}, Budget: true, Thinking: true}))
	_, err := newClient(t, legacyLevels).Models.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("hi"),
		&genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}})
	if e := apiError(t, err); e.Code != 400 || e.Message != "Thinking level is not supported for this model." {
		t.Fatalf("a level on a budget model: %v", err)
	}
}

// Thinking counts against maxOutputTokens: a cap the thinking reaches ends MAX_TOKENS with no
// text; room enough gives the text, and usage reports the thoughts apart.
func TestGemini3ThinkingUsesTheCap(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "Drop Point DNS Query"}
	}))
	c := newClient(t, srv)
	ctx := context.Background()
	tight := &genai.GenerateContentConfig{MaxOutputTokens: 64, ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}}
	resp, err := c.Models.GenerateContent(ctx, g3Model, genai.Text("title?"), tight)
	if err != nil {
		t.Fatal(err)
	}
	cand := resp.Candidates[0]
	if cand.FinishReason != genai.FinishReasonMaxTokens || resp.Text() != "" || resp.UsageMetadata.ThoughtsTokenCount != 64 {
		t.Fatalf("tight cap: %s %q %+v", cand.FinishReason, resp.Text(), resp.UsageMetadata)
	}
	roomy := &genai.GenerateContentConfig{MaxOutputTokens: 64 + 2048, ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}}
	resp, err = c.Models.GenerateContent(ctx, g3Model, genai.Text("title?"), roomy)
	if err != nil {
		t.Fatal(err)
	}
	u := resp.UsageMetadata
	if resp.Text() != "Drop Point DNS Query" || resp.Candidates[0].FinishReason != genai.FinishReasonStop ||
		u.ThoughtsTokenCount != geminitest.ThinkingTokens()[genai.ThinkingLevelLow] || u.CandidatesTokenCount != 5 {
		t.Fatalf("roomy: %q %+v", resp.Text(), u)
	}
	// The text's last part is the signed empty one.
	parts := resp.Candidates[0].Content.Parts
	if last := parts[len(parts)-1]; last.Text != "" || len(last.ThoughtSignature) == 0 {
		t.Fatalf("last part %+v", last)
	}
	// The model's own level when none is asked: MEDIUM for 3.8 Flash.
	resp, err = c.Models.GenerateContent(ctx, g3Model, genai.Text("q"), nil)
	if err != nil || resp.UsageMetadata.ThoughtsTokenCount != geminitest.ThinkingTokens()[genai.ThinkingLevelMedium] {
		t.Fatalf("default level: %+v %v", resp.UsageMetadata, err)
	}
}

// Parallel calls stream as the API streams them: one event per call, each with an
// 8-character id, the first alone signed, then the signed empty text part with STOP. The
// content sent back as received, with each response's id, is taken; without the signature,
// without an id, with a changed signature or with an empty part it is a 400.
func TestGemini3FunctionCalls(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		last := r.Contents[len(r.Contents)-1]
		if last.Parts[0].FunctionResponse != nil {
			return geminitest.Reply{Text: "done"}
		}
		return geminitest.Reply{Parts: []*genai.Part{
			{FunctionCall: &genai.FunctionCall{Name: "sum", Args: map[string]any{"a": 2, "b": 3}}},
			{FunctionCall: &genai.FunctionCall{Name: "sum", Args: map[string]any{"a": 4, "b": 5}}},
		}}
	}))
	c := newClient(t, srv)
	ctx := context.Background()
	question := genai.NewContentFromText("add", genai.RoleUser)
	events, err := collect(c.Models.GenerateContentStream(ctx, g3Model, []*genai.Content{question}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 {
		t.Fatalf("%d events, want a call per event and the trailing part", len(events))
	}
	var model genai.Content
	model.Role = genai.RoleModel
	for i, ev := range events {
		parts := ev.Candidates[0].Content.Parts
		if len(parts) != 1 {
			t.Fatalf("event %d: %d parts", i, len(parts))
		}
		p := parts[0]
		switch i {
		case 0, 1:
			if p.FunctionCall == nil || len(p.FunctionCall.ID) != 8 || (i == 0) != (len(p.ThoughtSignature) > 0) || ev.Candidates[0].FinishReason != "" {
				t.Fatalf("event %d: %+v %+v", i, p, p.FunctionCall)
			}
		case 2:
			if p.Text != "" || len(p.ThoughtSignature) == 0 || ev.Candidates[0].FinishReason != genai.FinishReasonStop || ev.UsageMetadata.ThoughtsTokenCount == 0 {
				t.Fatalf("trailing event: %+v", ev.Candidates[0])
			}
		}
		model.Parts = append(model.Parts, p)
	}
	calls := model.Parts[:2]
	responses := func(withID bool) *genai.Content {
		out := &genai.Content{Role: genai.RoleUser}
		for _, p := range calls {
			fr := &genai.FunctionResponse{Name: "sum", Response: map[string]any{"sum": 5}}
			if withID {
				fr.ID = p.FunctionCall.ID
			}
			out.Parts = append(out.Parts, &genai.Part{FunctionResponse: fr})
		}
		return out
	}
	send := func(m *genai.Content, resp *genai.Content) error {
		_, err := collect(c.Models.GenerateContentStream(ctx, g3Model, []*genai.Content{question, m, resp}, nil))
		return err
	}
	if err := send(&model, responses(true)); err != nil {
		t.Fatalf("as received: %v", err)
	}
	unsigned := &genai.Content{Role: genai.RoleModel}
	changed := &genai.Content{Role: genai.RoleModel}
	empty := &genai.Content{Role: genai.RoleModel}
	for i, p := range model.Parts {
		u, ch := *p, *p
		if i == 0 {
			u.ThoughtSignature = nil
			ch.ThoughtSignature = append([]byte("x"), p.ThoughtSignature...)
		}
		unsigned.Parts = append(unsigned.Parts, &u)
		changed.Parts = append(changed.Parts, &ch)
		if i == 2 {
			empty.Parts = append(empty.Parts, &genai.Part{})
		} else {
			empty.Parts = append(empty.Parts, p)
		}
	}
	for _, tc := range []struct {
		name string
		m, r *genai.Content
		want string
	}{
		{"no signature", unsigned, responses(true), "missing a thought_signature"},
		{"changed signature", changed, responses(true), "Corrupted thought signature"},
		{"no ids", &model, responses(false), "does not answer function call"},
		{"empty part", empty, responses(true), "required oneof field 'data'"},
	} {
		if e := apiError(t, send(tc.m, tc.r)); e.Code != 400 || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %d %q", tc.name, e.Code, e.Message)
		}
	}
	// A call of an earlier turn needs no signature (only the current turn's are checked).
	later := []*genai.Content{question, unsigned, responses(true), genai.NewContentFromText("done", genai.RoleModel), genai.NewContentFromText("more", genai.RoleUser)}
	if _, err := collect(c.Models.GenerateContentStream(ctx, g3Model, later, nil)); err != nil {
		t.Fatalf("earlier turn: %v", err)
	}
}

// A batch job in Gemini 3 mode: a job for a model that is not served is refused with the
// API's 404 on both backends; each request of a job is checked and answered as a direct
// request is: both thinking fields a 400 of its own, thinking charged against the output cap,
// thoughts reported, the signed empty trailing part.
func TestGemini3Batch(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		return geminitest.Reply{Text: "answer to " + r.Key}
	}))
	c := newClient(t, srv)
	ctx := context.Background()
	req := func(key string, cfg *genai.GenerateContentConfig) *genai.InlinedRequest {
		return &genai.InlinedRequest{Contents: genai.Text("question " + key), Metadata: map[string]string{"key": key}, Config: cfg}
	}
	src := &genai.BatchJobSource{InlinedRequests: []*genai.InlinedRequest{
		req("own", nil),
		req("low", &genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}}),
		req("both", &genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow, ThinkingBudget: genai.Ptr[int32](0)}}),
		req("capped", &genai.GenerateContentConfig{MaxOutputTokens: 100}),
	}}
	for _, m := range []string{"gemini-2.5-flash", "gemini-9-imaginary", "gemini-embedding-001"} {
		_, err := c.Batches.Create(ctx, m, src, &genai.CreateBatchJobConfig{DisplayName: "retired"})
		if e := apiError(t, err); e.Code != 404 || !strings.Contains(e.Message, "models/"+m+" is not found for API version v1beta, or is not supported for batchGenerateContent") {
			t.Fatalf("%s: %d %q", m, e.Code, e.Message)
		}
	}
	// Vertex AI's batch prediction job for a retired model: its own 404.
	_, sc := testenv.GCS(t)
	vsrv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithVertexBatches(geminitest.VertexBatches{Objects: testenv.GCSObjects{Client: sc}}))
	_, err := vertexClient(t, vsrv).Batches.Create(ctx, "gemini-2.5-flash", &genai.BatchJobSource{Format: "jsonl", GCSURI: []string{"gs://" + testenv.Bucket + "/in/input.jsonl"}},
		&genai.CreateBatchJobConfig{DisplayName: "retired", Dest: &genai.BatchJobDestination{Format: "jsonl", GCSURI: "gs://" + testenv.Bucket + "/out"}})
	if e := apiError(t, err); e.Code != 404 || !strings.Contains(e.Message, "publishers/google/models/gemini-2.5-flash` was not found") {
		t.Fatalf("Vertex AI: %d %q", e.Code, e.Message)
	}

	job, err := c.Batches.Create(ctx, g3Model, src, &genai.CreateBatchJobConfig{DisplayName: "current"})
	if err != nil {
		t.Fatal(err)
	}
	srv.AdvanceBatches()
	srv.AdvanceBatches()

	thinking := geminitest.ThinkingTokens()
	seen := 0
	for _, r := range readRawInlined(t, srv, job.Name) {
		seen++
		k := r.Metadata["key"]
		if k == "both" {
			if r.Error == nil || r.Error.Code != 400 || !strings.Contains(r.Error.Message, "not supported together") {
				t.Fatalf("both thinking fields: %+v", r.Error)
			}
			continue
		}
		if r.Error != nil || r.Response == nil {
			t.Fatalf("%s: %+v", k, r.Error)
		}
		cand, u := r.Response.Candidates[0], r.Response.UsageMetadata
		switch k {
		case "capped":
			if cand.FinishReason != genai.FinishReasonMaxTokens || r.Response.Text() != "" || u.ThoughtsTokenCount != 100 {
				t.Fatalf("capped: %s %q %+v", cand.FinishReason, r.Response.Text(), u)
			}
			continue
		case "own":
			if u.ThoughtsTokenCount != thinking[genai.ThinkingLevelMedium] {
				t.Fatalf("own level: %+v", u)
			}
		case "low":
			if u.ThoughtsTokenCount != thinking[genai.ThinkingLevelLow] {
				t.Fatalf("low level: %+v", u)
			}
		}
		parts := cand.Content.Parts
		if last := parts[len(parts)-1]; r.Response.Text() != "answer to "+k || last.Text != "" || len(last.ThoughtSignature) == 0 {
			t.Fatalf("%s: %+v", k, parts)
		}
	}
	if seen != 4 {
		t.Fatalf("%d responses", seen)
	}
}
