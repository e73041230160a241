package batch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/batch"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/modelcfg"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func TestMain(m *testing.M) {
	// The SDK logs cancelled streams with the standard logger.
	log.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// secretRedactor replaces the word "secret", enough to see that saves are redacted.
type secretRedactor struct{}

func (secretRedactor) RedactContents(cs []*genai.Content) map[string]int {
	n := 0
	for _, c := range cs {
		for _, p := range c.Parts {
			n += strings.Count(p.Text, "secret")
			p.Text = strings.ReplaceAll(p.Text, "secret", "[REDACTED_SECRET]")
		}
	}
	return map[string]int{"secret": n}
}

func (secretRedactor) RedactString(s string) (string, map[string]int) {
	return strings.ReplaceAll(s, "secret", "[REDACTED_SECRET]"), map[string]int{"secret": strings.Count(s, "secret")}
}

type env struct {
	srv    *geminitest.Server
	store  *local.Store
	alert  record.AlertID // about "Drop point DNS"
	other  record.AlertID // about "Port scan"
	models *genai.Models
}

func newEnv(t testing.TB, opts ...geminitest.Option) *env {
	t.Helper()
	srv := geminitest.NewServer(t, opts...)
	st, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e := &env{srv: srv, store: st, alert: "alert-dns", other: "alert-scan"}
	for id, data := range map[record.AlertID]string{e.alert: `{"Title":"Drop point DNS"}`, e.other: `{"Title":"Port scan"}`} {
		if _, err := st.PutAlert(context.Background(), &record.Alert{ID: id, Data: json.RawMessage(data), CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.models = c.Models
	return e
}

// options are the batch options of a test: fast retries, titles on, concurrency 4.
func (e *env) options() batch.Options {
	return e.optionsWith(true)
}

func (e *env) optionsWith(titles bool) batch.Options {
	client := llm.New(e.models, llm.Options{BaseDelay: 5 * time.Millisecond, MaxWait: 50 * time.Millisecond})
	return batch.Options{
		Store: e.store,
		NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
			return session.New(session.Options{LLM: client, Store: e.store, Redactor: secretRedactor{}, Model: "gemini-test", Titles: titles}, a, h)
		},
		Concurrency: 4,
	}
}

type output struct {
	raw     string
	results []batch.Result
	sum     *batch.Summary
	err     error
}

func (e *env) run(t testing.TB, ctx context.Context, input string, o batch.Options) output {
	t.Helper()
	qs, err := batch.Parse([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sum, err := batch.Run(ctx, qs, &out, o)
	res := output{raw: out.String(), sum: sum, err: err}
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if line == "" {
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			t.Fatalf("output line not terminated: %q", line)
		}
		var r batch.Result
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		res.results = append(res.results, r)
	}
	return res
}

// answers routes title requests (unary) to "Title: <question>" and answers (streams) to
// "answer to: <question>", after the latency the question asks for ("... sleep=150ms").
func answers() geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		q := r.LastUserText()
		if r.Kind == geminitest.KindGenerateContent {
			_, q, _ = strings.Cut(q, "Query:\n")
			return geminitest.Reply{Text: "Title " + strings.Fields(q)[0]}
		}
		var latency time.Duration
		if _, after, ok := strings.Cut(q, "sleep="); ok {
			latency, _ = time.ParseDuration(strings.Fields(after)[0])
		}
		return geminitest.Reply{Text: "answer to: " + q, Latency: latency}
	})
}

func line(v map[string]any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func errText(r batch.Result) string {
	if r.Error == nil {
		return ""
	}
	return *r.Error
}

func TestOutputInInputOrderWithTags(t *testing.T) {
	t.Parallel()
	e := newEnv(t, answers())
	// Later questions answer sooner, so they finish out of order.
	var in strings.Builder
	const n = 12
	for i := range n {
		id := any(fmt.Sprintf("tag-%d", i))
		switch i {
		case 3:
			id = 7 // a number is echoed as a number
		case 4:
			id = nil // no id: null
		}
		m := map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("q%d sleep=%dms", i, (n-i)*25)}
		if id != nil {
			m["id"] = id
		}
		in.WriteString(line(m) + "\n")
		if i == 5 {
			in.WriteString("\n   \n") // blank lines: skipped, but counted in line numbers
		}
	}
	got := e.run(t, context.Background(), in.String(), e.options())
	if got.err != nil || got.sum.Succeeded != n || got.sum.Failed != 0 {
		t.Fatalf("err %v, summary %+v", got.err, got.sum)
	}
	if len(got.results) != n {
		t.Fatalf("%d lines, want %d:\n%s", len(got.results), n, got.raw)
	}
	for i, r := range got.results {
		wantLine := i + 1
		if i > 5 {
			wantLine += 2
		}
		wantID := fmt.Sprintf("%q", fmt.Sprintf("tag-%d", i))
		switch i {
		case 3:
			wantID = "7"
		case 4:
			wantID = "null"
		}
		q := fmt.Sprintf("q%d sleep=%dms", i, (n-i)*25)
		if r.Line != wantLine || string(r.ID) != wantID || r.Answer != "answer to: "+q || r.Error != nil {
			t.Fatalf("line %d: %+v (id %s)", i, r, r.ID)
		}
		if r.AlertID != e.alert || r.Title != fmt.Sprintf("Title q%d", i) || r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
			t.Fatalf("line %d: %+v", i, r)
		}
		h, err := e.store.GetHistory(context.Background(), r.HistoryID)
		if err != nil || h.MessageCount != 2 || h.Title != r.Title || h.Contents[0].Parts[0].Text != q {
			t.Fatalf("line %d: stored %v, %v", i, h, err)
		}
	}
	if !strings.Contains(got.raw, `"error":null`) {
		t.Fatalf("a success must carry \"error\": null: %s", got.raw)
	}
}

func TestContinuedHistoriesKeepEveryTurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, answers())
	first := e.run(t, context.Background(), line(map[string]any{"alert_id": string(e.alert), "query": "first question"}), e.options())
	if first.err != nil || len(first.results) != 1 || first.results[0].Error != nil {
		t.Fatalf("first run: %+v", first)
	}
	hid := string(first.results[0].HistoryID)

	// Five questions continue the history at concurrency 5, a new one runs beside them, one
	// names the wrong alert. The five must run one after the other, in input order.
	var in strings.Builder
	for i := range 5 {
		in.WriteString(line(map[string]any{"history_id": hid, "query": fmt.Sprintf("follow-up %d sleep=%dms", i, 100-20*i), "id": i}) + "\n")
		if i == 1 {
			in.WriteString(line(map[string]any{"alert_id": string(e.other), "query": "unrelated"}) + "\n")
			in.WriteString(line(map[string]any{"alert_id": string(e.other), "history_id": hid, "query": "wrong alert"}) + "\n")
		}
	}
	o := e.options()
	o.Concurrency = 5
	got := e.run(t, context.Background(), in.String(), o)
	if got.err == nil && got.sum.Failed != 1 {
		t.Fatalf("summary %+v", got.sum)
	}
	for _, r := range got.results {
		switch {
		case r.Line == 4:
			if !strings.Contains(errText(r), "is about alert "+string(e.alert)) {
				t.Fatalf("wrong alert: %+v", r)
			}
		case r.Line == 3:
			if r.Error != nil || r.HistoryID == first.results[0].HistoryID {
				t.Fatalf("new question: %+v", r)
			}
		default:
			if r.Error != nil || string(r.HistoryID) != hid || r.Title != "Title first" || r.AlertID != e.alert {
				t.Fatalf("continued: %+v", r)
			}
		}
	}
	h, err := e.store.GetHistory(context.Background(), record.HistoryID(hid))
	if err != nil || h.MessageCount != 12 {
		t.Fatalf("stored %d messages, %v", h.MessageCount, err)
	}
	for i := range 5 {
		if q := h.Contents[2+2*i].Parts[0].Text; !strings.HasPrefix(q, fmt.Sprintf("follow-up %d ", i)) {
			t.Fatalf("turn %d is %q: turns out of order", i, q)
		}
	}
	// Each continued request carried every earlier turn of the history.
	var cont []*geminitest.Request
	for _, r := range e.srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent && strings.HasPrefix(r.LastUserText(), "follow-up") {
			cont = append(cont, r)
		}
	}
	if len(cont) != 5 {
		t.Fatalf("%d continued requests", len(cont))
	}
	for i, r := range cont {
		if len(r.Contents) != 3+2*i || r.Contents[0].Parts[0].Text != "first question" || !strings.Contains(r.SystemText(), "Drop point DNS") {
			t.Fatalf("request %d holds %d contents", i, len(r.Contents))
		}
	}
}

func TestMalformedLinesAreReportedInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t, answers())
	ok := func(q string) string { return line(map[string]any{"alert_id": string(e.alert), "query": q}) }
	lines := []struct {
		text string
		err  string // "" for success
	}{
		{ok("good one"), ""},
		{`{"alert_id": "x", "query": `, "not valid JSON"},
		{`["an", "array"]`, "not a JSON object"},
		{line(map[string]any{"alert_id": string(e.alert)}), `missing "query"`},
		{line(map[string]any{"alert_id": string(e.alert), "query": "  "}), `"query" is empty`},
		{line(map[string]any{"query": "which alert?"}), `missing "alert_id"`},
		{line(map[string]any{"alert_id": string(e.alert), "query": "q", "histroy_id": "x"}), `unknown field "histroy_id"`},
		{line(map[string]any{"alert_id": 42, "query": "q"}), `"alert_id" must be a string`},
		{line(map[string]any{"alert_id": string(e.alert), "query": "q", "history_id": "6e6f461a"}), `give the full history ID`},
		{line(map[string]any{"alert_id": "no-such-alert", "query": "q", "id": "u"}), "no alert no-such-alert"},
		{line(map[string]any{"history_id": "00000000-0000-4000-8000-000000000000", "query": "q"}), "no history 00000000-0000-4000-8000-000000000000"},
		{ok("good two"), ""},
	}
	var in strings.Builder
	failures := 0
	for _, l := range lines {
		in.WriteString(l.text + "\n")
		if l.err != "" {
			failures++
		}
	}
	got := e.run(t, context.Background(), in.String(), e.options())
	if got.err != nil || got.sum.Failed != failures || got.sum.Succeeded != 2 {
		t.Fatalf("err %v, summary %+v", got.err, got.sum)
	}
	if len(got.results) != len(lines) {
		t.Fatalf("%d output lines for %d input lines", len(got.results), len(lines))
	}
	for i, r := range got.results {
		if r.Line != i+1 {
			t.Fatalf("output %d is line %d", i, r.Line)
		}
		want := lines[i].err
		if want == "" {
			if r.Error != nil || r.Answer == "" {
				t.Fatalf("line %d: %+v", r.Line, r)
			}
			continue
		}
		if !strings.Contains(errText(r), want) || r.Answer != "" || r.Title != "" {
			t.Fatalf("line %d: error %q, want %q (%+v)", r.Line, errText(r), want, r)
		}
	}
	if string(got.results[9].ID) != `"u"` {
		t.Fatalf("the id of a failed line is echoed: %s", got.results[9].ID)
	}
}

func TestTransientFaultsAreRetried(t *testing.T) {
	t.Parallel()
	// 30% of requests get a 429 (with a short retry delay), 15% a 503, never twice in a row
	// for the same call: with retries every question succeeds.
	f429 := geminitest.RandomFaults(0.3, 7, geminitest.Reply{Status: 429, RetryDelay: 10 * time.Millisecond})
	f503 := geminitest.RandomFaults(0.15, 8, geminitest.Reply{Status: 503})
	e := newEnv(t, answers(), geminitest.WithFaults(geminitest.OncePerCall(func(r *geminitest.Request) *geminitest.Reply {
		if f := f429(r); f != nil {
			return f
		}
		return f503(r)
	})))
	var in strings.Builder
	const n = 40
	for i := range n {
		in.WriteString(line(map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("question %d", i), "id": i}) + "\n")
	}
	o := e.options()
	o.Concurrency = 8
	got := e.run(t, context.Background(), in.String(), o)
	if got.err != nil || got.sum.Succeeded != n {
		t.Fatalf("err %v, summary %+v\n%s", got.err, got.sum, got.raw)
	}
	for i, r := range got.results {
		if r.Error != nil || r.Answer != fmt.Sprintf("answer to: question %d", i) || r.Title != "Title question" {
			t.Fatalf("line %d: %+v", r.Line, r)
		}
	}
	st := e.srv.Stats()
	if st.Errors < 10 || st.Requests != 2*n+st.Errors {
		t.Fatalf("stats %+v: expected faults, each retried once", st)
	}
}

func TestPermanentFailureIsReportedPerLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if strings.Contains(r.LastUserText(), "forbidden") {
			return geminitest.Reply{Status: 403, ErrorMessage: "Permission denied on resource project."}
		}
		return geminitest.Reply{Text: "fine"}
	}))
	in := line(map[string]any{"alert_id": string(e.alert), "query": "allowed 1"}) + "\n" +
		line(map[string]any{"alert_id": string(e.alert), "query": "forbidden topic", "id": "bad"}) + "\n" +
		line(map[string]any{"alert_id": string(e.alert), "query": "allowed 2"}) + "\n"
	o := e.optionsWith(false)
	o.DescribeError = func(err error) string { return "described: " + err.Error() }
	got := e.run(t, context.Background(), in, o)
	if got.err != nil || got.sum.Failed != 1 || got.sum.Succeeded != 2 || len(got.results) != 3 {
		t.Fatalf("err %v, summary %+v", got.err, got.sum)
	}
	bad := got.results[1]
	if !strings.HasPrefix(errText(bad), "described: ") || !strings.Contains(errText(bad), "Permission denied") ||
		string(bad.ID) != `"bad"` || bad.HistoryID != "" || bad.Answer != "" {
		t.Fatalf("failed line: %+v", bad)
	}
	n := 0
	for _, r := range e.srv.Requests() {
		if strings.Contains(r.LastUserText(), "forbidden") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("a 403 was sent %d times", n)
	}
}

func TestConcurrencyIsRespected(t *testing.T) {
	t.Parallel()
	for _, titles := range []bool{false, true} {
		t.Run(fmt.Sprint("titles=", titles), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, answers(), geminitest.WithLatency(60*time.Millisecond))
			var in strings.Builder
			for i := range 18 {
				in.WriteString(line(map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("q%d", i)}) + "\n")
			}
			o := e.optionsWith(titles)
			o.Concurrency = 3
			got := e.run(t, context.Background(), in.String(), o)
			if got.err != nil || got.sum.Succeeded != 18 {
				t.Fatalf("err %v, summary %+v", got.err, got.sum)
			}
			limit := int64(3)
			if titles {
				limit = 6 // a question's title is asked alongside its answer
			}
			if m := e.srv.Stats().MaxInFlight; m > limit || m < 2 {
				t.Fatalf("at most %d requests in flight, want 2..%d", m, limit)
			}
		})
	}
}

func TestInterruptedRunWritesFinishedLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t, answers())
	var in strings.Builder
	for i := range 12 {
		latency := "10ms"
		if i == 2 || i >= 6 {
			latency = "30s" // still running when the run is interrupted
		}
		in.WriteString(line(map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("q%d sleep=%s", i, latency)}) + "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	o := e.options()
	o.Concurrency = 4
	o.Progress = func(p batch.Progress) {
		if p.Done >= 5 {
			once.Do(func() { time.AfterFunc(200*time.Millisecond, cancel) })
		}
	}
	start := time.Now()
	got := e.run(t, ctx, in.String(), o)
	if !errors.Is(got.err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", got.err, time.Since(start))
	}
	// Lines 1, 2, 4, 5, 6 finished: written in order, line 3 skipped.
	var written []int
	for _, r := range got.results {
		written = append(written, r.Line)
		if r.Error != nil || !strings.HasPrefix(r.Answer, "answer to: ") {
			t.Fatalf("written line %+v", r)
		}
		if h, err := e.store.GetHistory(context.Background(), r.HistoryID); err != nil || h.MessageCount != 2 {
			t.Fatalf("line %d: history not saved: %v", r.Line, err)
		}
	}
	if fmt.Sprint(written) != "[1 2 4 5 6]" {
		t.Fatalf("written lines %v", written)
	}
	if fmt.Sprint(got.sum.Unfinished) != "[3 7 8 9 10 11 12]" {
		t.Fatalf("unfinished %v", got.sum.Unfinished)
	}
}

func TestEmptyInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	got := e.run(t, context.Background(), "\n\n", e.options())
	if got.err != nil || got.raw != "" || got.sum.Total != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	in := "\xef\xbb\xbf" + `{"alert_id":"a","query":"q1","id":{"k": [1, 2]}}` + "\r\n\r\n" +
		`{"history_id":"6e6f461a-4630-4458-a943-8e1be9bbf60e","query":" q2 ","alert_id":null}` + "\n" +
		`{"alert_id":"a","query":"q3"}`
	qs, err := batch.Parse([]byte(in))
	if err != nil || len(qs) != 3 {
		t.Fatalf("%v, %d questions", err, len(qs))
	}
	if qs[0].Line != 1 || string(qs[0].ID) != `{"k":[1,2]}` || qs[0].Err != nil {
		t.Fatalf("first: %+v", qs[0])
	}
	if qs[1].Line != 3 || qs[1].Query != "q2" || qs[1].AlertID != "" || qs[1].HistoryID == "" || qs[1].Err != nil || qs[1].ID != nil {
		t.Fatalf("second: %+v", qs[1])
	}
	if qs[2].Line != 4 || qs[2].Query != "q3" || qs[2].Err != nil {
		t.Fatalf("third: %+v", qs[2])
	}

	big := strings.Repeat("{}\n\n", batch.MaxQuestions)
	if _, err := batch.Parse([]byte(big + "{}")); !errors.Is(err, batch.ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := batch.Parse(make([]byte, batch.MaxInputBytes+1)); !errors.Is(err, batch.ErrTooLarge) {
		t.Fatalf("over the size limit: %v", err)
	}
}

// A model that cannot be used (retired): the first question meets the 404, the questions not
// yet asked get the same error without a request each, and no history is saved for any of
// them (the input holds every question).
func TestUnavailableModelStopsAsking(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithGemini3())
	client := llm.New(modelcfg.NewExplainer(e.models, e.models), llm.Options{BaseDelay: 5 * time.Millisecond, MaxWait: 50 * time.Millisecond})
	o := batch.Options{
		Store: e.store,
		NewSession: func(a *record.Alert, h *record.History) (*session.Session, error) {
			return session.New(session.Options{LLM: client, Store: e.store, Redactor: secretRedactor{}, Model: "gemini-2.5-flash"}, a, h)
		},
		Concurrency: 1,
	}
	var in strings.Builder
	for i := range 10 {
		in.WriteString(line(map[string]any{"alert_id": string(e.alert), "query": fmt.Sprintf("question %d", i)}) + "\n")
	}
	got := e.run(t, context.Background(), in.String(), o)
	if got.err != nil || got.sum.Failed != 10 || len(got.results) != 10 {
		t.Fatalf("err %v, summary %+v", got.err, got.sum)
	}
	for _, r := range got.results {
		if !strings.Contains(errText(r), "gemini-2.5-flash") || r.HistoryID != "" {
			t.Fatalf("line %d: %+v", r.Line, r)
		}
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("%d requests to a model that is not served, want 1", n)
	}
	hs, err := e.store.ListHistories(context.Background(), store.HistoryQuery{})
	if err != nil || len(hs.Histories) != 0 {
		t.Fatalf("histories saved: %v %+v", err, hs)
	}
}
