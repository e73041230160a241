package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"cloud.google.com/go/storage"
	"github.com/m-mizutani/goerr/v2"
	"google.golang.org/api/iterator"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// Gemini is the Batch API of a genai client (one made by NewClient, which reads every job). On
// the Gemini API the input file goes through the Files API; on Vertex AI (Bucket set) input
// and output go through Cloud Storage, under gs://{bucket}/{prefix}batches/{id}/.
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
		return nil, goerr.Wrap(sdkError(err), "Batch API create failed", goerr.V("model", model))
	}
	return job, nil
}

// Get implements Service.
func (g *Gemini) Get(ctx context.Context, name string) (*genai.BatchJob, error) {
	job, err := g.Client.Batches.Get(ctx, name, nil)
	if err != nil {
		return nil, goerr.Wrap(sdkError(err), "Batch API get failed", goerr.V("job", name))
	}
	return job, nil
}

// Cancel implements Service.
func (g *Gemini) Cancel(ctx context.Context, name string) error {
	if err := g.Client.Batches.Cancel(ctx, name, nil); err != nil {
		return goerr.Wrap(sdkError(err), "Batch API cancel failed", goerr.V("job", name))
	}
	return nil
}

// sdkError is err without the answer it failed to decode: go-genai puts the whole decoded
// job in the text of such an error (mapToStruct), or the whole body after a newline
// (deserializeUnaryResponse), and a job holds the questions and answers unredacted. Other
// errors (API errors, network errors, which decide retries) are returned as they are.
func sdkError(err error) error {
	msg := err.Error()
	i := strings.Index(msg, "mapToStruct:")
	nl := strings.IndexByte(msg, '\n')
	if i < 0 && nl < 0 {
		return err
	}
	why := ""
	if j := strings.LastIndex(msg, ": json: "); j >= 0 && i >= 0 {
		why = ": " + msg[j+len(": "):]
	}
	switch {
	case i >= 0:
		msg = msg[:i] + "the answer could not be decoded" + why
	default:
		msg = msg[:nl]
	}
	return errors.New(msg)
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

// ErrResultsDeleted is the error of a job whose results were deleted after its collection.
var ErrResultsDeleted = errors.New("the batch job's results were deleted after its collection")

// vertexResults reads the predictions Vertex AI wrote under the job's output directory
// (predictions.jsonl; files predictions*.jsonl in name order, should it split them).
func (g *Gemini) vertexResults(ctx context.Context, job *genai.BatchJob) (io.ReadCloser, error) {
	if g.Bucket == nil || job.OutputInfo == nil || job.OutputInfo.GCSOutputDirectory == "" {
		return nil, goerr.New("the batch job names no output directory", goerr.V("job", job.Name))
	}
	dir, ok := g.objectName(job.OutputInfo.GCSOutputDirectory)
	if !ok {
		return nil, goerr.New("the batch job's output is not in the bucket", goerr.V("job", job.Name), goerr.V("bucket", g.BucketName))
	}
	dir = strings.TrimSuffix(dir, "/") + "/"
	names, err := g.list(ctx, dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, n := range names {
		base := strings.TrimPrefix(n, dir)
		if strings.HasPrefix(base, "predictions") && strings.HasSuffix(base, ".jsonl") && !strings.Contains(base, "/") {
			files = append(files, n)
		}
	}
	if len(files) == 0 {
		return nil, goerr.Wrap(ErrResultsDeleted, "no predictions under the batch job's output directory", goerr.V("job", job.Name), goerr.V("dir", dir))
	}
	sort.Strings(files)
	return &objectsReader{ctx: ctx, bucket: g.Bucket, names: files}, nil
}

// objectName is the object of a gs:// URI in the bucket.
func (g *Gemini) objectName(uri string) (string, bool) {
	return strings.CutPrefix(uri, "gs://"+g.BucketName+"/")
}

// list returns the names of the bucket's objects under prefix.
func (g *Gemini) list(ctx context.Context, prefix string) ([]string, error) {
	var names []string
	it := g.Bucket.Objects(ctx, &storage.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return names, nil
		}
		if err != nil {
			return nil, goerr.Wrap(err, "failed to list the batch job's files", goerr.V("prefix", prefix))
		}
		names = append(names, a.Name)
	}
}

// objectsReader reads objects one after the other, opening each when the one before ends.
type objectsReader struct {
	ctx    context.Context
	bucket *storage.BucketHandle
	names  []string
	cur    io.ReadCloser
}

func (r *objectsReader) Read(p []byte) (int, error) {
	for {
		if r.cur == nil {
			if len(r.names) == 0 {
				return 0, io.EOF
			}
			rc, err := r.bucket.Object(r.names[0]).NewReader(r.ctx)
			if err != nil {
				return 0, goerr.Wrap(err, "failed to read the batch job's results", goerr.V("object", r.names[0]))
			}
			r.cur, r.names = rc, r.names[1:]
		}
		n, err := r.cur.Read(p)
		if errors.Is(err, io.EOF) {
			_ = r.cur.Close()
			r.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

func (r *objectsReader) Close() error {
	if r.cur != nil {
		return r.cur.Close()
	}
	return nil
}

// Input implements Service: on Vertex AI the input file in the bucket. The Files API does not
// give uploaded files back, and the Gemini API's results name their keys anyway.
func (g *Gemini) Input(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) (io.ReadCloser, error) {
	uri := inputURI(rec, job)
	if !g.vertex() || g.Bucket == nil || uri == "" {
		return nil, goerr.New("the batch job's input cannot be read back", goerr.V("job", rec.ID))
	}
	name, ok := g.objectName(uri)
	if !ok {
		return nil, goerr.New("the batch job's input is not in the bucket", goerr.V("job", rec.ID))
	}
	r, err := g.Bucket.Object(name).NewReader(ctx)
	if err != nil {
		return nil, goerr.Wrap(err, "failed to read the batch job's input", goerr.V("object", name))
	}
	return r, nil
}

// inputURI is where the job's input file is: as recorded, else as the job says (Vertex AI).
func inputURI(rec *record.BatchJob, job *genai.BatchJob) string {
	if rec.InputFile != "" {
		return rec.InputFile
	}
	if job != nil && job.Src != nil && len(job.Src.GCSURI) > 0 {
		return job.Src.GCSURI[0]
	}
	return ""
}

// Clean implements Service. On the Gemini API it deletes the uploaded input file (the Files
// API would keep it 48 hours); the results stay with the service until it expires them. On
// Vertex AI it deletes the job's folder in the bucket: the input and the predictions, which
// would stay for good. A file already gone is no error.
func (g *Gemini) Clean(ctx context.Context, rec *record.BatchJob, job *genai.BatchJob) error {
	uri := inputURI(rec, job)
	if !g.vertex() {
		if uri == "" {
			return nil
		}
		if _, err := g.Client.Files.Delete(ctx, uri, nil); err != nil && !gone(err) {
			return goerr.Wrap(err, "failed to delete the batch job's input file", goerr.V("file", uri))
		}
		return nil
	}
	if g.Bucket == nil {
		return nil
	}
	var prefixes []string
	if name, ok := g.objectName(uri); ok && strings.HasSuffix(name, "/input.jsonl") {
		prefixes = append(prefixes, strings.TrimSuffix(name, "input.jsonl"))
	}
	if job != nil && job.OutputInfo != nil {
		if dir, ok := g.objectName(job.OutputInfo.GCSOutputDirectory); ok && dir != "" {
			prefixes = append(prefixes, strings.TrimSuffix(dir, "/")+"/")
		}
	}
	seen := map[string]bool{}
	var errs []error
	for _, p := range prefixes {
		names, err := g.list(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, n := range names {
			if seen[n] {
				continue
			}
			seen[n] = true
			if err := g.Bucket.Object(n).Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
				errs = append(errs, goerr.Wrap(err, "failed to delete a file of the batch job", goerr.V("object", n)))
			}
		}
	}
	return errors.Join(errs...)
}

// gone reports whether err says that a file does not exist: the Files API answers 403 for a
// file that does not exist (or is someone else's), 404 elsewhere.
func gone(err error) bool {
	var apiErr genai.APIError
	return errors.As(err, &apiErr) && (apiErr.Code == http.StatusNotFound || apiErr.Code == http.StatusForbidden)
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
