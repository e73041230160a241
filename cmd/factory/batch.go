package factory

import (
	"context"

	"cloud.google.com/go/storage"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/batch/remote"
)

// newBatchService is the Gemini Batch API of the configured credentials. On Vertex AI a job's
// input and output go through the cloud store's bucket, so it needs one.
func newBatchService(ctx context.Context, getenv func(string) string, cfg cmdutil.Config) (*remote.Gemini, error) {
	gc, err := geminiConfig(getenv)
	if err != nil {
		return nil, err
	}
	if gc.Backend == genai.BackendVertexAI && !cfg.Cloud() {
		return nil, cmdutil.UsageErrorf("a remote batch on Vertex AI reads and writes its files in Cloud Storage: set --firestore-project and --bucket (ALERTCHAT_FIRESTORE_PROJECT, ALERTCHAT_BUCKET) for the cloud store")
	}
	// The batch client reads jobs whose requests failed with typed errors (see remote.NewClient).
	client, err := remote.NewClient(ctx, gc)
	if err != nil {
		return nil, err
	}
	g := &remote.Gemini{Client: client}
	if gc.Backend == genai.BackendVertexAI {
		// JSON reads, as the cloud store's: the emulators serve no other.
		sc, err := storage.NewClient(ctx, storage.WithJSONReads())
		if err != nil {
			return nil, goerr.Wrap(err, "failed to create the Cloud Storage client", goerr.V("bucket", cfg.Bucket))
		}
		g.Bucket, g.BucketName, g.Prefix = sc.Bucket(cfg.Bucket), cfg.Bucket, cfg.Prefix
	}
	return g, nil
}
