package remote_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/session"
)

// plainRequests are n requests, every other one asking the same (as an evaluation's repeats do).
func plainRequests(n int) []session.Request {
	reqs := make([]session.Request, n)
	for i := range reqs {
		reqs[i] = session.Request{
			Contents: []*genai.Content{genai.NewContentFromText(fmt.Sprintf("question %d", i%2), genai.RoleUser)},
			Config:   &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("Alert (JSON):\n{}", "")},
		}
	}
	return reqs
}

// A job of plain requests on both backends, inline and as a file: submitted once, found again
// for the same requests, waited for through a failed look, and answered in request order.
func TestRequestsJob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  func(t *testing.T) *env
		file bool
	}{
		{"Gemini API inline", func(t *testing.T) *env { return newEnv(t) }, false},
		{"Gemini API file", func(t *testing.T) *env { return newEnv(t) }, true},
		{"Vertex AI", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{}) }, true},
		{"Vertex AI dropping the labels", func(t *testing.T) *env { return newVertexEnv(t, geminitest.VertexBatches{DropLabels: true}) }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := tc.env(t)
			reqs := plainRequests(4)
			sha, err := remote.RequestsSHA256("test", reqs)
			if err != nil {
				t.Fatal(err)
			}
			if other, _ := remote.RequestsSHA256("other", reqs); other == sha {
				t.Fatal("the kind does not change the identity")
			}
			o := e.options()
			o.Store, o.NewSession = nil, nil
			if tc.file {
				o.InlineLimit = 1
			}
			oc, err := remote.SubmitRequests(t.Context(), sha, reqs, o)
			if err != nil || !oc.Submitted || oc.Inlined == tc.file || oc.Job.Requests != 4 {
				t.Fatalf("submit: %+v, %v", oc, err)
			}
			again, err := remote.SubmitRequests(t.Context(), sha, reqs, o)
			if err != nil || !again.Found || again.Job.ID != oc.Job.ID || e.srv.BatchStats().Created != 1 {
				t.Fatalf("again: %+v, %v, %d created", again, err, e.srv.BatchStats().Created)
			}

			e.srv.FailNext(geminitest.KindBatchGet, 1, geminitest.Reply{Status: 503, ErrorMessage: "busy"})
			answers, err := remote.CollectRequests(t.Context(), again, len(reqs), o)
			if err != nil || len(answers) != 4 || again.CleanErr != nil {
				t.Fatalf("collect: %d answers, %v, clean %v", len(answers), err, again.CleanErr)
			}
			for i, a := range answers {
				text := ""
				if a.Response != nil {
					text = a.Response.Text()
				}
				// Without keys and labels, identical requests may have each other's answers.
				want := fmt.Sprintf("answer to q%d: question %d", i+1, i%2)
				if tc.name == "Vertex AI dropping the labels" {
					want = fmt.Sprintf(": question %d", i%2)
				}
				if a.Err != nil || !strings.Contains(text, want) {
					t.Errorf("answer %d: %q, %v", i, text, a.Err)
				}
			}
			rec, err := e.store.GetBatchJob(t.Context(), oc.Job.ID)
			if err != nil || !rec.Collected || rec.Succeeded != 4 || rec.Failed != 0 || rec.State != string(genai.JobStateSucceeded) {
				t.Fatalf("record %+v, %v", rec, err)
			}
		})
	}
}

// A job that expired with some answers returns them all, the others as errors, and
// ErrJobEnded; a job that failed without any returns ErrJobEnded alone.
func TestRequestsJobEnded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		state    genai.JobState
		answered func(*geminitest.BatchRequest) bool
	}{
		{genai.JobStateExpired, func(r *geminitest.BatchRequest) bool { return r.Index != 1 }},
		{genai.JobStateFailed, nil},
	} {
		t.Run(string(tc.state), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			reqs := plainRequests(3)
			sha, _ := remote.RequestsSHA256("test", reqs)
			o := e.options()
			o.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
			oc, err := remote.SubmitRequests(t.Context(), sha, reqs, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.srv.FinishBatch(oc.Job.ID, tc.state, tc.answered); err != nil {
				t.Fatal(err)
			}
			answers, err := remote.CollectRequests(t.Context(), oc, len(reqs), o)
			if !errors.Is(err, remote.ErrJobEnded) || !strings.Contains(err.Error(), string(tc.state)) {
				t.Fatalf("error %v", err)
			}
			if tc.answered == nil {
				if answers != nil {
					t.Fatalf("answers of a failed job: %+v", answers)
				}
				return
			}
			if len(answers) != 3 || answers[0].Err != nil || answers[2].Err != nil || answers[1].Err == nil || !strings.Contains(answers[1].Err.Error(), "no answer") {
				t.Fatalf("answers %+v", answers)
			}
			rec, _ := e.store.GetBatchJob(t.Context(), oc.Job.ID)
			if rec.Succeeded != 2 || rec.Failed != 1 || rec.State != string(tc.state) {
				t.Fatalf("record %+v", rec)
			}
		})
	}
}

// The line that reports a submission says how its requests went.
func TestOutcomeSentAs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		inlined bool
		want    string
	}{{true, "inline"}, {false, "as a file"}} {
		if got := (&remote.Outcome{Submitted: true, Inlined: tc.inlined}).SentAs(); got != tc.want {
			t.Errorf("inlined %v: sent %q, want %q", tc.inlined, got, tc.want)
		}
	}
}
