package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// secretRedactor replaces the word "secret", enough to see that saves are redacted.
type secretRedactor struct{}

func (secretRedactor) RedactContents(cs []*genai.Content) map[string]int {
	for _, c := range cs {
		for _, p := range c.Parts {
			p.Text = strings.ReplaceAll(p.Text, "secret", "[REDACTED_SECRET]")
		}
	}
	return nil
}

func (secretRedactor) RedactString(s string) (string, map[string]int) {
	return strings.ReplaceAll(s, "secret", "[REDACTED_SECRET]"), nil
}

type env struct {
	srv   *geminitest.Server
	store *local.Store
	svc   *remote.Gemini
	// vertex is set for a Vertex AI service; bucket is then its fake-gcs-server's.
	vertex bool
	bucket *storage.BucketHandle
	// saves counts the histories saved (new and continued).
	saves atomic.Int64
	// onSave, when set, runs after every save.
	onSave func()
}

// answerByKey answers each request from its key, so a test sees that answers are matched by
// key (the fake returns them in reverse order); "t" keys get a title.
func answerByKey(r *geminitest.BatchRequest) geminitest.Reply {
	if strings.HasPrefix(r.Key, "t") {
		return geminitest.Reply{Text: "Title " + strings.TrimPrefix(r.Key, "t")}
	}
	return geminitest.Reply{Text: "answer to " + r.Key + ": " + r.LastUserText()}
}

func newEnv(t testing.TB, opts ...geminitest.Option) *env {
	t.Helper()
	srv := geminitest.NewServer(t, append([]geminitest.Option{geminitest.WithBatchHandler(answerByKey)}, opts...)...)
	st, err := local.Open(t.Context(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for id, data := range map[record.AlertID]string{"alert-dns": `{"Title":"Drop point DNS"}`, "alert-scan": `{"Title":"Port scan"}`} {
		if _, err := st.PutAlert(t.Context(), &record.Alert{ID: id, Data: json.RawMessage(data), CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := remote.NewClient(t.Context(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, store: st, svc: &remote.Gemini{Client: c}}
}

// newVertexEnv is newEnv on Vertex AI: the fake's batch prediction jobs, with their files in a
// fake-gcs-server bucket under the prefix "team/".
func newVertexEnv(t testing.TB, vb geminitest.VertexBatches, opts ...geminitest.Option) *env {
	t.Helper()
	_, sc := testenv.GCS(t)
	vb.Objects = testenv.GCSObjects{Client: sc}
	e := newEnv(t, append([]geminitest.Option{geminitest.WithVertexBatches(vb)}, opts...)...)
	c, err := remote.NewClient(t.Context(), &genai.ClientConfig{Backend: genai.BackendVertexAI, Project: "proj", Location: "us-central1",
		Credentials: testenv.VertexCredentials(), HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	e.vertex, e.bucket = true, sc.Bucket(testenv.Bucket)
	e.svc = &remote.Gemini{Client: c, Bucket: e.bucket, BucketName: testenv.Bucket, Prefix: "team/"}
	return e
}

// countingSaver counts saves on its way to the store.
type countingSaver struct {
	*local.Store
	e *env
}

func (c countingSaver) SaveHistory(ctx context.Context, h *record.History) error {
	err := c.Store.SaveHistory(ctx, h)
	if err == nil {
		c.e.saves.Add(1)
		if c.e.onSave != nil {
			c.e.onSave()
		}
	}
	return err
}

// options waits on the test's clock: each pause moves the fake's jobs one state on.
func (e *env) options() remote.Options {
	gen := failingGenerator{}
	return remote.Options{
		Service: e.svc, Jobs: e.store, Store: e.store, Model: "gemini-test", Concurrency: 2,
		FileOnly: e.vertex, KeyLabels: e.vertex,
		NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
			return session.New(session.Options{LLM: gen, Store: countingSaver{e.store, e}, Redactor: secretRedactor{}, Model: "gemini-test", Titles: true, CompactAt: -1}, a, h)
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			e.srv.AdvanceBatches()
			return nil
		},
	}
}

// failingGenerator fails every direct model call: a remote batch must make none.
type failingGenerator struct{}

func (failingGenerator) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return nil, errors.New("a remote batch asked the model directly")
}

func (failingGenerator) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		yield(nil, errors.New("a remote batch asked the model directly"))
	}
}

type run struct {
	oc      *remote.Outcome
	err     error
	results []batch.Result
}

func (e *env) run(t *testing.T, ctx context.Context, input string, o remote.Options) run {
	t.Helper()
	qs, err := batch.Parse([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	oc, err := remote.Run(ctx, []byte(input), qs, &out, o)
	r := run{oc: oc, err: err}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var res batch.Result
		if err := json.Unmarshal([]byte(l), &res); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		r.results = append(r.results, res)
	}
	return r
}

// seedHistory stores a titled one-turn history about alert-dns.
func (e *env) seedHistory(t *testing.T) *record.History {
	t.Helper()
	h := &record.History{ID: store.NewHistoryID(), AlertID: "alert-dns", Title: "Earlier", TitleSource: record.TitleManual,
		CreatedAt: time.Now(), UpdatedAt: time.Now(), Contents: []*genai.Content{
			genai.NewContentFromText("first question", genai.RoleUser), genai.NewContentFromText("first answer", genai.RoleModel)}}
	if err := e.store.SaveHistory(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSubmitThenCollect(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.seedHistory(t)
	input := `{"id": 1, "alert_id": "alert-dns", "query": "who owns the secret domain?"}
{"id": 2, "alert_id": "alert-scan", "query": "is the scan internal?"}
{"id": 3, "history_id": "` + string(old.ID) + `", "query": "and then?"}
`
	o := e.options()
	o.NoWait = true
	first := e.run(t, t.Context(), input, o)
	if first.err != nil || !first.oc.Submitted || !first.oc.Inlined || len(first.results) != 0 {
		t.Fatalf("submit: %+v, %v, %d lines", first.oc, first.err, len(first.results))
	}
	rec, err := e.store.FindBatchJob(t.Context(), remote.InputSHA256([]byte(input)), "gemini-test")
	if err != nil || rec.ID != first.oc.Job.ID || rec.Requests != 3 {
		t.Fatalf("recorded job %+v, %v", rec, err)
	}
	b, ok := e.srv.Batch(rec.ID)
	if !ok {
		t.Fatal("no job on the service")
	}
	var keys []string
	for _, r := range b.Requests {
		keys = append(keys, r.Key)
		if len(r.Tools) != 0 {
			t.Errorf("request %s declares tools", r.Key)
		}
		if strings.HasPrefix(r.Key, "q") && !strings.Contains(r.SystemText(), "Alert (JSON)") {
			t.Errorf("request %s lacks the alert: %q", r.Key, r.SystemText())
		}
	}
	// The continued history is titled already: no title request; its key says where it stood.
	if got, want := strings.Join(keys, ","), "q1,t1,q2,t2,q3@2"; got != want {
		t.Fatalf("keys %s, want %s", got, want)
	}
	if e.saves.Load() != 0 {
		t.Fatalf("%d saves before the job is done", e.saves.Load())
	}

	// The same command again finds the job, waits on the test's clock and collects it.
	second := e.run(t, t.Context(), input, e.options())
	if second.err != nil || !second.oc.Found || second.oc.Submitted {
		t.Fatalf("collect: %+v, %v", second.oc, second.err)
	}
	if len(second.results) != 3 {
		t.Fatalf("%d lines, want 3", len(second.results))
	}
	for i, r := range second.results {
		if r.Line != i+1 || r.Error != nil {
			t.Fatalf("line %d: %+v", i+1, r)
		}
		if !strings.HasPrefix(r.Answer, fmt.Sprintf("answer to q%d", i+1)) {
			t.Errorf("line %d answered %q: not matched by key", i+1, r.Answer)
		}
		if r.Usage.InputTokens == 0 {
			t.Errorf("line %d has no usage", i+1)
		}
	}
	if second.results[0].Title != "Title 1" || second.results[2].Title != "Earlier" || second.results[2].HistoryID != old.ID {
		t.Fatalf("titles or history: %+v", second.results)
	}
	h, err := e.store.GetHistory(t.Context(), second.results[0].HistoryID)
	if err != nil {
		t.Fatal(err)
	}
	if h.ID != remote.HistoryID(rec.ID, 1) || len(h.Contents) != 2 || !strings.Contains(h.Contents[0].Parts[0].Text, "[REDACTED_SECRET]") {
		t.Fatalf("saved history %s: %d contents, %q", h.ID, len(h.Contents), h.Contents[0].Parts[0].Text)
	}
	cont, err := e.store.GetHistory(t.Context(), old.ID)
	if err != nil || len(cont.Contents) != 4 || cont.Contents[2].Parts[0].Text != "and then?" {
		t.Fatalf("continued history: %v, %d contents", err, len(cont.Contents))
	}
	rec, _ = e.store.GetBatchJob(t.Context(), rec.ID)
	if !rec.Collected || rec.Succeeded != 3 || rec.State != string(genai.JobStateSucceeded) {
		t.Fatalf("recorded after collection: %+v", rec)
	}

	// Collected again: the same lines, nothing saved twice.
	saves := e.saves.Load()
	third := e.run(t, t.Context(), input, e.options())
	if third.err != nil || len(third.results) != 3 || e.saves.Load() != saves {
		t.Fatalf("second collection: %v, %d lines, %d new saves", third.err, len(third.results), e.saves.Load()-saves)
	}
	for i := range third.results {
		if third.results[i].Answer != second.results[i].Answer || third.results[i].HistoryID != second.results[i].HistoryID {
			t.Fatalf("line %d differs: %+v vs %+v", i+1, third.results[i], second.results[i])
		}
	}
	if e.srv.BatchStats().Created != 1 {
		t.Fatalf("%d jobs created, want 1", e.srv.BatchStats().Created)
	}
}

func TestCollectionInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var input strings.Builder
	for i := range 8 {
		fmt.Fprintf(&input, `{"alert_id": "alert-dns", "query": "question %d"}`+"\n", i)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	e.onSave = func() {
		if e.saves.Load() >= 3 {
			once.Do(cancel) // the collector dies after three saves
		}
	}
	o := e.options()
	o.Concurrency = 1
	first := e.run(t, ctx, input.String(), o)
	if first.err == nil {
		t.Fatal("an interrupted collection reported success")
	}
	e.onSave = nil
	second := e.run(t, t.Context(), input.String(), e.options())
	if second.err != nil || len(second.results) != 8 {
		t.Fatalf("resumed: %v, %d lines", second.err, len(second.results))
	}
	ids := map[record.HistoryID]bool{}
	for _, r := range second.results {
		if r.Error != nil || ids[r.HistoryID] {
			t.Fatalf("line %d: %+v", r.Line, r)
		}
		ids[r.HistoryID] = true
	}
	page, err := e.store.ListHistories(t.Context(), store.HistoryQuery{Limit: 100})
	if err != nil || len(page.Histories) != 8 {
		t.Fatalf("%v: %d histories, want 8 (each saved once)", err, len(page.Histories))
	}
	if e.saves.Load() != 8 {
		t.Fatalf("%d saves, want 8", e.saves.Load())
	}
}

func TestFileJobWithUnreadableLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	input := `{"alert_id": "alert-dns", "query": "one"}
{"alert_id": "alert-dns", "query": "two"}
{"alert_id": "alert-scan", "query": "three"}
`
	o := e.options()
	o.InlineLimit = 1 // any job goes as a file
	o.NoWait = true
	first := e.run(t, t.Context(), input, o)
	if first.err != nil || first.oc.Inlined {
		t.Fatalf("submit: %+v, %v", first.oc, first.err)
	}
	if e.srv.BatchStats().Uploads != 1 {
		t.Fatalf("%d uploads", e.srv.BatchStats().Uploads)
	}
	b, _ := e.srv.Batch(first.oc.Job.ID)
	if b.FileName == "" || len(b.Requests) != 6 || b.Requests[0].SystemText() == "" || b.Requests[1].GenerationConfig == nil {
		t.Fatalf("file job: %q, %d requests", b.FileName, len(b.Requests))
	}
	// q2's answer comes back as a line that is not JSON: it is that question's error.
	e.srv.SetBatchHandler(b.Name, func(r *geminitest.BatchRequest) geminitest.Reply {
		if r.Key == "q2" {
			return geminitest.Reply{Status: 500, ErrorMessage: "internal"}
		}
		return answerByKey(r)
	})
	if err := e.srv.AddBatchResultLines(b.Name, `{"key": "q2", "response": {"candidates": [`); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, t.Context(), input, e.options())
	if len(r.results) != 3 || r.results[0].Error != nil || r.results[2].Error != nil || r.results[1].Error == nil {
		t.Fatalf("%v: %+v", r.err, r.results)
	}
	if r.results[0].Title != "Title 1" || r.results[2].Title != "Title 3" {
		t.Fatalf("titles %q %q", r.results[0].Title, r.results[2].Title)
	}
	if e.saves.Load() != 2 {
		t.Fatalf("%d saves, want 2", e.saves.Load())
	}
}

func TestBadInputSubmitsNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{"not JSON", `{"alert_id": "alert-dns", "query": "ok"}` + "\n" + `nope`, "line 2"},
		{"unknown alert", `{"alert_id": "alert-dns", "query": "ok"}` + "\n" + `{"alert_id": "nosuch", "query": "q"}`, "line 2: no alert nosuch"},
		{"unknown history", `{"history_id": "6f1c2a4e-8d0b-4c52-9a57-3b8e0f6d2c19", "query": "q"}`, "line 1: no history"},
		{"one history twice", "", "continue the same history"},
		{"over the file limit", `{"alert_id": "alert-dns", "query": "a question that makes the file too large"}`, "more than the Batch API's limit of 100"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			input := tc.input
			if input == "" {
				h := e.seedHistory(t)
				input = fmt.Sprintf(`{"history_id": %q, "query": "a"}`+"\n"+`{"history_id": %q, "query": "b"}`, h.ID, h.ID)
			}
			o := e.options()
			o.InlineLimit, o.MaxFileBytes = 1, 100
			r := e.run(t, t.Context(), input, o)
			if !errors.Is(r.err, remote.ErrInvalidInput) || !strings.Contains(r.err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", r.err, tc.want)
			}
			if e.srv.BatchStats().Created != 0 || e.srv.BatchStats().Uploads != 0 || e.saves.Load() != 0 {
				t.Fatalf("something was submitted or saved: %+v", e.srv.BatchStats())
			}
			if jobs, _ := e.store.ListBatchJobs(t.Context(), 10); len(jobs) != 0 {
				t.Fatalf("%d jobs recorded", len(jobs))
			}
		})
	}
}

func TestJobThatDidNotSucceed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		state    genai.JobState
		answered func(*geminitest.BatchRequest) bool
		saved    int
	}{
		{genai.JobStateFailed, nil, 0},
		{genai.JobStateCancelled, nil, 0},
		{genai.JobStateExpired, func(r *geminitest.BatchRequest) bool { return r.Key != "q2" }, 1},
	}
	for _, tc := range tests {
		t.Run(string(tc.state), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			input := `{"alert_id": "alert-dns", "query": "one"}` + "\n" + `{"alert_id": "alert-dns", "query": "two"}`
			o := e.options()
			o.NoWait = true
			first := e.run(t, t.Context(), input, o)
			if first.err != nil {
				t.Fatal(first.err)
			}
			var err error
			if tc.answered != nil {
				err = e.srv.FinishBatch(first.oc.Job.ID, tc.state, tc.answered)
			} else {
				err = e.srv.SetBatchState(first.oc.Job.ID, tc.state)
			}
			if err != nil {
				t.Fatal(err)
			}
			r := e.run(t, t.Context(), input, e.options())
			if !errors.Is(r.err, remote.ErrJobEnded) || !strings.Contains(r.err.Error(), string(tc.state)) {
				t.Fatalf("err %v, want the state %s", r.err, tc.state)
			}
			if int(e.saves.Load()) != tc.saved {
				t.Fatalf("%d saved, want %d", e.saves.Load(), tc.saved)
			}
			rec, _ := e.store.GetBatchJob(t.Context(), first.oc.Job.ID)
			if rec.State != string(tc.state) {
				t.Fatalf("recorded state %s", rec.State)
			}
			if tc.saved > 0 && (len(r.results) != 2 || r.results[0].Error != nil || r.results[1].Error == nil || !strings.Contains(r.err.Error(), "1 of 2")) {
				t.Fatalf("partial results: %v %+v", r.err, r.results)
			}
		})
	}
}

func TestWaitBacksOffAndDetaches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	input := `{"alert_id": "alert-dns", "query": "one"}`
	e.srv.FailNext(geminitest.KindBatchGet, 3, geminitest.Reply{Status: 503, ErrorMessage: "busy"})
	var pauses []time.Duration
	o := e.options()
	o.PollInterval = time.Second
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		if pauses = append(pauses, d); len(pauses) > 4 {
			e.srv.AdvanceBatches() // the job moves on once the service answers again
		}
		return nil
	}
	r := e.run(t, t.Context(), input, o)
	if r.err != nil || len(r.results) != 1 {
		t.Fatalf("%v, %d lines", r.err, len(r.results))
	}
	// A pause before the first look; three failed looks back off (2 s, 4 s, 8 s); a good look
	// brings the pause back to the interval.
	if fmt.Sprint(pauses) != "[1s 2s 4s 8s 1s 1s]" {
		t.Fatalf("pauses %v", pauses)
	}

	// Interrupted while waiting: the job goes on, recorded, and the error says how to resume.
	e2 := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	o2 := e2.options()
	o2.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	r2 := e2.run(t, ctx, input, o2)
	if !errors.Is(r2.err, remote.ErrDetached) || !strings.Contains(r2.err.Error(), "run the same command again") {
		t.Fatalf("err %v", r2.err)
	}
	if rec, err := e2.store.GetBatchJob(t.Context(), r2.oc.Job.ID); err != nil || rec.Collected {
		t.Fatalf("job after detaching: %+v, %v", rec, err)
	}
}

func TestResubmit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	input := `{"alert_id": "alert-dns", "query": "one"}`
	o := e.options()
	o.NoWait = true
	first := e.run(t, t.Context(), input, o)
	o.Resubmit = true
	second := e.run(t, t.Context(), input, o)
	if first.err != nil || second.err != nil || first.oc.Job.ID == second.oc.Job.ID || !second.oc.Submitted {
		t.Fatalf("%v %v: %s %s", first.err, second.err, first.oc.Job.ID, second.oc.Job.ID)
	}
	// The newest job is the one found next time.
	o.Resubmit = false
	third := e.run(t, t.Context(), input, o)
	if third.err != nil || !third.oc.Found || third.oc.Job.ID != second.oc.Job.ID {
		t.Fatalf("found %+v, %v", third.oc, third.err)
	}
	// Another model is another job.
	o.Model = "gemini-other"
	fourth := e.run(t, t.Context(), input, o)
	if fourth.err != nil || fourth.oc.Found {
		t.Fatalf("another model found a job: %+v", fourth.oc)
	}
}

func TestWaitEndsOnAnswerThatWillNotChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.FailNext(geminitest.KindBatchGet, 1, geminitest.Reply{Status: 404, ErrorMessage: "no such batch"})
	r := e.run(t, t.Context(), `{"alert_id": "alert-dns", "query": "one"}`, e.options())
	if r.err == nil || errors.Is(r.err, remote.ErrDetached) || !strings.Contains(r.err.Error(), "could not look at batch job") {
		t.Fatalf("err %v", r.err)
	}
	if e.srv.BatchStats().Gets != 1 {
		t.Fatalf("%d looks, want 1", e.srv.BatchStats().Gets)
	}
}

// TestConversationWentOnBeforeCollection: a history continued by the job and by the analyst
// meanwhile gets the job's turn once, however often the job is collected.
func TestConversationWentOnBeforeCollection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	old := e.seedHistory(t)
	input := `{"history_id": "` + string(old.ID) + `", "query": "and then?"}`
	o := e.options()
	o.NoWait = true
	if r := e.run(t, t.Context(), input, o); r.err != nil {
		t.Fatal(r.err)
	}
	h, err := e.store.GetHistory(t.Context(), old.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.Contents = append(h.Contents, genai.NewContentFromText("meanwhile", genai.RoleUser), genai.NewContentFromText("noted", genai.RoleModel))
	if err := e.store.SaveHistory(t.Context(), h); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if r := e.run(t, t.Context(), input, e.options()); r.err != nil || len(r.results) != 1 || r.results[0].Error != nil {
			t.Fatalf("collection %d: %v %+v", i+1, r.err, r.results)
		}
	}
	h, err = e.store.GetHistory(t.Context(), old.ID)
	if err != nil || len(h.Contents) != 6 || h.Contents[4].Parts[0].Text != "and then?" {
		t.Fatalf("%v: %d contents", err, len(h.Contents))
	}
	if e.saves.Load() != 1 {
		t.Fatalf("%d saves, want 1", e.saves.Load())
	}
}
