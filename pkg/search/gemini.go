package search

import (
	"context"

	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// Defaults of the Gemini embedder.
const (
	DefaultEmbeddingModel = "gemini-embedding-001"
	// DefaultEmbeddingDims keeps vectors small (the model's Matryoshka training keeps the
	// leading 768 of its 3072 dimensions meaningful): 3 KB a history in Firestore, 768 bytes
	// a history in the local scan.
	DefaultEmbeddingDims = 768
	// maxBatch is the most contents one batchEmbedContents request takes.
	maxBatch = 100
)

// EmbedModels is the part of the genai SDK's Models the embedder uses.
type EmbedModels interface {
	EmbedContent(ctx context.Context, model string, contents []*genai.Content, config *genai.EmbedContentConfig) (*genai.EmbedContentResponse, error)
}

// GeminiEmbedder embeds texts with a Gemini embedding model.
type GeminiEmbedder struct {
	Models EmbedModels
	Model  string // "" means DefaultEmbeddingModel
	Dims   int    // <= 0 means DefaultEmbeddingDims
}

var _ Embedder = (*GeminiEmbedder)(nil)

// Embed implements Embedder.
func (g *GeminiEmbedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	model, dims := g.Model, int32(g.Dims)
	if model == "" {
		model = DefaultEmbeddingModel
	}
	if dims <= 0 {
		dims = DefaultEmbeddingDims
	}
	task := "RETRIEVAL_DOCUMENT"
	if query {
		task = "RETRIEVAL_QUERY"
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += maxBatch {
		batch := texts[start:min(start+maxBatch, len(texts))]
		cs := make([]*genai.Content, len(batch))
		for i, t := range batch {
			cs[i] = genai.NewContentFromText(t, genai.RoleUser)
		}
		resp, err := g.Models.EmbedContent(ctx, model, cs, &genai.EmbedContentConfig{TaskType: task, OutputDimensionality: &dims})
		if err != nil {
			// The texts are history contents: never in the error.
			return nil, goerr.Wrap(err, "failed to embed texts", goerr.V("model", model), goerr.V("count", len(batch)))
		}
		if len(resp.Embeddings) != len(batch) {
			return nil, goerr.New("embedding model returned a wrong number of vectors", goerr.V("model", model), goerr.V("want", len(batch)), goerr.V("got", len(resp.Embeddings)))
		}
		for _, e := range resp.Embeddings {
			out = append(out, e.Values)
		}
	}
	return out, nil
}
