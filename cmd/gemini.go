package cmd

import (
	"context"
	"os"
	"strings"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// geminiConfig builds the genai client configuration from the SDK's standard variables, read
// here so that pkg/ never reads the environment.
func geminiConfig(getenv func(string) string) (*genai.ClientConfig, error) {
	cfg := &genai.ClientConfig{}
	if base := getenv("GOOGLE_GEMINI_BASE_URL"); base != "" {
		cfg.HTTPOptions.BaseURL = base
	}
	switch strings.ToLower(getenv("GOOGLE_GENAI_USE_VERTEXAI")) {
	case "1", "true", "yes":
		cfg.Backend = genai.BackendVertexAI
		cfg.Project = getenv("GOOGLE_CLOUD_PROJECT")
		cfg.Location = getenv("GOOGLE_CLOUD_LOCATION")
		if cfg.Project == "" || cfg.Location == "" {
			return nil, usageErrorf("Vertex AI needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
		}
		return cfg, nil
	}
	cfg.Backend = genai.BackendGeminiAPI
	cfg.APIKey = getenv("GEMINI_API_KEY")
	if cfg.APIKey == "" {
		cfg.APIKey = getenv("GOOGLE_API_KEY")
	}
	if cfg.APIKey == "" {
		return nil, usageErrorf("no Gemini credentials: set GEMINI_API_KEY (or GOOGLE_API_KEY), or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
	}
	return cfg, nil
}

func newGeminiClient(ctx context.Context) (*genai.Client, error) {
	cfg, err := geminiConfig(os.Getenv)
	if err != nil {
		return nil, err
	}
	client, err := genai.NewClient(ctx, cfg)
	if err != nil {
		// The configuration holds the API key: never print it.
		return nil, goerr.Wrap(err, "failed to create the Gemini client", goerr.V("backend", cfg.Backend.String()))
	}
	return client, nil
}
