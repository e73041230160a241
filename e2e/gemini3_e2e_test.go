package e2e_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/httprr"
)

// newGemini3CLI is a CLI as a fresh install runs it (no --model: the default model) against
// the fake in Gemini 3 mode (retired models answer 404, thinking counts against the output cap,
// calls come with ids and signatures that must come back).
func newGemini3CLI(t *testing.T, opts ...geminitest.Option) *cli {
	t.Helper()
	c := newCLI(t, append([]geminitest.Option{geminitest.WithGemini3()}, opts...)...)
	env := c.env[:0]
	for _, kv := range c.env {
		if !strings.HasPrefix(kv, "ALERTCHAT_MODEL=") {
			env = append(env, kv)
		}
	}
	c.env = env
	return c
}

// askG3 runs chat -o json and decodes its object, whatever the exit status.
func (c *cli) askG3(args ...string) (chatOut, result) {
	c.t.Helper()
	r := c.run("", append([]string{"chat", "-o", "json"}, args...)...)
	var got chatOut
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		c.t.Fatalf("chat -o json printed %q (exit %d, stderr %s): %v", r.stdout, r.code, r.stderr, err)
	}
	return got, r
}

// auxLevel checks that every auxiliary request (title, judge, summary) since request from asked
// at the lowest level of the default model, with no thinking budget and no temperature.
func auxLevel(t *testing.T, c *cli, from int, which func(*geminitest.Request) bool) int {
	t.Helper()
	n := 0
	for _, r := range c.srv.Requests()[from:] {
		if r.Kind != geminitest.KindGenerateContent || !which(r) {
			continue
		}
		n++
		g := r.GenerationConfig
		if r.Model != "gemini-3.8-flash" || g == nil || g.ThinkingConfig == nil || g.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow ||
			g.ThinkingConfig.ThinkingBudget != nil || g.Temperature != nil || g.MaxOutputTokens <= 1024 {
			t.Fatalf("auxiliary request %d: model %s, config %+v", r.Seq, r.Model, g)
		}
	}
	return n
}

// Every flow of a chat on today's Gemini, through the binary, on the default model: a new
// conversation and its title, the judge and --continue=auto, parallel tool calls and a resume,
// a long conversation that is summarised, a local batch with failed questions, --thinking from
// the environment.
func TestGemini3Flows(t *testing.T) {
	t.Parallel()
	c := newGemini3CLI(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		q := r.LastUserText()
		switch {
		case isJudgeRequest(r):
			return geminitest.Reply{Text: verdicts(q, "exfiltration")}
		case isSummaryRequest(r):
			return geminitest.Reply{Text: "IOCs: 198.51.100.7. Findings: DNS exfiltration."}
		case r.Kind == geminitest.KindGenerateContent || strings.HasPrefix(q, "Generate a chat session title"):
			// A title, asked directly or as a request of a batch job.
			return geminitest.Reply{Text: "Generated Title"}
		}
		last := r.Contents[len(r.Contents)-1]
		switch {
		case len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil:
			return geminitest.Reply{Text: "looked it up"}
		case strings.Contains(q, "look up"):
			return geminitest.Reply{Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{Name: "search_alerts", Args: map[string]any{"query": "3322.org"}}},
				{FunctionCall: &genai.FunctionCall{Name: "search_histories", Args: map[string]any{"query": "exfiltration"}}},
			}}
		case strings.Contains(q, "(thought)"):
			return geminitest.Reply{ThoughtTokens: 900} // all thought, no text
		case strings.Contains(q, "(refused)"):
			return geminitest.Reply{Status: 400, ErrorMessage: "Request contains an invalid argument."}
		}
		return geminitest.Reply{Text: "answer to: " + q + " " + strings.Repeat("detail ", 40)}
	}))
	alertID := c.addAlert("guardduty.json")

	// A new conversation and its title, on the default model; thinking reported apart.
	first, r := c.askG3("-a", alertID, "-q", "Is there data exfiltration over DNS?")
	if r.code != 0 || first.Title != "Generated Title" || first.Usage.ThoughtTokens == 0 || first.Usage.OutputTokens == 0 {
		t.Fatalf("exit %d: %+v %s", r.code, first, r.stderr)
	}
	if auxLevel(t, c, 0, func(r *geminitest.Request) bool { return !isJudgeRequest(r) && !isSummaryRequest(r) }) != 1 {
		t.Fatal("no title request")
	}
	other, _ := c.askG3("-a", alertID, "-q", "Who owns the instance?")

	// The judge and --continue=auto.
	before := len(c.srv.Requests())
	cont, r := c.askG3("-a", alertID, "--continue=auto", "-q", "What volume of exfiltration happened?")
	if r.code != 0 || cont.HistoryID != first.HistoryID || auxLevel(t, c, before, isJudgeRequest) != 1 {
		t.Fatalf("continued %s (want %s): %s", cont.HistoryID, first.HistoryID, r.stderr)
	}

	// Parallel tool calls (ids, the first signed, the signed trailing part), then a resume.
	tools, r := c.askG3("-a", alertID, "-q", "look up 3322.org in the alerts and histories")
	if r.code != 0 || tools.Answer != "looked it up" || len(tools.ToolCalls) != 2 || tools.ToolCalls[0].Error != "" || tools.ToolCalls[1].Error != "" {
		t.Fatalf("exit %d: %+v %s", r.code, tools, r.stderr)
	}
	h := c.history(tools.HistoryID)
	calls := h.Contents[1].Parts
	if len(calls) != 3 || len(calls[0].FunctionCall.ID) != 8 || len(calls[0].ThoughtSignature) == 0 || calls[2].Text != "" || len(calls[2].ThoughtSignature) == 0 ||
		h.Contents[2].Parts[1].FunctionResponse.ID != calls[1].FunctionCall.ID {
		t.Fatalf("calls and responses: %+v", h.Contents[1:3])
	}
	if _, r = c.askG3("--history", tools.HistoryID, "-q", "and on the other alerts?"); r.code != 0 {
		t.Fatalf("resume with calls: exit %d: %s", r.code, r.stderr)
	}

	// A long conversation is summarised (at the lowest level, with room).
	before = len(c.srv.Requests())
	for i := range 6 {
		if _, r := c.askG3("--history", other.HistoryID, "--max-context-tokens", "1000", "-q", "follow-up number "+strings.Repeat("x", i+1)); r.code != 0 {
			t.Fatalf("turn %d: %s", i, r.stderr)
		}
	}
	if auxLevel(t, c, before, isSummaryRequest) == 0 {
		t.Fatal("the long conversation was not summarised")
	}
	if h := c.history(other.HistoryID); h.Summary == nil || !strings.Contains(h.Summary.Text, "exfiltration") {
		t.Fatalf("summary %+v", h.Summary)
	}

	// A local batch with failed questions: an answer that was all thought (asked twice, the
	// question saved) and a refused one; the others answered.
	in := jsonl(
		map[string]any{"alert_id": alertID, "query": "first batch question"},
		map[string]any{"alert_id": alertID, "query": "a question (thought)"},
		map[string]any{"alert_id": alertID, "query": "a question (refused)"},
	)
	r = c.run(in, "batch", "-f", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "2 of 3 questions failed") {
		t.Fatalf("batch: exit %d, stderr %s", r.code, r.stderr)
	}
	lines := parseBatch(t, r.stdout)
	if lines[0].Error != nil || lines[0].Title != "Generated Title" || lines[0].Usage.ThoughtTokens == 0 {
		t.Fatalf("line 1: %+v", lines[0])
	}
	if lines[1].Error == nil || !strings.Contains(*lines[1].Error, "gave no answer") || lines[1].HistoryID == "" {
		t.Fatalf("line 2: %+v", lines[1])
	}
	if saved := c.history(lines[1].HistoryID); saved.Contents[0].Parts[0].Text != "a question (thought)" || saved.Usage.ThoughtTokens != 1800 {
		t.Fatalf("the all-thought question is not saved: %+v", saved.Meta())
	}
	if lines[2].Error == nil || lines[2].HistoryID != "" {
		t.Fatalf("line 3: %+v", lines[2])
	}

	// The same input as a remote batch (the fake's Batch API in Gemini 3 mode): the requests
	// built for the model, the same lines, the all-thought question saved (asked once: a job
	// cannot ask again).
	if r = c.run(in, "batch", "-f", "-", "--remote", "--no-wait"); r.code != 0 {
		t.Fatalf("submit: exit %d: %s", r.code, r.stderr)
	}
	job := c.srv.Batches()[len(c.srv.Batches())-1]
	if job.Model != "gemini-3.8-flash" || len(job.Requests) != 6 {
		t.Fatalf("job %s with %d requests", job.Model, len(job.Requests))
	}
	for _, req := range job.Requests {
		g := req.GenerationConfig
		title := strings.HasPrefix(req.Key, "t")
		if title && (g == nil || g.ThinkingConfig == nil || g.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow || g.MaxOutputTokens <= 1024) ||
			g != nil && (g.Temperature != nil || g.ThinkingConfig != nil && g.ThinkingConfig.ThinkingBudget != nil) ||
			!title && g != nil && g.ThinkingConfig != nil {
			t.Fatalf("request %s: %+v", req.Key, g)
		}
	}
	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()
	r = c.run(in, "batch", "-f", "-", "--remote")
	if r.code != 1 || !strings.Contains(r.stderr, "2 of 3 questions failed") {
		t.Fatalf("remote batch: exit %d, stderr %s", r.code, r.stderr)
	}
	remote := parseBatch(t, r.stdout)
	for i, l := range remote {
		// A local turn that fails takes the generated title only if it came before the error
		// (the error is not held back for it), else its question: either is right there.
		sameTitle := l.Title == lines[i].Title ||
			lines[i].Error != nil && l.Title == "Generated Title" && lines[i].Title == "a question (thought)"
		if !sameTitle || l.Answer != lines[i].Answer || (l.Error == nil) != (lines[i].Error == nil) ||
			(l.HistoryID == "") != (lines[i].HistoryID == "") || l.Error != nil && describe(*l.Error) != describe(*lines[i].Error) {
			t.Errorf("remote line %d: %+v, local %+v", i+1, l, lines[i])
		}
	}
	if saved := c.history(remote[1].HistoryID); saved.Contents[0].Parts[0].Text != "a question (thought)" || saved.Usage.ThoughtTokens != 900 {
		t.Fatalf("the remote all-thought question is not saved: %+v", saved.Meta())
	}

	// --thinking from the environment: checked against the default model's levels, and sent.
	c.env = append(c.env, "ALERTCHAT_THINKING=minimal")
	r = c.run("", "chat", "-a", alertID, "-q", "q")
	if r.code != 2 || !strings.Contains(r.stderr, "it offers low, medium, high") {
		t.Fatalf("ALERTCHAT_THINKING=minimal: exit %d: %s", r.code, r.stderr)
	}
	c.env[len(c.env)-1] = "ALERTCHAT_THINKING=high"
	if r = c.run("", "chat", "-a", alertID, "-q", "think hard", "--no-title-generation"); r.code != 0 {
		t.Fatalf("ALERTCHAT_THINKING=high: exit %d: %s", r.code, r.stderr)
	}
	reqs := c.answerRequests()
	if tc := reqs[len(reqs)-1].GenerationConfig.ThinkingConfig; tc == nil || tc.ThinkingLevel != genai.ThinkingLevelHigh {
		t.Fatalf("main request thinking %+v", tc)
	}
}

// A retired model through the binary: one error line naming it and the models to use, exit 1,
// the 404 not retried, the question kept in a history.
func TestGemini3RetiredModel(t *testing.T) {
	t.Parallel()
	c := newGemini3CLI(t)
	alertID := c.addAlert("guardduty.json")
	c.env = append(c.env, "ALERTCHAT_MODEL=gemini-2.5-flash")
	r := c.run("", "chat", "-a", alertID, "-q", "Is it bad?")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], `Gemini model "gemini-2.5-flash" is not available`) ||
		!strings.Contains(lines[0], "use one of: gemini-3.8-flash, ") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(c.answerRequests()); n != 1 {
		t.Fatalf("%d answer requests: the 404 was retried", n)
	}
	out := c.mustRun("", "history", "list", "-o", "json")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || c.history(list[0].ID).Contents[0].Parts[0].Text != "Is it bad?" {
		t.Fatalf("the question is not kept: %v %s", err, out)
	}
	// -o json: the object holds the error, stderr the one line.
	got, r := c.askG3("-a", alertID, "-q", "Is it bad, in JSON?")
	if r.code != 1 || got.Error == nil || !strings.Contains(*got.Error, "use one of: gemini-3.8-flash, ") || got.HistoryID == "" || oneLine(r.stderr) != *got.Error {
		t.Fatalf("-o json: exit %d, %+v, stderr:\n%s", r.code, got, r.stderr)
	}
	// A local batch: each line has the error, and so has the one line on stderr; each question
	// asked once.
	before := len(c.answerRequests())
	in := jsonl(map[string]any{"alert_id": alertID, "query": "one"}, map[string]any{"alert_id": alertID, "query": "two"})
	r = c.run(in, "batch", "-f", "-")
	if r.code != 1 || !strings.HasPrefix(oneLine(r.stderr), `2 of 2 questions failed: Gemini model "gemini-2.5-flash" is not available`) ||
		!strings.Contains(r.stderr, "use one of: gemini-3.8-flash, ") || len(c.answerRequests())-before != 2 {
		t.Fatalf("batch: exit %d, %d requests, stderr:\n%s", r.code, len(c.answerRequests())-before, r.stderr)
	}
	for _, l := range parseBatch(t, r.stdout) {
		if l.Error == nil || !strings.Contains(*l.Error, "use one of: gemini-3.8-flash, ") {
			t.Fatalf("batch line %+v", l)
		}
	}
	// A remote batch: the service refuses the job's model; the same line, and no job.
	r = c.run(in, "batch", "-f", "-", "--remote")
	if r.code != 1 || !strings.HasPrefix(oneLine(r.stderr), `Gemini model "gemini-2.5-flash" is not available`) || !strings.Contains(r.stderr, "use one of: gemini-3.8-flash, ") ||
		len(c.srv.Batches()) != 0 || strings.TrimSpace(c.mustRun("", "batch", "jobs", "-o", "json")) != "[]" {
		t.Fatalf("batch --remote: exit %d, %d jobs, stderr:\n%s", r.code, len(c.srv.Batches()), r.stderr)
	}
	// An interactive chat ends at the question, exit 1: the line, the question saved.
	p := c.startScreen(t, 200, "chat", "-a", alertID)
	waitPrompt(t, p)
	p.Type(t, "Is it bad, interactively?\r")
	if code := p.Wait(t, 30*time.Second); code != 1 || p.Count(`Gemini model "gemini-2.5-flash" is not available`) != 1 || p.Count("Resume with: alertchat chat -a "+alertID) != 1 {
		t.Fatalf("interactive: exit %d; the screen:\n%s", code, p.Dump())
	}

	// With --continue=auto the judge meets the 404 first: still one line, the answer's.
	r = c.run("", "chat", "-a", alertID, "--continue=auto", "-q", "And the other instance?")
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], "is not available") {
		t.Fatalf("--continue=auto: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// oneLine is stderr's only line without its "Error: " (the whole text when it has several).
func oneLine(stderr string) string {
	if strings.Count(stderr, "\n") != 1 {
		return stderr
	}
	return strings.TrimPrefix(strings.TrimSuffix(stderr, "\n"), "Error: ")
}

// The binary against recorded traffic (google/adk-go's gemini-3.1-pro-preview recording of
// parallel function calls, Apache-2.0, obtained from the module proxy at test time): the
// recorded calls ("sum", a tool alertchat does not have) are each answered with their id, the
// model's content goes back exactly as the API sent it, the recorded answer is printed, and a
// resumed conversation sends the stored contents as received.
func TestReplayThroughBinary(t *testing.T) {
	t.Parallel()
	dir := httprr.Module(t, "google.golang.org/adk", "v1.7.0")
	ex := httprr.Load(t, dir, "internal/llminternal/testdata/TestParallelFunctionCalls_test_parallel_function_calls_gemini-3.1-pro-preview.httprr")
	replay := httprr.NewReplay(t, ex)
	c := newCLI(t)
	alertID := c.addAlert("guardduty.json")
	for i, kv := range c.env {
		switch {
		case strings.HasPrefix(kv, "GOOGLE_GEMINI_BASE_URL="):
			c.env[i] = "GOOGLE_GEMINI_BASE_URL=" + replay.URL()
		case strings.HasPrefix(kv, "ALERTCHAT_MODEL="):
			c.env[i] = "ALERTCHAT_MODEL=gemini-3.1-pro-preview"
		}
	}
	recorded := func(k int) []any {
		v, err := ex[k].Contents()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	q1 := recorded(0)[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
	got, r := c.askG3("-a", alertID, "--no-title-generation", "-q", q1)
	if r.code != 0 || !strings.Contains(got.Answer, "6 + 7 = 13") || len(got.ToolCalls) != 3 || !strings.Contains(got.ToolCalls[0].Error, "unknown tool") {
		t.Fatalf("exit %d: %+v %s %v", r.code, got, r.stderr, replay.Mismatches())
	}
	sent := func(k int) []any {
		v, err := replay.Requests()[k].Contents()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if !reflect.DeepEqual(sent(1)[1], recorded(1)[1]) {
		t.Fatalf("the calls content was not sent back as received:\n%v\n%v", sent(1)[1], recorded(1)[1])
	}
	for k, p := range sent(1)[2].(map[string]any)["parts"].([]any) {
		fr := p.(map[string]any)["functionResponse"].(map[string]any)
		want := recorded(1)[2].(map[string]any)["parts"].([]any)[k].(map[string]any)["functionResponse"].(map[string]any)
		if fr["id"] != want["id"] || fr["name"] != want["name"] {
			t.Fatalf("response %d: %v, recorded %v", k, fr, want)
		}
	}
	q2 := recorded(2)[4].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
	again, r := c.askG3("--history", got.HistoryID, "--no-title-generation", "-q", q2)
	if r.code != 0 || !strings.Contains(again.Answer, "60 + 70 = 130") {
		t.Fatalf("resume: exit %d: %+v %s %v", r.code, again, r.stderr, replay.Mismatches())
	}
	// The resumed requests carry the stored model contents as the API sent them.
	for _, k := range []int{2, 3} {
		for _, i := range []int{1, 3} {
			if !reflect.DeepEqual(sent(k)[i], recorded(k)[i]) {
				t.Fatalf("request %d content %d:\n%v\nrecorded\n%v", k+1, i, sent(k)[i], recorded(k)[i])
			}
		}
	}
	if !reflect.DeepEqual(sent(3)[5], recorded(3)[5]) {
		t.Fatalf("request 4's calls content:\n%v\nrecorded\n%v", sent(3)[5], recorded(3)[5])
	}
}
