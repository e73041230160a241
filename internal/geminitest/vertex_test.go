package geminitest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// vertexClient is a genai client of srv on the Vertex AI backend, with a bearer token.
func vertexClient(t *testing.T, srv *geminitest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendVertexAI, Project: "proj", Location: "us-central1",
		Credentials: testenv.VertexCredentials(), HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// prediction is a line of predictions.jsonl as a caller parses it.
type prediction struct {
	Key           string                         `json:"key"`
	Status        *string                        `json:"status"`
	ProcessedTime string                         `json:"processed_time"`
	Request       map[string]any                 `json:"request"`
	Response      *genai.GenerateContentResponse `json:"response"`
}

func TestVertexBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       geminitest.VertexBatches
		wantKey    bool
		wantLabels bool
	}{
		{"as served", geminitest.VertexBatches{}, false, true},
		{"key passed through", geminitest.VertexBatches{KeepKey: true}, true, true},
		{"labels dropped", geminitest.VertexBatches{DropLabels: true}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, sc := testenv.GCS(t)
			tt.opts.Objects = testenv.GCSObjects{Client: sc}
			srv := geminitest.NewServer(t, geminitest.WithBatchHandler(answerByKey), geminitest.WithVertexBatches(tt.opts))
			c := vertexClient(t, srv)
			ctx := context.Background()
			var input bytes.Buffer
			for _, k := range []string{"first", "bad", "third"} {
				fmt.Fprintf(&input, `{"key":%q,"request":{"contents":[{"role":"user","parts":[{"text":"question %s"}]}],"labels":{"k":%q}}}`+"\n", k, k, k)
			}
			if err := (testenv.GCSObjects{Client: sc}).WriteObject(ctx, testenv.Bucket, "in/input.jsonl", input.Bytes()); err != nil {
				t.Fatal(err)
			}
			job, err := c.Batches.Create(ctx, model, &genai.BatchJobSource{Format: "jsonl", GCSURI: []string{"gs://" + testenv.Bucket + "/in/input.jsonl"}},
				&genai.CreateBatchJobConfig{DisplayName: "vertex batch", Dest: &genai.BatchJobDestination{Format: "jsonl", GCSURI: "gs://" + testenv.Bucket + "/out"}})
			if err != nil {
				t.Fatalf("Batches.Create: %v", err)
			}
			if !strings.HasPrefix(job.Name, "projects/proj/locations/us-central1/batchPredictionJobs/") || job.State != genai.JobStatePending {
				t.Fatalf("created %s, %s", job.Name, job.State)
			}
			b, _ := srv.Batch(job.Name)
			if len(b.Requests) != 3 || b.Requests[1].Key != "bad" || b.Requests[2].LastUserText() != "question third" {
				t.Fatalf("requests %+v", b.Requests)
			}
			srv.AdvanceBatches()
			srv.AdvanceBatches()
			job, err = c.Batches.Get(ctx, job.Name, nil)
			if err != nil {
				t.Fatalf("Batches.Get: %v", err)
			}
			if job.State != genai.JobStateSucceeded || job.OutputInfo == nil || !strings.HasPrefix(job.OutputInfo.GCSOutputDirectory, "gs://"+testenv.Bucket+"/out/prediction-model-") ||
				job.CompletionStats == nil || job.CompletionStats.SuccessfulCount != 2 || job.CompletionStats.FailedCount != 1 {
				t.Fatalf("job %s, output %+v, stats %+v", job.State, job.OutputInfo, job.CompletionStats)
			}
			dir := strings.TrimPrefix(job.OutputInfo.GCSOutputDirectory, "gs://"+testenv.Bucket+"/")
			data, err := testenv.GCSObjects{Client: sc}.ReadObject(ctx, testenv.Bucket, dir+"/predictions.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			s := bufio.NewScanner(bytes.NewReader(data))
			n := 0
			for s.Scan() {
				n++
				var p prediction
				if err := json.Unmarshal(s.Bytes(), &p); err != nil {
					t.Fatalf("line %q: %v", s.Text(), err)
				}
				text := p.Request["contents"].([]any)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
				k := strings.TrimPrefix(text, "question ")
				if (p.Key != "") != tt.wantKey || (p.Request["labels"] != nil) != tt.wantLabels || p.ProcessedTime == "" || p.Status == nil {
					t.Errorf("line %s", s.Text())
				}
				if k == "bad" {
					if p.Response != nil || !strings.HasPrefix(*p.Status, `Too Many Requests: {"error":{"code":429,"message":"quota"`) {
						t.Errorf("failed line %s", s.Text())
					}
					continue
				}
				if *p.Status != "" || p.Response == nil || p.Response.Text() != "answer to "+k+": question "+k {
					t.Errorf("answered line %s", s.Text())
				}
			}
			if n != 3 {
				t.Fatalf("%d prediction lines", n)
			}
		})
	}
}

func TestVertexBatchFailsCancelsAndRefuses(t *testing.T) {
	t.Parallel()
	_, sc := testenv.GCS(t)
	srv := geminitest.NewServer(t, geminitest.WithVertexBatches(geminitest.VertexBatches{Objects: testenv.GCSObjects{Client: sc}}))
	c := vertexClient(t, srv)
	ctx := context.Background()
	if err := (testenv.GCSObjects{Client: sc}).WriteObject(ctx, testenv.Bucket, "in.jsonl", []byte(`{"request":{"contents":[{"parts":[{"text":"hi"}]}]}}`+"\n")); err != nil {
		t.Fatal(err)
	}
	create := func() *genai.BatchJob {
		job, err := c.Batches.Create(ctx, model, &genai.BatchJobSource{Format: "jsonl", GCSURI: []string{"gs://" + testenv.Bucket + "/in.jsonl"}},
			&genai.CreateBatchJobConfig{DisplayName: "d", Dest: &genai.BatchJobDestination{Format: "jsonl", GCSURI: "gs://" + testenv.Bucket + "/out"}})
		if err != nil {
			t.Fatal(err)
		}
		return job
	}

	// A job that FAILED has an error with typed details: the SDK cannot decode it.
	failed := create()
	if err := srv.SetBatchState(failed.Name, genai.JobStateFailed); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Batches.Get(ctx, failed.Name, nil); err == nil || !strings.Contains(err.Error(), "cannot unmarshal object") {
		t.Fatalf("Get of a failed job: %v", err)
	}

	cancelled := create()
	if err := c.Batches.Cancel(ctx, cancelled.Name, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Batches.Get(ctx, cancelled.Name, nil); err != nil || got.State != genai.JobStateCancelled || got.OutputInfo != nil {
		t.Fatalf("cancelled job: %+v, %v", got, err)
	}

	// Without credentials, and with a missing input.
	resp, err := srv.Client().Get(srv.URL() + "/v1beta1/" + cancelled.Name)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET without credentials: %s", resp.Status)
	}
	_, err = c.Batches.Create(ctx, model, &genai.BatchJobSource{Format: "jsonl", GCSURI: []string{"gs://" + testenv.Bucket + "/nosuch.jsonl"}},
		&genai.CreateBatchJobConfig{DisplayName: "d", Dest: &genai.BatchJobDestination{Format: "jsonl", GCSURI: "gs://" + testenv.Bucket + "/out"}})
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != 400 {
		t.Errorf("create with a missing input: %v", err)
	}
}
