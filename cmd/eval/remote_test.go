package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/record"
)

// remoteTriager is a scripted Gemini for remote evaluations: every job request is answered
// with text naming the case's first indicator; a verdict request concludes the expected
// verdict citing it, except gemini-3.7-flash, which always says benign.
func remoteTriager(t *testing.T, cases []eval.Case) (*geminitest.Server, *atomic.Int64) {
	var verdictRequests atomic.Int64
	indicator := func(text string) string {
		for _, c := range cases {
			if strings.Contains(text, c.MustMention[0]) {
				return c.MustMention[0]
			}
		}
		return ""
	}
	srv := geminitest.NewServer(t, geminitest.WithGemini3(),
		geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
			return geminitest.Reply{Text: "From the batch: the alert names " + indicator(r.SystemText()) + "."}
		}),
		geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
			if r.GenerationConfig == nil || r.GenerationConfig.ResponseMIMEType != "application/json" {
				return geminitest.Reply{Status: 500, ErrorMessage: "an investigation was asked outside the job"}
			}
			verdictRequests.Add(1)
			body := r.LastUserText()
			for _, c := range cases {
				if !strings.Contains(body, c.MustMention[0]) {
					continue
				}
				if !strings.Contains(body, "From the batch") {
					return geminitest.Reply{Status: 500, ErrorMessage: "the verdict request lacks the job's answer"}
				}
				v := c.Verdict
				if r.Model == "gemini-3.7-flash" {
					v = record.VerdictBenign
				}
				return geminitest.Reply{Text: fmt.Sprintf(`{"verdict":%q,"conclusion":"Concluded.","evidence":[{"value":%q,"claim":"seen"}]}`, v, c.MustMention[0])}
			}
			return geminitest.Reply{Status: 500, ErrorMessage: "no case matched"}
		}))
	return srv, &verdictRequests
}

// casesFile writes cases as a JSONL file.
func casesFile(t *testing.T, cases []eval.Case) string {
	t.Helper()
	var lines []string
	for _, c := range cases {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return clitest.WriteFile(t, "cases.jsonl", strings.Join(lines, "\n"))
}

func report(t *testing.T, out string) *eval.Report {
	t.Helper()
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	return &rep
}

// onlyJob is the name of the server's one job.
func onlyJob(t *testing.T, srv *geminitest.Server) string {
	t.Helper()
	bs := srv.Batches()
	if len(bs) != 1 {
		t.Fatalf("%d jobs", len(bs))
	}
	return bs[0].Name
}

// A whole remote evaluation: submitted once with --no-wait, found again by the same command,
// scored as a local eval scores (one verdict request per run), in both formats; each job
// request is the first request of the local eval --no-tools, without tools.
func TestEvalRemote(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:4]
	file := casesFile(t, cases)
	srv, verdicts := remoteTriager(t, cases)
	dir := t.TempDir()
	run := func(args ...string) (string, string, int) {
		return clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()),
			append([]string{"--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools", "--remote", "--repeat", "2"}, args...)...)
	}

	out, errOut, code := run("--no-wait")
	var line struct{ Job string }
	if code != 0 || json.Unmarshal([]byte(out), &line) != nil || !strings.HasPrefix(line.Job, "batches/") || !strings.Contains(errOut, "Submitted batch job") {
		t.Fatalf("submit: exit %d, %q, %q", code, out, errOut)
	}
	if job := onlyJob(t, srv); job != line.Job {
		t.Fatalf("printed %s, made %s", line.Job, job)
	}
	b, _ := srv.Batch(line.Job)
	if len(b.Requests) != 2*len(cases) {
		t.Fatalf("%d requests for %d runs", len(b.Requests), 2*len(cases))
	}
	for _, r := range b.Requests {
		if len(r.Tools) != 0 || r.LastUserText() != eval.DefaultQuestion || !strings.Contains(r.SystemText(), "Alert (JSON)") {
			t.Fatalf("request %s: tools %d, question %q", r.Key, len(r.Tools), r.LastUserText())
		}
	}
	srv.AdvanceBatches()
	srv.AdvanceBatches()

	out, errOut, code = run("-o", "json")
	if code != 0 || !strings.Contains(errOut, "Found batch job "+line.Job) {
		t.Fatalf("collect: exit %d: %s", code, errOut)
	}
	rep := report(t, out)
	m := rep.Models[0]
	if !rep.Complete || m.Runs != 2*len(cases) || m.Errors != 0 || m.Accuracy != 1 || m.Consistency != 1 || m.Cited != 2*len(cases) || m.Unsupported != 0 {
		t.Errorf("report: %+v", m)
	}
	if m.MentionRecall == nil || *m.MentionRecall == 0 || m.Tokens.Input == 0 || m.Tokens.Total == 0 {
		t.Errorf("mentions %v, tokens %+v", m.MentionRecall, m.Tokens)
	}
	for _, c := range rep.Cases {
		if len(c.Runs) != 2 || c.Runs[0].Repeat != 1 || c.Runs[1].Repeat != 2 || !c.Runs[0].Correct {
			t.Errorf("case %s: %+v", c.ID, c.Runs)
		}
	}
	if got := verdicts.Load(); got != int64(2*len(cases)) {
		t.Errorf("%d verdict requests for %d runs", got, 2*len(cases))
	}

	// Run again, as a table: the same job, scored the same way, nothing submitted again.
	out, errOut, code = run()
	if code != 0 || !strings.Contains(out, "MODEL\tCASES") || !strings.Contains(out, "gemini-3.8-flash\t4\t8\t0\t100.0%") {
		t.Errorf("table: exit %d\n%s\n%s", code, out, errOut)
	}
	if st := srv.BatchStats(); st.Created != 1 {
		t.Errorf("%d jobs created", st.Created)
	}
	// --resubmit asks again.
	if _, errOut, code := run("--resubmit", "--no-wait"); code != 0 || srv.BatchStats().Created != 2 {
		t.Errorf("resubmit: exit %d, %d jobs: %s", code, srv.BatchStats().Created, errOut)
	}

	// The recorded job is listed with the others.
	jobs, _, _ := clitest.Run(t, dir, "", "batch", "jobs", "-o", "json")
	if !strings.Contains(jobs, line.Job) {
		t.Errorf("batch jobs: %s", jobs)
	}
}

// The local eval --no-tools sends, as its first request, what the job asks.
func TestEvalRemoteAsksTheLocalRequest(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:1]
	file := casesFile(t, cases)
	local := geminitest.NewServer(t, geminitest.WithGemini3())
	local.Enqueue(geminitest.Reply{Text: "answer"}, geminitest.Reply{Text: `{"verdict":"benign","conclusion":"Concluded.","evidence":[]}`})
	if _, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(local.URL()), "--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools"); code != 0 {
		t.Fatalf("local: exit %d: %s", code, errOut)
	}
	first := local.Requests()[0]

	srv, _ := remoteTriager(t, cases)
	if _, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), "--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools", "--remote", "--no-wait"); code != 0 {
		t.Fatalf("remote: exit %d: %s", code, errOut)
	}
	b, _ := srv.Batch(onlyJob(t, srv))
	job := b.Requests[0]
	same := func(a, b any) bool {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return bytes.Equal(x, y)
	}
	if !same(first.Contents, job.Contents) || !same(first.SystemInstruction, job.SystemInstruction) || !same(first.GenerationConfig.ThinkingConfig, job.GenerationConfig.ThinkingConfig) {
		t.Errorf("the job asks otherwise than the local eval:\nlocal %s\njob   %s", first.Body, job.Body)
	}
}

// Stopped while it waits (Ctrl-C, a crash), the job goes on; the same command run again
// waits for the recorded job and submits nothing.
func TestEvalRemoteResumes(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:3]
	file := casesFile(t, cases)
	srv, _ := remoteTriager(t, cases)
	dir := t.TempDir()
	args := []string{"alertchat", "--data-dir", dir, "--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools", "--remote", "--poll-interval", "1s", "-o", "json"}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for srv.BatchStats().Gets < 1 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel() // waiting for its next look
	}()
	var out, errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	code := cmd.RunWith(ctx, args, ios, clitest.FakeGemini(srv.URL()))
	if code != 130 || !strings.Contains(errOut.String(), "run the same command again") || out.Len() != 0 {
		t.Fatalf("stopped: exit %d, %q, %q", code, out.String(), errOut.String())
	}
	job := onlyJob(t, srv)
	if b, _ := srv.Batch(job); b.State != genai.JobStatePending {
		t.Fatalf("the job is %s", b.State)
	}

	srv.AdvanceBatches()
	srv.AdvanceBatches()
	got, stderr, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), args[3:]...)
	if code != 0 || !strings.Contains(stderr, "Found batch job "+job) {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if rep := report(t, got); rep.Models[0].Runs != len(cases) || rep.Models[0].Accuracy != 1 {
		t.Errorf("report: %+v", rep.Models[0])
	}
	if st := srv.BatchStats(); st.Created != 1 {
		t.Errorf("%d jobs created", st.Created)
	}
}

// A job that failed stops its model (said once, exit 1); an expired job's answered runs are
// scored and the others are errors, never left out (exit 1, the report printed first).
func TestEvalRemoteJobEnds(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:4]
	file := casesFile(t, cases)
	for _, tc := range []struct {
		name     string
		state    genai.JobState
		answered func(*geminitest.BatchRequest) bool
		code     int
	}{
		{"failed", genai.JobStateFailed, nil, 1},
		{"expired with half answered", genai.JobStateExpired, func(r *geminitest.BatchRequest) bool { return r.Index%2 == 0 }, 1},
		// A job that succeeded without some answers: those runs are errors, as a local run that
		// failed is, and the exit is a local eval's.
		{"succeeded with half answered", genai.JobStateSucceeded, func(r *geminitest.BatchRequest) bool { return r.Index%2 == 0 }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := remoteTriager(t, cases)
			dir := t.TempDir()
			args := []string{"--model", "gemini-3.8-flash,gemini-3.7-flash", "eval", "-f", file, "--no-tools", "--remote", "-o", "json"}
			if _, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), append(args, "--no-wait")...); code != 0 {
				t.Fatalf("submit: exit %d: %s", code, errOut)
			}
			bs := srv.Batches()
			if len(bs) != 2 || bs[0].Model != "gemini-3.8-flash" || bs[1].Model != "gemini-3.7-flash" {
				t.Fatalf("one job per model: %+v", bs)
			}
			if err := srv.FinishBatch(bs[0].Name, tc.state, tc.answered); err != nil {
				t.Fatal(err)
			}
			if err := srv.SetBatchState(bs[1].Name, genai.JobStateSucceeded); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), args...)
			rep := report(t, out)
			a, b := rep.Models[0], rep.Models[1]
			if code != tc.code || code != 0 && !strings.Contains(errOut, string(tc.state)) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			if b.Runs != len(cases) || b.Errors != 0 || b.Stopped != "" {
				t.Errorf("the other model: %+v", b)
			}
			if tc.answered == nil {
				if !strings.Contains(a.Stopped, string(tc.state)) || a.Runs != 0 {
					t.Errorf("stopped model: %+v", a)
				}
				return
			}
			if a.Stopped != "" || a.Runs != len(cases) || a.Errors != len(cases)/2 || a.Accuracy != 1 {
				t.Errorf("partial model: %+v", a)
			}
			for i, c := range rep.Cases {
				r := c.Runs[0]
				if (i%2 == 1) != r.Failed() || r.Failed() && !strings.Contains(r.Error, "no answer") {
					t.Errorf("case %d run: %+v", i, r)
				}
			}
		})
	}
}

// --min-accuracy decides the exit of a remote evaluation as of a local one.
func TestEvalRemoteMinAccuracy(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:3]
	file := casesFile(t, cases)
	srv, _ := remoteTriager(t, cases)
	dir := t.TempDir()
	args := []string{"--model", "gemini-3.8-flash,gemini-3.7-flash", "eval", "-f", file, "--no-tools", "--remote"}
	if _, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), append(args, "--no-wait")...); code != 0 {
		t.Fatalf("submit: exit %d: %s", code, errOut)
	}
	srv.AdvanceBatches()
	srv.AdvanceBatches()
	out, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), append(args, "--min-accuracy", "0.9")...)
	if code != 1 || !strings.Contains(errOut, "gemini-3.7-flash: accuracy") || strings.Contains(errOut, "gemini-3.8-flash: accuracy") ||
		!strings.Contains(out, "gemini-3.8-flash\t3\t3\t0\t100.0%") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), "--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools", "--remote", "--min-accuracy", "0.9"); code != 0 {
		t.Errorf("above it: exit %d: %s", code, errOut)
	}
	if st := srv.BatchStats(); st.Created != 2 {
		t.Errorf("%d jobs created", st.Created)
	}
}

// What a job cannot do is refused before anything is asked.
func TestEvalRemoteUsage(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "testdata", "eval", "cases.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--remote"}, "--no-tools"},
		{[]string{"--remote", "--no-tools", "--save"}, "--save"},
		{[]string{"--remote", "--no-tools", "--evidence", "."}, "--evidence"},
		{[]string{"--no-wait"}, "go with --remote"},
		{[]string{"--resubmit", "--no-tools"}, "go with --remote"},
		{[]string{"--remote", "--no-tools", "--poll-interval", "10ms"}, "--poll-interval"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			_, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), append([]string{"eval", "-f", file}, tc.args...)...)
			if code != 2 || !strings.Contains(errOut, tc.want) || srv.Stats().Requests != 0 || srv.BatchStats().Created != 0 {
				t.Errorf("exit %d: %s", code, errOut)
			}
		})
	}
}

// A model the Batch API does not serve (retired) is said once, naming what to use instead; the
// other model's job is submitted and reported.
func TestEvalRemoteRetiredModel(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:2]
	file := casesFile(t, cases)
	srv, _ := remoteTriager(t, cases)
	dir := t.TempDir()
	args := []string{"--model", "gemini-3.8-flash,gemini-2.5-flash", "eval", "-f", file, "--no-tools", "--remote", "-o", "json"}
	_, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), append(args, "--no-wait")...)
	if code != 1 || !strings.Contains(errOut, "gemini-2.5-flash") || srv.BatchStats().Created != 1 {
		t.Fatalf("submit: exit %d, %d jobs: %s", code, srv.BatchStats().Created, errOut)
	}
	srv.AdvanceBatches()
	srv.AdvanceBatches()
	out, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), args...)
	rep := report(t, out)
	a, b := rep.Models[0], rep.Models[1]
	if code != 1 || a.Runs != len(cases) || a.Accuracy != 1 || b.Runs != 0 || !strings.Contains(b.Stopped, "gemini-2.5-flash") || !strings.Contains(b.Stopped, "gemini-3.8-flash") {
		t.Errorf("exit %d, %+v, %+v: %s", code, a, b, errOut)
	}
	if srv.BatchStats().Created != 1 {
		t.Errorf("%d jobs", srv.BatchStats().Created)
	}
}
