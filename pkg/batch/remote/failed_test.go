package remote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/batch/remote"
)

// invalidArgument is how the fake fails a request: a 400 whose status carries a typed detail,
// as the API's do.
var invalidArgument = geminitest.Reply{Status: 400, ErrorMessage: "Request contains an invalid argument."}

// TestFailedQuestion: a job in which questions failed with typed errors is collected on both
// backends, inline and as a file, whether or not Vertex AI keeps the line's key and the
// request's labels: the failed lines say why, the others are saved, and the job's files are
// deleted once it is collected.
func TestFailedQuestion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    func(t *testing.T) *env
		file   bool
		failed func(key string) bool
	}{
		{"Gemini API inline", func(t *testing.T) *env { return newEnv(t) }, false, nil},
		{"Gemini API file", func(t *testing.T) *env { return newEnv(t) }, true, nil},
		{"Gemini API inline, every question failed", func(t *testing.T) *env { return newEnv(t) }, false, func(k string) bool { return strings.HasPrefix(k, "q") }},
		{"Vertex AI", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{}) }, true, nil},
		{"Vertex AI keeping the key", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{KeepKey: true}) }, true, nil},
		{"Vertex AI dropping the labels", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{DropLabels: true}) }, true, nil},
		{"Vertex AI, every question failed", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{DropLabels: true}) }, true, func(k string) bool { return strings.HasPrefix(k, "q") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := tc.env(t)
			failed := tc.failed
			if failed == nil {
				failed = func(k string) bool { return k == "q2" }
			}
			input := `{"id": "a", "alert_id": "alert-dns", "query": "who owns the domain?"}
{"id": "b", "alert_id": "alert-scan", "query": "is the scan internal?"}
{"id": "c", "alert_id": "alert-dns", "query": "who owns the domain?"}
`
			o := e.options()
			o.NoWait = true
			if tc.file {
				o.InlineLimit = 1
			}
			first := e.run(t, t.Context(), input, o)
			if first.err != nil || first.oc.Inlined == tc.file {
				t.Fatalf("submit: %+v, %v", first.oc, first.err)
			}
			if err := e.srv.SetBatchHandler(first.oc.Job.ID, func(r *geminitest.BatchRequest) geminitest.Reply {
				if failed(r.Key) {
					return invalidArgument
				}
				return answerByKey(r)
			}); err != nil {
				t.Fatal(err)
			}

			r := e.run(t, t.Context(), input, e.options())
			if r.err != nil || len(r.results) != 3 {
				t.Fatalf("collect: %v, %d lines", r.err, len(r.results))
			}
			saved := 0
			for i, l := range r.results {
				key := fmt.Sprintf("q%d", i+1)
				if l.Line != i+1 || l.ID == nil {
					t.Fatalf("line %d: %+v", i+1, l)
				}
				if failed(key) {
					if l.Error == nil || !strings.Contains(*l.Error, "Request contains an invalid argument.") || !strings.Contains(*l.Error, "400") ||
						l.Answer != "" || l.HistoryID != "" || l.Title != "" {
						t.Errorf("failed line %d: %+v", i+1, l)
					}
					continue
				}
				saved++
				// Without keys and labels, the answers of identical requests (lines 1 and 3 ask
				// the same of the same alert) may be given to either.
				want, title := key, fmt.Sprintf("Title %d", i+1)
				if tc.name == "Vertex AI dropping the labels" && strings.HasPrefix(l.Answer, "answer to q"+fmt.Sprint(3-i)+":") && i != 1 {
					want, title = fmt.Sprintf("q%d", 3-i), fmt.Sprintf("Title %d", 3-i)
				}
				if l.Error != nil || !strings.HasPrefix(l.Answer, "answer to "+want+": ") || l.Title != title || l.HistoryID == "" {
					t.Errorf("line %d: %+v (error %v)", i+1, l, l.Error)
				}
			}
			if int(e.saves.Load()) != saved || r.oc.Summary.Failed != 3-saved || r.oc.CleanErr != nil {
				t.Fatalf("%d saves, summary %+v, clean %v; want %d saved", e.saves.Load(), r.oc.Summary, r.oc.CleanErr, saved)
			}

			// The job's files are gone: the Files API's input, or the job's folder in the bucket.
			rec, err := e.store.GetBatchJob(t.Context(), first.oc.Job.ID)
			if err != nil || !rec.Collected {
				t.Fatalf("record %+v, %v", rec, err)
			}
			switch {
			case e.vertex:
				if !strings.HasPrefix(rec.InputFile, "gs://"+"alertchat-test/team/batches/") {
					t.Fatalf("recorded input %q", rec.InputFile)
				}
				if left := testenv.ObjectNames(t, e.bucket, "team/"); len(left) != 0 {
					t.Fatalf("left in the bucket: %v", left)
				}
			case tc.file:
				if _, ok := e.srv.FileData(rec.InputFile); ok || rec.InputFile == "" {
					t.Fatalf("input file %q still there", rec.InputFile)
				}
			}

			// Run again: the Gemini API's results are still there, the same lines come out;
			// Vertex AI's were deleted, which the error says.
			again := e.run(t, t.Context(), input, e.options())
			if e.vertex {
				if !errors.Is(again.err, remote.ErrCollected) || len(again.results) != 0 {
					t.Fatalf("run again: %v, %d lines", again.err, len(again.results))
				}
				return
			}
			if again.err != nil || len(again.results) != 3 || int(e.saves.Load()) != saved {
				t.Fatalf("run again: %v, %d lines, %d saves", again.err, len(again.results), e.saves.Load())
			}
			for i := range again.results {
				if again.results[i].Answer != r.results[i].Answer || again.results[i].HistoryID != r.results[i].HistoryID {
					t.Fatalf("line %d differs: %+v", i+1, again.results[i])
				}
			}
		})
	}
}

// uploadSpy looks into the temporary directory while the input is uploaded.
type uploadSpy struct {
	remote.Service
	dir     string
	entries []string
	size    int64
}

func (u *uploadSpy) Upload(ctx context.Context, id string, r io.Reader, size int64) (*genai.BatchJobSource, error) {
	des, err := os.ReadDir(u.dir)
	if err != nil {
		return nil, err
	}
	for _, de := range des {
		u.entries = append(u.entries, de.Name())
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	u.size = int64(len(data))
	return u.Service.Upload(ctx, id, bytes.NewReader(data), size)
}

// TestInputFileHasNoName: the job's input file, the questions unredacted, has no name on disk
// from the moment it is made, so a run killed at any point leaves nothing behind.
func TestInputFileHasNoName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	spy := &uploadSpy{Service: e.svc, dir: dir}
	o := e.options()
	o.NoWait, o.InlineLimit, o.TempDir, o.Service = true, 1, dir, spy
	r := e.run(t, t.Context(), `{"alert_id": "alert-dns", "query": "my password is hunter2"}`, o)
	if r.err != nil || r.oc.Inlined {
		t.Fatalf("%v: %+v", r.err, r.oc)
	}
	if len(spy.entries) != 0 || spy.size == 0 {
		t.Fatalf("while uploading %d bytes the temporary directory held %v", spy.size, spy.entries)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Fatalf("left behind: %v", des)
	}
}

// TestUndecodableJobIsNotPrinted: when the SDK cannot decode a job (here a plain genai client
// meets typed error details), the error says so without the job's questions and answers,
// which the SDK puts in its error's text.
func TestUndecodableJobIsNotPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	plain, err := genai.NewClient(t.Context(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = &remote.Gemini{Client: plain}
	o := e.options()
	o.NoWait = true
	r := e.run(t, t.Context(), `{"alert_id": "alert-dns", "query": "the secret is hunter2"}`+"\n"+`{"alert_id": "alert-dns", "query": "two"}`, o)
	if r.err != nil {
		t.Fatal(r.err)
	}
	_ = e.srv.SetBatchHandler(r.oc.Job.ID, func(r *geminitest.BatchRequest) geminitest.Reply {
		if r.Key == "q2" {
			return invalidArgument
		}
		return answerByKey(r)
	})
	r = e.run(t, t.Context(), `{"alert_id": "alert-dns", "query": "the secret is hunter2"}`+"\n"+`{"alert_id": "alert-dns", "query": "two"}`, e.options())
	if r.err == nil || strings.Contains(r.err.Error(), "hunter2") || !strings.Contains(r.err.Error(), "could not be decoded: json: cannot unmarshal object") {
		t.Fatalf("error %q", r.err)
	}
}
