package modelcfg_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/modelcfg"
)

func TestProfiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model   string
		kind    modelcfg.Kind
		levels  string
		def     genai.ThinkingLevel
		lowest  genai.ThinkingLevel
		known   bool
		minBudg int32
	}{
		{"gemini-3.8-flash", modelcfg.Levels, "low, medium, high", "MEDIUM", "LOW", true, 0},
		{"models/gemini-3.7-flash", modelcfg.Levels, "low, medium, high", "MEDIUM", "LOW", true, 0},
		{"gemini-3.6-flash", modelcfg.Levels, "low, medium, high", "MEDIUM", "LOW", true, 0},
		{"gemini-3.1-pro-preview", modelcfg.Levels, "low, medium, high", "HIGH", "LOW", true, 0},
		{"gemini-3.5-flash-lite", modelcfg.Levels, "minimal, low, medium, high", "MINIMAL", "MINIMAL", true, 0},
		{"gemini-3.1-flash-lite", modelcfg.Levels, "minimal, low, medium, high", "MINIMAL", "MINIMAL", true, 0},
		{"gemini-2.5-flash", modelcfg.Budget, "minimal, low, medium, high", "", "", true, 0},
		{"gemini-2.5-pro", modelcfg.Budget, "minimal, low, medium, high", "", "", true, 128},
		// Placed by name: a later flash, lite and pro like the current ones; 2.5 by budget;
		// older ones do not think; anything else is unknown (every level passed on).
		{"gemini-3.9-flash", modelcfg.Levels, "low, medium, high", "MEDIUM", "LOW", false, 0},
		// Gemini 4, as third parties report it: no MINIMAL, an XHIGH, HIGH by default.
		{"gemini-4-neon", modelcfg.Levels, "low, medium, high, xhigh", "HIGH", "LOW", false, 0},
		{"gemini-4-flash-lite-preview", modelcfg.Levels, "low, medium, high, xhigh", "HIGH", "LOW", false, 0},
		{"gemini-4.2-pro", modelcfg.Levels, "low, medium, high, xhigh", "HIGH", "LOW", false, 0},
		{"gemini-flash-latest", modelcfg.Levels, "low, medium, high", "MEDIUM", "LOW", false, 0},
		{"gemini-2.5-pro-preview-06-05", modelcfg.Budget, "minimal, low, medium, high", "", "", false, 128},
		{"gemini-2.0-flash", modelcfg.NoThinking, "", "", "", false, 0},
		{"gemini-test", modelcfg.Unknown, "minimal, low, medium, high", "", "", false, 0},
		{"tunedModels/abc", modelcfg.Unknown, "minimal, low, medium, high", "", "", false, 0},
	} {
		p := modelcfg.For(tc.model)
		if p.Kind != tc.kind || p.LevelNames() != tc.levels || p.Default != tc.def || p.Lowest() != tc.lowest || p.Known != tc.known || p.MinBudget != tc.minBudg {
			t.Errorf("%s: %+v (levels %q, lowest %q)", tc.model, p, p.LevelNames(), p.Lowest())
		}
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model, in string
		want      genai.ThinkingLevel
		err       string
	}{
		{"gemini-3.8-flash", "", "", ""},
		{"gemini-3.8-flash", "High", genai.ThinkingLevelHigh, ""},
		{"gemini-3.8-flash", "minimal", "", "gemini-3.8-flash does not offer thinking level \"minimal\": it offers low, medium, high"},
		{"gemini-3.8-flash", "extreme", "", "it offers low, medium, high"},
		{"gemini-3.5-flash-lite", "minimal", genai.ThinkingLevelMinimal, ""},
		{"gemini-2.5-flash", "low", genai.ThinkingLevelLow, ""},
		{"gemini-2.0-flash", "low", "", "gemini-2.0-flash does not think"},
		{"gemini-4-neon", "xhigh", modelcfg.ThinkingLevelXHigh, ""},
		{"gemini-4-neon", "minimal", "", "it offers low, medium, high, xhigh"},
		{"gemini-3.8-flash", "xhigh", "", "it offers low, medium, high"},
	} {
		got, err := modelcfg.For(tc.model).ParseLevel(tc.in)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %q: %q %v", tc.model, tc.in, got, err)
		}
		var le *modelcfg.LevelError
		if tc.err != "" && !errors.As(err, &le) {
			t.Errorf("%s %q: not a LevelError", tc.model, tc.in)
		}
	}
}

// Main answers: a level on Gemini 3, a budget on 2.5, never both; nothing for the model's own.
// Auxiliary requests: the lowest level with room for it and no temperature on Gemini 3; the
// least budget and the temperature on 2.5.
func TestRequestConfig(t *testing.T) {
	t.Parallel()
	if modelcfg.For("gemini-3.8-flash").Main("") != nil {
		t.Fatal("the model's own level sends no configuration")
	}
	if tc := modelcfg.For("gemini-3.8-flash").Main(genai.ThinkingLevelHigh); tc.ThinkingLevel != genai.ThinkingLevelHigh || tc.ThinkingBudget != nil {
		t.Fatalf("gemini 3: %+v", tc)
	}
	for level, want := range map[genai.ThinkingLevel]int32{"MINIMAL": 128, "LOW": 1024, "MEDIUM": 8192, "HIGH": 32768} {
		if tc := modelcfg.For("gemini-2.5-pro").Main(level); tc.ThinkingLevel != "" || *tc.ThinkingBudget != want {
			t.Fatalf("2.5 pro %s: %+v", level, tc)
		}
	}
	aux := modelcfg.For("gemini-3.8-flash").Auxiliary(64, 0.2)
	if aux.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow || aux.ThinkingConfig.ThinkingBudget != nil || aux.Temperature != nil || aux.MaxOutputTokens != 64+2048 {
		t.Fatalf("gemini 3 auxiliary: %+v %+v", aux, aux.ThinkingConfig)
	}
	aux = modelcfg.For("gemini-3.5-flash-lite").Auxiliary(64, 0)
	if aux.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelMinimal || aux.MaxOutputTokens != 64+1024 || aux.Temperature != nil {
		t.Fatalf("flash-lite auxiliary: %+v", aux)
	}
	aux = modelcfg.For("gemini-2.5-pro").Auxiliary(64, 0.2)
	if *aux.ThinkingConfig.ThinkingBudget != 128 || aux.ThinkingConfig.ThinkingLevel != "" || *aux.Temperature != 0.2 || aux.MaxOutputTokens != 64+128 {
		t.Fatalf("2.5 auxiliary: %+v", aux)
	}
	aux = modelcfg.For("gemini-test").Auxiliary(64, 0.2)
	if aux.ThinkingConfig != nil || aux.Temperature != nil || aux.MaxOutputTokens <= 64 {
		t.Fatalf("unknown auxiliary: %+v", aux)
	}
	if r := modelcfg.WithRoom(&genai.GenerateContentConfig{MaxOutputTokens: 100}); r.MaxOutputTokens != 8292 {
		t.Fatalf("room: %d", r.MaxOutputTokens)
	}
}

func client(t *testing.T, srv *geminitest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An auxiliary answer that thinking cut to nothing is asked once more with room; a second
// one is ErrNoText, never an empty success. Usage sums both.
func TestGenerateRetriesWithRoom(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		thoughts []int32 // of each answer
		want     error
		requests int
	}{
		{"fits", []int32{100}, nil, 1},
		{"retried with room", []int32{5000, 5000}, nil, 2},
		{"still nothing", []int32{5000, 1 << 20}, modelcfg.ErrNoText, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithGemini3())
			for _, n := range tc.thoughts {
				srv.Enqueue(geminitest.Reply{Text: "Drop Point DNS", ThoughtTokens: n})
			}
			cfg := modelcfg.For("gemini-3.8-flash").Auxiliary(64, 0)
			resp, err := modelcfg.Generate(context.Background(), client(t, srv).Models, "gemini-3.8-flash", genai.Text("title?"), cfg)
			if !errors.Is(err, tc.want) || len(srv.Requests()) != tc.requests {
				t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
			}
			if tc.want == nil && resp.Text() != "Drop Point DNS" {
				t.Fatalf("text %q", resp.Text())
			}
			if tc.requests == 2 {
				r := srv.Requests()
				if r[1].GenerationConfig.MaxOutputTokens <= r[0].GenerationConfig.MaxOutputTokens {
					t.Fatalf("no room on the retry: %d then %d", r[0].GenerationConfig.MaxOutputTokens, r[1].GenerationConfig.MaxOutputTokens)
				}
				if resp.UsageMetadata.ThoughtsTokenCount <= r[0].GenerationConfig.MaxOutputTokens {
					t.Fatalf("usage does not sum both: %+v", resp.UsageMetadata)
				}
			}
		})
	}
}

// A retired model: the error names it and what the credentials can use instead (read once
// from every page of the list), and is still the API's 404.
func TestExplainerNamesAlternatives(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModelPageSize(2))
	c := client(t, srv)
	x := modelcfg.NewExplainer(c.Models, c.Models)
	for range 2 {
		_, err := x.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("q"), nil)
		var un *modelcfg.UnavailableError
		if !errors.As(err, &un) || un.Model != "gemini-2.5-flash" ||
			strings.Join(un.Alternatives, " ") != "gemini-3.8-flash gemini-3.7-flash gemini-3.6-flash gemini-3.5-flash-lite gemini-3.1-flash-lite gemini-3.1-pro-preview" {
			t.Fatalf("%v", err)
		}
		if !modelcfg.IsModelNotFound(err) || !strings.Contains(err.Error(), "model gemini-2.5-flash is not available") {
			t.Fatalf("%v", err)
		}
	}
	for _, err := range collect(x.GenerateContentStream(context.Background(), "gemini-2.0-flash", genai.Text("q"), nil)) {
		var un *modelcfg.UnavailableError
		if !errors.As(err, &un) || un.Model != "gemini-2.0-flash" {
			t.Fatalf("stream: %v", err)
		}
	}
	if n := srv.ModelListRequests(); n != 4 {
		t.Fatalf("the list was read in %d requests, want its 4 pages once", n)
	}
	// Other errors pass as they are.
	srv.FailNext(geminitest.KindGenerateContent, 1, geminitest.Reply{Status: 429})
	_, err := x.GenerateContent(context.Background(), "gemini-3.8-flash", genai.Text("q"), nil)
	var un *modelcfg.UnavailableError
	if errors.As(err, &un) || err == nil {
		t.Fatalf("429: %v", err)
	}
}

// A list that could not be read at the first refusal (the turn was cancelled, the network
// failed) is read again at the next one, not remembered as empty.
func TestExplainerReadsAgainAfterAFailedList(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3())
	c := client(t, srv)
	list := &failFirstList{Lister: c.Models}
	x := modelcfg.NewExplainer(c.Models, list)
	for i, want := range []int{0, 6, 6} {
		_, err := x.GenerateContent(context.Background(), "gemini-2.5-flash", genai.Text("q"), nil)
		var un *modelcfg.UnavailableError
		if !errors.As(err, &un) {
			t.Fatalf("refusal %d: %v", i, err)
		}
		if len(un.Alternatives) != want || (un.ListErr != nil) != (i == 0) {
			t.Fatalf("refusal %d: %v (list error %v), want %d alternatives", i, err, un.ListErr, want)
		}
	}
	if n := list.calls.Load(); n != 2 {
		t.Fatalf("the list was asked for %d times, want 2 (the failure, then once)", n)
	}
}

// failFirstList fails its first List.
type failFirstList struct {
	modelcfg.Lister
	calls atomic.Int32
}

func (l *failFirstList) List(ctx context.Context, cfg *genai.ListModelsConfig) (genai.Page[genai.Model], error) {
	if l.calls.Add(1) == 1 {
		return genai.Page[genai.Model]{}, errors.New("network down")
	}
	return l.Lister.List(ctx, cfg)
}

// Explain names the alternatives of a refusal met outside an Explainer (the Batch API's
// create); any other error is returned as it is.
func TestExplain(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3())
	c := client(t, srv)
	_, err := c.Batches.Create(context.Background(), "gemini-2.5-pro", &genai.BatchJobSource{InlinedRequests: []*genai.InlinedRequest{{Contents: genai.Text("q")}}},
		&genai.CreateBatchJobConfig{DisplayName: "d"})
	var un *modelcfg.UnavailableError
	if err := modelcfg.Explain(context.Background(), c.Models, "models/gemini-2.5-pro", err); !errors.As(err, &un) || un.Model != "gemini-2.5-pro" ||
		len(un.Alternatives) != 6 || un.Alternatives[0] != modelcfg.DefaultModel || !modelcfg.IsModelNotFound(err) {
		t.Fatalf("%v", err)
	}
	other := errors.New("network down")
	if err := modelcfg.Explain(context.Background(), c.Models, "gemini-2.5-pro", other); err != other {
		t.Fatalf("%v", err)
	}
}

func collect(seq iter.Seq2[*genai.GenerateContentResponse, error]) []error {
	var errs []error
	for _, err := range seq {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func TestChatModels(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModelPageSize(3))
	models, err := modelcfg.ChatModels(context.Background(), client(t, srv).Models)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range models {
		names = append(names, m.Name)
	}
	if strings.Join(names, " ") != "gemini-3.8-flash gemini-3.7-flash gemini-3.6-flash gemini-3.5-flash-lite gemini-3.1-flash-lite gemini-3.1-pro-preview" {
		t.Fatalf("chat models: %v (the embedding model is not one)", names)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	answer := func(parts ...*genai.Part) *genai.GenerateContentResponse {
		return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}}}}
	}
	for _, tc := range []struct {
		name string
		resp *genai.GenerateContentResponse
		want string
	}{
		{"nil", nil, ""},
		{"no candidate", &genai.GenerateContentResponse{}, ""},
		{"no content", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonMaxTokens}}}, ""},
		{"thoughts left out", answer(&genai.Part{Text: "weighing it", Thought: true}, genai.NewPartFromText("Drop "), nil, genai.NewPartFromText("Point")), "Drop Point"},
		{"a call is no text", answer(genai.NewPartFromFunctionCall("get_alert", nil)), ""},
	} {
		if got := modelcfg.Text(tc.resp); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
