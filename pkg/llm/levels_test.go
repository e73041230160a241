package llm_test

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
)

// A model released after this program refuses the level a request names and says which it
// takes (as the API's 400 does): the client asks once more at the nearest of them, remembers
// them, and later requests for that model go out at a level it takes at once; a stream too.
// Other models are not touched, and a refusal that names no levels is returned as it is.
func TestLearnsThinkingLevels(t *testing.T) {
	t.Parallel()
	levels := []genai.ThinkingLevel{genai.ThinkingLevelMedium, genai.ThinkingLevelHigh, "XHIGH"}
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithModels(append(geminitest.DefaultModels(),
		geminitest.ModelInfo{Name: "gemini-5-krypton", Methods: []string{"generateContent"}, Levels: levels, DefaultLevel: genai.ThinkingLevelHigh, Thinking: true})...))
	c := llm.New(genaiModels(t, srv), llm.Options{})
	ask := func(model string, level genai.ThinkingLevel) error {
		cfg := &genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: level}}
		_, err := c.GenerateContent(context.Background(), model, []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, cfg)
		if cfg.ThinkingConfig.ThinkingLevel != level {
			t.Fatal("the caller's config was changed")
		}
		return err
	}
	sent := func(from int) []genai.ThinkingLevel {
		var out []genai.ThinkingLevel
		for _, r := range srv.Requests()[from:] {
			out = append(out, r.GenerationConfig.ThinkingConfig.ThinkingLevel)
		}
		return out
	}
	if err := ask("gemini-5-krypton", genai.ThinkingLevelLow); err != nil {
		t.Fatal(err)
	}
	if got := sent(0); !slices.Equal(got, []genai.ThinkingLevel{"LOW", "MEDIUM"}) {
		t.Fatalf("first request's levels %v", got)
	}
	if got, ok := c.ThinkingLevels("gemini-5-krypton"); !ok || !slices.Equal(got, levels) {
		t.Fatalf("learned %v %v", got, ok)
	}
	// Remembered: MINIMAL goes out as MEDIUM straight away.
	if err := ask("gemini-5-krypton", genai.ThinkingLevelMinimal); err != nil {
		t.Fatal(err)
	}
	if got := sent(2); !slices.Equal(got, []genai.ThinkingLevel{"MEDIUM"}) {
		t.Fatalf("later request's levels %v", got)
	}
	// A stream learns the same way.
	c2 := llm.New(genaiModels(t, srv), llm.Options{})
	n := len(srv.Requests())
	for _, err := range c2.GenerateContentStream(context.Background(), "gemini-5-krypton", []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		&genai.GenerateContentConfig{ThinkingConfig: &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := sent(n); !slices.Equal(got, []genai.ThinkingLevel{"LOW", "MEDIUM"}) {
		t.Fatalf("stream's levels %v", got)
	}
	// Each model learns its own: gemini-3.8-flash refuses XHIGH and is asked at HIGH.
	if err := ask("gemini-3.8-flash", "XHIGH"); err != nil {
		t.Fatalf("XHIGH on 3.8: %v", err)
	}
	if got, _ := c.ThinkingLevels("gemini-3.8-flash"); !slices.Equal(got, []genai.ThinkingLevel{"LOW", "MEDIUM", "HIGH"}) {
		t.Fatalf("3.8 learned %v", got)
	}
}
