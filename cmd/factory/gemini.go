package factory

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
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
			return nil, cmdutil.UsageErrorf("Vertex AI needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
		}
		return cfg, nil
	}
	cfg.Backend = genai.BackendGeminiAPI
	cfg.APIKey = getenv("GEMINI_API_KEY")
	if cfg.APIKey == "" {
		cfg.APIKey = getenv("GOOGLE_API_KEY")
	}
	if cfg.APIKey == "" {
		return nil, cmdutil.UsageErrorf("no Gemini credentials: set GEMINI_API_KEY (or GOOGLE_API_KEY), or GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
	}
	return cfg, nil
}

// geminiClient makes a Gemini client from the SDK's standard variables.
func geminiClient(ctx context.Context, getenv func(string) string) (*genai.Client, error) {
	gc, err := geminiConfig(getenv)
	if err != nil {
		return nil, err
	}
	return newGeminiClient(ctx, gc)
}

func newGeminiClient(ctx context.Context, gc *genai.ClientConfig) (*genai.Client, error) {
	client, err := genai.NewClient(ctx, gc)
	if err != nil {
		// The configuration holds the API key: never print it.
		return nil, goerr.Wrap(err, "failed to create the Gemini client", goerr.V("backend", gc.Backend.String()))
	}
	return client, nil
}

// NewLLM makes a Gemini client from gc and wraps its models with the retries of rc.
func NewLLM(ctx context.Context, gc *genai.ClientConfig, rc cmdutil.RetryConfig, logger *slog.Logger, o LLMOptions) (*llm.Client, error) {
	client, err := newGeminiClient(ctx, gc)
	if err != nil {
		return nil, err
	}
	// A request for a model that is not served names the models that can be used instead
	// (the list read once, on the first such refusal); 404s are never retried.
	return llm.New(modelcfg.NewExplainer(client.Models, client.Models), llm.Options{
		MaxAttempts: rc.MaxAttempts,
		MaxWait:     rc.MaxWait,
		CallTimeout: rc.CallTimeout,
		Limiter:     o.Limiter,
		OnRetry: func(r llm.Retry) {
			logger.Info("retrying a Gemini call", "attempt", r.Attempt, "wait", r.Wait.Round(time.Millisecond), "error", r.Err)
			if o.OnRetry != nil {
				o.OnRetry(r)
			}
		},
	}), nil
}
