package geminitest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
)

// answerByKey is a batch handler as a test writes one: it answers by key, never by
// position, and fails the request whose key is "bad".
func answerByKey(r *geminitest.BatchRequest) geminitest.Reply {
	if r.Key == "bad" {
		return geminitest.Reply{Status: 429, ErrorMessage: "quota"}
	}
	return geminitest.Reply{Text: "answer to " + r.Key + ": " + r.LastUserText()}
}

func inlined(keys ...string) []*genai.InlinedRequest {
	var out []*genai.InlinedRequest
	for _, k := range keys {
		out = append(out, &genai.InlinedRequest{
			Contents: genai.Text("question " + k),
			Metadata: map[string]string{"key": k},
			Config: &genai.GenerateContentConfig{
				SystemInstruction: genai.NewContentFromText("Be brief.", genai.RoleUser),
				Temperature:       genai.Ptr[float32](0.2),
			},
		})
	}
	return out
}

func createInline(t *testing.T, c *genai.Client, keys ...string) *genai.BatchJob {
	t.Helper()
	job, err := c.Batches.Create(context.Background(), model, &genai.BatchJobSource{InlinedRequests: inlined(keys...)},
		&genai.CreateBatchJobConfig{DisplayName: "test batch"})
	if err != nil {
		t.Fatalf("Batches.Create: %v", err)
	}
	return job
}

func getJob(t *testing.T, c *genai.Client, name string) *genai.BatchJob {
	t.Helper()
	job, err := c.Batches.Get(context.Background(), name, nil)
	if err != nil {
		t.Fatalf("Batches.Get(%s): %v", name, err)
	}
	return job
}

func TestBatchInlineLifecycle(t *testing.T) {
	t.Parallel()
	// notBad answers every request but "bad", as an expired job that got that far.
	notBad := func(r *geminitest.BatchRequest) bool { return r.Key != "bad" }
	tests := []struct {
		name      string
		move      func(srv *geminitest.Server, c *genai.Client, job string) error
		wantState genai.JobState
		wantKeys  []string // keys of the inlined responses, in output order
		wantErrs  []string // keys answered with an error
	}{
		{
			name: "advanced twice succeeds",
			move: func(srv *geminitest.Server, _ *genai.Client, _ string) error {
				if n := srv.AdvanceBatches(); n != 1 {
					return fmt.Errorf("first AdvanceBatches moved %d jobs", n)
				}
				srv.AdvanceBatches()
				return nil
			},
			wantState: genai.JobStateSucceeded,
			wantKeys:  []string{"c", "bad", "a"},
			wantErrs:  []string{"bad"},
		},
		{
			name: "expired with partial results",
			move: func(srv *geminitest.Server, _ *genai.Client, job string) error {
				return srv.FinishBatch(job, genai.JobStateExpired, notBad)
			},
			wantState: genai.JobStateExpired,
			wantKeys:  []string{"c", "a"},
		},
		{
			name: "failed",
			move: func(srv *geminitest.Server, _ *genai.Client, job string) error {
				return srv.SetBatchState(job, genai.JobStateFailed)
			},
			wantState: genai.JobStateFailed,
		},
		{
			name: "cancelled through the API",
			move: func(srv *geminitest.Server, c *genai.Client, job string) error {
				if err := srv.AdvanceBatch(job); err != nil {
					return err
				}
				if err := c.Batches.Cancel(context.Background(), job, nil); err != nil {
					return err
				}
				if err := srv.AdvanceBatch(job); err == nil {
					return errors.New("a cancelled job advanced")
				}
				return nil
			},
			wantState: genai.JobStateCancelled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithBatchHandler(answerByKey))
			c := newClient(t, srv)
			created := createInline(t, c, "a", "bad", "c")
			if created.State != genai.JobStatePending || !strings.HasPrefix(created.Name, "batches/") {
				t.Fatalf("created job = %s %s, want a pending batches/...", created.Name, created.State)
			}
			if created.Model != "models/"+model || created.DisplayName != "test batch" || created.CreateTime.IsZero() {
				t.Errorf("created job = %+v", created)
			}
			if got := getJob(t, c, created.Name); got.State != genai.JobStatePending || got.Dest != nil {
				t.Fatalf("job before any move: state %s, dest %+v", got.State, got.Dest)
			}

			if err := tt.move(srv, c, created.Name); err != nil {
				t.Fatal(err)
			}
			if tt.wantErrs != nil {
				// A failed request's error has typed details, which the SDK cannot decode.
				if _, err := c.Batches.Get(context.Background(), created.Name, nil); err == nil || !strings.Contains(err.Error(), "cannot unmarshal object") {
					t.Fatalf("Batches.Get of a job with a typed error: %v, want the SDK's decoding error", err)
				}
				checkRawInlined(t, srv, created.Name, tt.wantKeys, tt.wantErrs)
				return
			}
			job := getJob(t, c, created.Name)
			if job.State != tt.wantState {
				t.Fatalf("state = %s, want %s", job.State, tt.wantState)
			}
			if job.EndTime.IsZero() {
				t.Errorf("EndTime is zero for an ended job")
			}
			if tt.wantKeys == nil {
				if job.Dest != nil {
					t.Errorf("Dest = %+v, want none", job.Dest)
				}
				return
			}
			var keys []string
			for _, r := range job.Dest.InlinedResponses {
				k := r.Metadata["key"]
				keys = append(keys, k)
				if want := "answer to " + k + ": question " + k; r.Response.Text() != want {
					t.Errorf("answer of %s = %q, want %q", k, r.Response.Text(), want)
				}
				u := r.Response.UsageMetadata
				if u == nil || u.PromptTokenCount == 0 || u.CandidatesTokenCount == 0 {
					t.Errorf("usage of %s = %+v, want prompt and candidates tokens", k, u)
				}
			}
			if !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("response keys = %v, want %v", keys, tt.wantKeys)
			}
		})
	}
}

// rpcStatus is google.rpc.Status as the API sends it, typed details included.
type rpcStatus struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Details []map[string]any `json:"details"`
}

// rawInlined is what an inline job's operation holds, read with a plain GET: its responses as
// the API sends them, typed error details included.
type rawInlined struct {
	Response *genai.GenerateContentResponse
	Error    *rpcStatus
	Metadata map[string]string
}

func readRawInlined(t *testing.T, srv *geminitest.Server, name string) []rawInlined {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL()+"/v1beta/"+name, nil)
	req.Header.Set("x-goog-api-key", "test-key")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var op struct {
		Metadata struct {
			Output struct {
				InlinedResponses struct {
					InlinedResponses []rawInlined
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&op); err != nil {
		t.Fatal(err)
	}
	return op.Metadata.Output.InlinedResponses.InlinedResponses
}

// checkRawInlined reads the operation of an inline job with a plain GET and checks its
// responses: in wantKeys order, the ones of wantErrs failed with a 429 "quota" carrying a
// typed detail, the others answered.
func checkRawInlined(t *testing.T, srv *geminitest.Server, name string, wantKeys, wantErrs []string) {
	t.Helper()
	var keys, errKeys []string
	for _, r := range readRawInlined(t, srv, name) {
		k := r.Metadata["key"]
		keys = append(keys, k)
		if r.Error == nil {
			if want := "answer to " + k + ": question " + k; r.Response == nil || r.Response.Text() != want {
				t.Errorf("answer of %s = %+v, want %q", k, r.Response, want)
			}
			continue
		}
		errKeys = append(errKeys, k)
		if r.Error.Code != 429 || r.Error.Message != "quota" || r.Response != nil || len(r.Error.Details) == 0 || r.Error.Details[0]["@type"] == nil {
			t.Errorf("error of %s = %+v, want a 429 with typed details", k, r.Error)
		}
	}
	if !slices.Equal(keys, wantKeys) || !slices.Equal(errKeys, wantErrs) {
		t.Errorf("response keys = %v (errors %v), want %v (errors %v)", keys, errKeys, wantKeys, wantErrs)
	}
}

func TestBatchRecordsRequests(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	c := newClient(t, srv)
	job := createInline(t, c, "k1", "k2")

	b, ok := srv.Batch(job.Name)
	if !ok {
		t.Fatalf("Batch(%s) not found", job.Name)
	}
	if b.Model != model || b.DisplayName != "test batch" || b.State != genai.JobStatePending || b.FileName != "" {
		t.Errorf("batch = %+v", b)
	}
	if len(b.Requests) != 2 {
		t.Fatalf("got %d requests, want 2", len(b.Requests))
	}
	for i, r := range b.Requests {
		want := fmt.Sprintf("k%d", i+1)
		if r.Key != want || r.Metadata["key"] != want || r.Index != i {
			t.Errorf("request %d: key %q, metadata %v, index %d", i, r.Key, r.Metadata, r.Index)
		}
		if r.Tools != nil || r.ToolConfig != nil {
			t.Errorf("request %d declares tools: %v", i, r.Tools)
		}
		if r.SystemText() != "Be brief." || r.LastUserText() != "question "+want {
			t.Errorf("request %d: system %q, text %q", i, r.SystemText(), r.LastUserText())
		}
		if r.GenerationConfig == nil || r.GenerationConfig.Temperature == nil || *r.GenerationConfig.Temperature != 0.2 {
			t.Errorf("request %d: generation config %+v", i, r.GenerationConfig)
		}
		if r.Kind != geminitest.KindBatchGenerateContent || r.Model != model {
			t.Errorf("request %d: kind %q, model %q", i, r.Kind, r.Model)
		}
	}
	if got := srv.BatchStats().Created; got != 1 {
		t.Errorf("Created = %d, want 1", got)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("batch requests were recorded as model requests")
	}

	// Without a batch handler the default answer echoes the question.
	if err := srv.SetBatchState(job.Name, genai.JobStateSucceeded); err != nil {
		t.Fatal(err)
	}
	for _, r := range getJob(t, c, job.Name).Dest.InlinedResponses {
		if want := "ok: question " + r.Metadata["key"]; r.Response.Text() != want {
			t.Errorf("default answer = %q, want %q", r.Response.Text(), want)
		}
	}
}

func TestBatchHandlerPerJob(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Text: "from WithHandler, " + r.Kind}
	}))
	c := newClient(t, srv)
	first, second := createInline(t, c, "x"), createInline(t, c, "y")
	if err := srv.SetBatchHandler(second.Name, func(r *geminitest.BatchRequest) geminitest.Reply {
		return geminitest.Reply{Text: "per job " + r.Key}
	}); err != nil {
		t.Fatal(err)
	}
	for srv.AdvanceBatches() > 0 {
	}
	for name, want := range map[string]string{first.Name: "from WithHandler, batchGenerateContent", second.Name: "per job y"} {
		if got := getJob(t, c, name).Dest.InlinedResponses[0].Response.Text(); got != want {
			t.Errorf("%s answered %q, want %q", name, got, want)
		}
	}
}

// resultLine is a line of a results file, as a caller parses it.
type resultLine struct {
	Key      string                         `json:"key"`
	Response *genai.GenerateContentResponse `json:"response"`
	Error    *rpcStatus                     `json:"error"`
}

func TestBatchFileSource(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithBatchHandler(answerByKey))
	c := newClient(t, srv)
	ctx := context.Background()

	var input bytes.Buffer
	for _, k := range []string{"first", "bad", "third"} {
		fmt.Fprintf(&input, `{"key":%q,"request":{"contents":[{"role":"user","parts":[{"text":"question %s"}]}],"systemInstruction":{"parts":[{"text":"Be brief."}]}}}`+"\n", k, k)
	}
	up, err := c.Files.Upload(ctx, bytes.NewReader(input.Bytes()), &genai.UploadFileConfig{MIMEType: "application/jsonl", DisplayName: "input"})
	if err != nil {
		t.Fatalf("Files.Upload: %v", err)
	}
	if !strings.HasPrefix(up.Name, "files/") || up.SizeBytes == nil || *up.SizeBytes != int64(input.Len()) || up.State != genai.FileStateActive || up.MIMEType != "application/jsonl" {
		t.Fatalf("uploaded file = %+v", up)
	}
	if got, _ := srv.FileData(up.Name); !bytes.Equal(got, input.Bytes()) {
		t.Fatalf("server holds %q", got)
	}

	job, err := c.Batches.Create(ctx, model, &genai.BatchJobSource{FileName: up.Name}, &genai.CreateBatchJobConfig{DisplayName: "file batch"})
	if err != nil {
		t.Fatalf("Batches.Create: %v", err)
	}
	if b, _ := srv.Batch(job.Name); b.FileName != up.Name || len(b.Requests) != 3 || b.Requests[1].Key != "bad" || b.Requests[0].SystemText() != "Be brief." {
		t.Fatalf("batch = %+v", b)
	}
	if err := srv.AddBatchResultLines(job.Name, "this line is not JSON"); err != nil {
		t.Fatal(err)
	}
	srv.AdvanceBatches()
	srv.AdvanceBatches()
	job = getJob(t, c, job.Name)
	if job.State != genai.JobStateSucceeded || job.Dest == nil || job.Dest.FileName == "" || job.Dest.InlinedResponses != nil {
		t.Fatalf("job = %s, dest %+v", job.State, job.Dest)
	}

	// Three ways to read the results: Files.Download with the file's name as its
	// download URI, with the download URI from Files.Get, and a plain GET.
	byName, err := c.Files.Download(ctx, genai.NewDownloadURIFromFile(&genai.File{DownloadURI: job.Dest.FileName}), nil)
	if err != nil {
		t.Fatalf("Files.Download(name): %v", err)
	}
	meta, err := c.Files.Get(ctx, job.Dest.FileName, nil)
	if err != nil {
		t.Fatalf("Files.Get: %v", err)
	}
	if meta.Source != genai.FileSourceGenerated || meta.DownloadURI == "" {
		t.Fatalf("results file = %+v", meta)
	}
	byURI, err := c.Files.Download(ctx, genai.NewDownloadURIFromFile(meta), nil)
	if err != nil {
		t.Fatalf("Files.Download(uri): %v", err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL()+"/v1beta/"+job.Dest.FileName+":download?alt=media", nil)
	req.Header.Set("x-goog-api-key", "test-key")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("plain GET: %s", resp.Status)
	}
	streamed, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(byName, byURI) || !bytes.Equal(byName, streamed) || int64(len(byName)) != *meta.SizeBytes {
		t.Fatalf("downloads differ:\n%s\n%s\n%s", byName, byURI, streamed)
	}

	sc := bufio.NewScanner(bytes.NewReader(streamed))
	var keys, garbage []string
	for sc.Scan() {
		var l resultLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			garbage = append(garbage, sc.Text())
			continue
		}
		keys = append(keys, l.Key)
		switch {
		case l.Key == "bad":
			if l.Error == nil || l.Error.Code != 429 || l.Response != nil || len(l.Error.Details) == 0 || l.Error.Details[0]["@type"] != "type.googleapis.com/google.rpc.DebugInfo" {
				t.Errorf("line of bad = %s", sc.Text())
			}
		case l.Response == nil || l.Response.Text() != "answer to "+l.Key+": question "+l.Key:
			t.Errorf("line of %s = %s", l.Key, sc.Text())
		case l.Response.UsageMetadata == nil || l.Response.UsageMetadata.PromptTokenCount == 0:
			t.Errorf("line of %s has no usage: %s", l.Key, sc.Text())
		}
	}
	if want := []string{"third", "bad", "first"}; !slices.Equal(keys, want) || len(garbage) != 1 {
		t.Errorf("keys = %v, garbage %q; want %v and one garbage line", keys, garbage, want)
	}
	if st := srv.BatchStats(); st.Uploads != 1 || st.Created != 1 || st.Downloads != 3 || st.FileGets != 1 {
		t.Errorf("stats = %+v", st)
	}
}

func TestUploadChunks(t *testing.T) {
	t.Parallel()
	const chunk = 8 << 20 // the SDK's chunk size
	tests := []struct {
		name string
		size int
	}{
		{"empty", 0},
		{"small", 100},
		{"exactly one chunk", chunk},
		{"two chunks", chunk + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			data := bytes.Repeat([]byte("x"), tt.size)
			f, err := newClient(t, srv).Files.Upload(context.Background(), bytes.NewReader(data), &genai.UploadFileConfig{Name: "my-input", MIMEType: "application/jsonl"})
			if err != nil {
				t.Fatalf("Files.Upload: %v", err)
			}
			if f.Name != "files/my-input" || *f.SizeBytes != int64(tt.size) {
				t.Errorf("file = %s of %d bytes", f.Name, *f.SizeBytes)
			}
			if got, _ := srv.FileData(f.Name); !bytes.Equal(got, data) {
				t.Errorf("server holds %d bytes, want %d", len(got), tt.size)
			}
		})
	}
}

func TestBatchListAndDelete(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	var names []string
	for i := range 5 {
		names = append(names, createInline(t, c, fmt.Sprint(i)).Name)
	}

	tests := []struct {
		name     string
		pageSize int32
		want     [][]string
	}{
		{"pages of two", 2, [][]string{names[:2], names[2:4], names[4:]}},
		{"one page", 10, [][]string{names}},
		{"default size", 0, [][]string{names}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := c.Batches.List(ctx, &genai.ListBatchJobsConfig{PageSize: tt.pageSize})
			var got [][]string
			for err == nil {
				var ns []string
				for _, j := range page.Items {
					ns = append(ns, j.Name)
				}
				got = append(got, ns)
				page, err = page.Next(ctx)
			}
			if !errors.Is(err, genai.ErrPageDone) {
				t.Fatalf("List: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("pages = %v, want %v", got, tt.want)
			}
		})
	}

	if _, err := c.Batches.Delete(ctx, names[1], nil); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	var all []string
	for j, err := range c.Batches.All(ctx) {
		if err != nil {
			t.Fatalf("All: %v", err)
		}
		if j.State != genai.JobStatePending {
			t.Errorf("%s: state %s", j.Name, j.State)
		}
		all = append(all, j.Name)
	}
	if want := slices.Delete(slices.Clone(names), 1, 2); !slices.Equal(all, want) {
		t.Errorf("All = %v, want %v", all, want)
	}
	var apiErr genai.APIError
	if _, err := c.Batches.Get(ctx, names[1], nil); !errors.As(err, &apiErr) || apiErr.Code != 404 {
		t.Errorf("Get of a deleted job: %v", err)
	}
	if b, _ := srv.Batch(names[1]); !b.Deleted {
		t.Errorf("Batch(%s).Deleted = false", names[1])
	}
}

func TestBatchGetFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		want   string
	}{
		{"rate limited", 429, "RESOURCE_EXHAUSTED"},
		{"internal error", 500, "INTERNAL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			c := newClient(t, srv)
			job := createInline(t, c, "a")
			srv.FailNext(geminitest.KindBatchGet, 2, geminitest.Reply{Status: tt.status, RetryDelay: time.Second})
			for i := range 2 {
				_, err := c.Batches.Get(context.Background(), job.Name, nil)
				var apiErr genai.APIError
				if !errors.As(err, &apiErr) || apiErr.Code != tt.status || apiErr.Status != tt.want {
					t.Fatalf("Get %d: %v, want a %d", i, err, tt.status)
				}
			}
			if got := getJob(t, c, job.Name); got.State != genai.JobStatePending {
				t.Errorf("third Get: state %s", got.State)
			}
			if st := srv.BatchStats(); st.Gets != 3 {
				t.Errorf("Gets = %d, want 3", st.Gets)
			}
			// Other calls are not affected.
			if _, err := c.Models.GenerateContent(context.Background(), model, genai.Text("hi"), nil); err != nil {
				t.Errorf("GenerateContent: %v", err)
			}
		})
	}
}

func TestBatchCreateRejects(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	bad, err := c.Files.Upload(ctx, strings.NewReader("{\"key\":\"a\",\"request\":{\"contents\":[{\"parts\":[{\"text\":\"hi\"}]}]}}\nnot json\n"), &genai.UploadFileConfig{MIMEType: "application/jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &genai.CreateBatchJobConfig{DisplayName: "rejected"}

	tests := []struct {
		name       string
		src        *genai.BatchJobSource
		cfg        *genai.CreateBatchJobConfig
		raw        string // a raw body instead of an SDK call
		wantCode   int
		wantStatus string
	}{
		{"no display name", &genai.BatchJobSource{InlinedRequests: inlined("a")}, nil, "", 400, "INVALID_ARGUMENT"},
		{"request without contents", &genai.BatchJobSource{InlinedRequests: []*genai.InlinedRequest{{Metadata: map[string]string{"key": "a"}}}}, cfg, "", 400, "INVALID_ARGUMENT"},
		{"unknown file", &genai.BatchJobSource{FileName: "files/nosuchfile"}, cfg, "", 403, "PERMISSION_DENIED"},
		{"file with a bad line", &genai.BatchJobSource{FileName: bad.Name}, cfg, "", 400, "INVALID_ARGUMENT"},
		{"not JSON", nil, nil, "{", 400, "INVALID_ARGUMENT"},
		{"both sources", nil, nil, `{"batch":{"displayName":"x","inputConfig":{"fileName":"` + bad.Name + `","requests":{"requests":[]}}}}`, 400, "INVALID_ARGUMENT"},
		{"no input", nil, nil, `{"batch":{"displayName":"x"}}`, 400, "INVALID_ARGUMENT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var apiErr genai.APIError
			if tt.raw == "" {
				_, err := c.Batches.Create(ctx, model, tt.src, tt.cfg)
				if !errors.As(err, &apiErr) {
					t.Fatalf("Create: %v, want an APIError", err)
				}
			} else {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/v1beta/models/"+model+":batchGenerateContent", strings.NewReader(tt.raw))
				req.Header.Set("x-goog-api-key", "k")
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var body struct{ Error genai.APIError }
				if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != body.Error.Code {
					t.Fatalf("status %s, body error %v", resp.Status, err)
				}
				apiErr = body.Error
			}
			if apiErr.Code != tt.wantCode || apiErr.Status != tt.wantStatus || apiErr.Message == "" {
				t.Errorf("error = %+v, want %d %s", apiErr, tt.wantCode, tt.wantStatus)
			}
		})
	}
	t.Cleanup(func() {
		if n := srv.BatchStats().Created; n != 0 {
			t.Errorf("Created = %d after rejected creates", n)
		}
	})
}

func TestBatchWithoutAPIKey(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	job := createInline(t, newClient(t, srv), "a")
	resp, err := srv.Client().Get(srv.URL() + "/v1beta/" + job.Name)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET without a key: %s, want 403", resp.Status)
	}
}

// TestDownloadUnknownFile shows what Files.Download does with an error answer: the SDK
// does not look at the status, so the error body comes back as the file's content.
func TestDownloadUnknownFile(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	data, err := newClient(t, srv).Files.Download(context.Background(), genai.NewDownloadURIFromFile(&genai.File{DownloadURI: "files/nosuchfile"}), nil)
	if err != nil || !strings.Contains(string(data), `"PERMISSION_DENIED"`) {
		t.Errorf("Download = %q, %v; want the error body and no error", data, err)
	}
}

func TestBatchConcurrentPolling(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithBatchHandler(answerByKey))
	c := newClient(t, srv)
	var names []string
	for i := range 4 {
		names = append(names, createInline(t, c, fmt.Sprint(i), "x").Name)
	}
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			for {
				job, err := c.Batches.Get(context.Background(), name, nil)
				if err != nil {
					t.Errorf("Get: %v", err)
					return
				}
				if job.State == genai.JobStateSucceeded {
					if len(job.Dest.InlinedResponses) != 2 {
						t.Errorf("%s: %d responses", name, len(job.Dest.InlinedResponses))
					}
					return
				}
			}
		})
	}
	for srv.AdvanceBatches() > 0 {
	}
	wg.Wait()
}

func TestBatchFileEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		state     genai.JobState
		answered  func(*geminitest.BatchRequest) bool
		wantLines int // 0: no results file
	}{
		{"expired with two answers", genai.JobStateExpired, func(r *geminitest.BatchRequest) bool { return r.Key != "k2" }, 2},
		{"cancelled with one answer", genai.JobStateCancelled, func(r *geminitest.BatchRequest) bool { return r.Key == "k2" }, 1},
		{"failed", genai.JobStateFailed, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			c := newClient(t, srv)
			ctx := context.Background()
			var input strings.Builder
			for i := 1; i <= 3; i++ {
				fmt.Fprintf(&input, `{"key":"k%d","request":{"contents":[{"parts":[{"text":"q%d"}]}]}}`+"\n", i, i)
			}
			f, err := c.Files.Upload(ctx, strings.NewReader(input.String()), &genai.UploadFileConfig{MIMEType: "application/jsonl"})
			if err != nil {
				t.Fatal(err)
			}
			job, err := c.Batches.Create(ctx, model, &genai.BatchJobSource{FileName: f.Name}, &genai.CreateBatchJobConfig{DisplayName: "d"})
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.FinishBatch(job.Name, tt.state, tt.answered); err != nil {
				t.Fatal(err)
			}
			job = getJob(t, c, job.Name)
			if job.State != tt.state {
				t.Fatalf("state = %s, want %s", job.State, tt.state)
			}
			if tt.wantLines == 0 {
				if job.Dest != nil {
					t.Errorf("Dest = %+v, want none", job.Dest)
				}
				return
			}
			data, err := c.Files.Download(ctx, genai.NewDownloadURIFromFile(&genai.File{DownloadURI: job.Dest.FileName}), nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), "\n"); n != tt.wantLines {
				t.Errorf("results file has %d lines, want %d:\n%s", n, tt.wantLines, data)
			}
		})
	}
}
