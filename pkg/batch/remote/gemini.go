package remote

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/genai"
)

// Gemini is the Batch API of a genai client. On the Gemini API the input file goes through the
// Files API; on Vertex AI (Bucket set) input and output go through Cloud Storage.
type Gemini struct {
	Client *genai.Client
	// HTTP reads a results file as a stream (the SDK's Files.Download returns it whole);
	// default http.DefaultClient.
	HTTP *http.Client
	// Bucket and Prefix, on Vertex AI, are where input files are written and results read:
	// gs://{bucket}/{prefix}batches/...
	Bucket *storage.BucketHandle
	// BucketName is Bucket's name, for the gs:// URIs.
	BucketName, Prefix string
}

var _ Service = (*Gemini)(nil)

func (g *Gemini) vertex() bool { return g.Client.ClientConfig().Backend == genai.BackendVertexAI }

// Create implements Service.
func (g *Gemini) Create(ctx context.Context, model string, src *genai.BatchJobSource, name string) (*genai.BatchJob, error) {
	cfg := &genai.CreateBatchJobConfig{DisplayName: name}
	if g.vertex() {
		if g.Bucket == nil {
			return nil, goerr.New("a remote batch on Vertex AI needs a bucket")
		}
		if len(src.InlinedRequests) > 0 {
			return nil, goerr.New("Vertex AI takes a batch's requests as a file only")
		}
		id := strings.TrimSuffix(strings.TrimPrefix(src.GCSURI[0], g.uri("")), "/input.jsonl")
		cfg.Dest = &genai.BatchJobDestination{Format: "jsonl", GCSURI: g.uri(id + "/output")}
	}
	job, err := g.Client.Batches.Create(ctx, model, src, cfg)
	if err != nil {
		return nil, goerr.Wrap(err, "Batch API create failed", goerr.V("model", model))
	}
	return job, nil
}

// Get implements Service.
func (g *Gemini) Get(ctx context.Context, name string) (*genai.BatchJob, error) {
	job, err := g.Client.Batches.Get(ctx, name, nil)
	if err != nil {
		return nil, goerr.Wrap(err, "Batch API get failed", goerr.V("job", name))
	}
	return job, nil
}

// Cancel implements Service.
func (g *Gemini) Cancel(ctx context.Context, name string) error {
	if err := g.Client.Batches.Cancel(ctx, name, nil); err != nil {
		return goerr.Wrap(err, "Batch API cancel failed", goerr.V("job", name))
	}
	return nil
}

// uri is the gs:// URI of name under the batches folder.
func (g *Gemini) uri(name string) string {
	return "gs://" + g.BucketName + "/" + g.Prefix + "batches/" + name
}

// Upload implements Service.
func (g *Gemini) Upload(ctx context.Context, id string, r io.Reader, size int64) (*genai.BatchJobSource, error) {
	if g.vertex() {
		if g.Bucket == nil {
			return nil, goerr.New("a remote batch on Vertex AI needs a bucket")
		}
		obj := g.Prefix + "batches/" + id + "/input.jsonl"
		w := g.Bucket.Object(obj).NewWriter(ctx)
		w.ContentType = "application/jsonl"
		if _, err := io.Copy(w, r); err != nil {
			_ = w.Close()
			return nil, goerr.Wrap(err, "failed to write the job's input to the bucket", goerr.V("object", obj))
		}
		if err := w.Close(); err != nil {
			return nil, goerr.Wrap(err, "failed to write the job's input to the bucket", goerr.V("object", obj))
		}
		return &genai.BatchJobSource{Format: "jsonl", GCSURI: []string{g.uri(id + "/input.jsonl")}}, nil
	}
	f, err := g.Client.Files.Upload(ctx, r, &genai.UploadFileConfig{MIMEType: "application/jsonl", DisplayName: "alertchat-batch-" + id[:min(12, len(id))]})
	if err != nil {
		return nil, goerr.Wrap(err, "Files API upload failed", goerr.V("bytes", size))
	}
	return &genai.BatchJobSource{FileName: f.Name}, nil
}

// Results implements Service: the results file read as a stream.
func (g *Gemini) Results(ctx context.Context, job *genai.BatchJob) (io.ReadCloser, error) {
	if g.vertex() {
		return g.vertexResults(ctx, job)
	}
	if job.Dest == nil || job.Dest.FileName == "" {
		return nil, goerr.New("the batch job names no results file", goerr.V("job", job.Name))
	}
	cc := g.Client.ClientConfig()
	base := cc.HTTPOptions.BaseURL
	if base == "" {
		base = "https://generativelanguage.googleapis.com/"
	}
	version := cc.HTTPOptions.APIVersion
	if version == "" {
		version = "v1beta"
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, goerr.Wrap(err, "invalid Gemini base URL")
	}
	name := strings.TrimPrefix(job.Dest.FileName, "files/")
	u = u.JoinPath(version, "files", name+":download")
	u.RawQuery = "alt=media"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to build the results request")
	}
	// The key goes in a header, never in the URL, so no error or log line shows it.
	req.Header.Set("x-goog-api-key", cc.APIKey)
	resp, err := g.httpClient(cc).Do(req)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to download the batch job's results", goerr.V("file", job.Dest.FileName))
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		return nil, goerr.New(fmt.Sprintf("downloading the batch job's results: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b))), goerr.V("file", job.Dest.FileName))
	}
	return resp.Body, nil
}

// vertexResults reads the predictions Vertex AI wrote under the job's output directory.
func (g *Gemini) vertexResults(ctx context.Context, job *genai.BatchJob) (io.ReadCloser, error) {
	if g.Bucket == nil || job.OutputInfo == nil || job.OutputInfo.GCSOutputDirectory == "" {
		return nil, goerr.New("the batch job names no output directory", goerr.V("job", job.Name))
	}
	dir := strings.TrimPrefix(job.OutputInfo.GCSOutputDirectory, "gs://"+g.BucketName+"/")
	obj := strings.TrimSuffix(dir, "/") + "/predictions.jsonl"
	r, err := g.Bucket.Object(obj).NewReader(ctx)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the batch job's results", goerr.V("object", obj))
	}
	return r, nil
}

// httpClient is the client that reads a results file: the SDK's own (its transport and
// timeouts), never sending the API key to another host on a redirect.
func (g *Gemini) httpClient(cc genai.ClientConfig) *http.Client {
	base := g.HTTP
	if base == nil {
		base = cc.HTTPClient
	}
	if base == nil {
		base = http.DefaultClient
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return goerr.New("too many redirects reading the batch job's results")
		}
		if req.URL.Host != via[0].URL.Host {
			req.Header.Del("x-goog-api-key")
		}
		return nil
	}
	return &c
}
