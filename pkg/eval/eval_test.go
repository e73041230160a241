package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/conclude"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/record"
)

func TestParseCases(t *testing.T) {
	t.Parallel()
	good := `{"id":"c1","alert":{"Type":"Recon"},"verdict":"false_positive","must_mention":["203.0.113.7"," "]}

{"alert_id":"alert-abc12345","verdict":"benign","question":"who ran it?"}
`
	cs, err := eval.ParseCases([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].ID != "c1" || cs[0].Line != 1 || string(cs[0].Alert) != `{"Type":"Recon"}` ||
		len(cs[0].MustMention) != 1 || cs[1].ID != "line-3" || cs[1].AlertID != "alert-abc12345" || cs[1].Question != "who ran it?" {
		t.Fatalf("cases %+v", cs)
	}
	bad := []struct{ name, in, want string }{
		{"not json", "{\"verdict\":\"benign\",\"alert_id\":\"a\"}\nnope\n", "line 2: not a case"},
		{"unknown field", `{"verdict":"benign","alert_id":"a","label":"x"}`, `line 1: not a case: json: unknown field "label"`},
		{"unknown verdict", `{"verdict":"maybe","alert_id":"a"}`, `line 1: unknown verdict "maybe"`},
		{"no verdict", `{"alert_id":"a"}`, "line 1: a case needs the expected verdict"},
		{"no alert", `{"verdict":"benign"}`, "line 1: a case needs an alert"},
		{"both", `{"verdict":"benign","alert_id":"a","alert":{}}`, "not both"},
		{"alert not an object", `{"verdict":"benign","alert":[1]}`, "alert must be a JSON object"},
		{"two values", `{"verdict":"benign","alert_id":"a"} {}`, "more than one JSON value"},
		{"same id", "{\"id\":\"x\",\"verdict\":\"benign\",\"alert_id\":\"a\"}\n{\"id\":\"x\",\"verdict\":\"benign\",\"alert_id\":\"b\"}", `line 2: case id "x" is used on line 1`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs, err := eval.ParseCases([]byte(tc.in))
			var le *eval.LineError
			if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) || cs != nil {
				t.Fatalf("got %v (%v), want %q", err, cs, tc.want)
			}
		})
	}
}

func FuzzParseCases(f *testing.F) {
	f.Add([]byte(`{"id":"c1","alert":{"a":1},"verdict":"benign","must_mention":["x"]}`))
	f.Add([]byte("{\"alert_id\":\"a\",\"verdict\":\"true_positive\"}\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, err := eval.ParseCases(data)
		if err != nil && cs != nil {
			t.Fatal("cases returned with an error")
		}
		for _, c := range cs {
			if _, ok := record.ParseVerdict(string(c.Verdict)); !ok || c.ID == "" || (len(c.Alert) == 0) == (c.AlertID == "") {
				t.Fatalf("bad case accepted: %+v", c)
			}
		}
	})
}

// script is a scripted model: per model and case, the verdict it concludes and the evidence
// it cites; the investigation's tool result holds "10.0.0.5" for every case.
type script struct {
	verdicts map[string]func(repeat int) record.Verdict // model/case -> verdict
	fail     map[string]error                           // model/case -> error of the investigation
	calls    atomic.Int64
	mu       sync.Mutex
	seen     map[string]int
}

func (s *script) investigate(ctx context.Context, model string, a *record.Alert, q string) (*eval.Investigation, error) {
	s.calls.Add(1)
	key := model + "/" + string(a.ID)
	if err := s.fail[key]; err != nil {
		return &eval.Investigation{Usage: record.Usage{InputTokens: 10}}, err
	}
	contents := []*genai.Content{
		genai.NewContentFromText(q, genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_alerts"}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "search_alerts", Response: map[string]any{"hit": "10.0.0.5"}}}}},
		genai.NewContentFromText("It is user bob.", genai.RoleModel),
	}
	return &eval.Investigation{Answer: "It is user bob.", Contents: contents, Usage: record.Usage{InputTokens: 100, OutputTokens: 10, ThoughtTokens: 5}}, nil
}

func (s *script) conclude(ctx context.Context, model string, a *record.Alert, contents []*genai.Content) (*conclude.Suggestion, error) {
	key := model + "/" + string(a.ID)
	s.mu.Lock()
	s.seen[key]++
	n := s.seen[key]
	s.mu.Unlock()
	return &conclude.Suggestion{Verdict: s.verdicts[key](n), Conclusion: "Seen 203.0.113.7.",
		Evidence: []conclude.Evidence{{Value: "10.0.0.5", Claim: "a tool saw it"}, {Value: "198.51.100.1", Claim: "made up"}},
		Usage:    record.Usage{InputTokens: 50, OutputTokens: 5}}, nil
}

func always(v record.Verdict) func(int) record.Verdict { return func(int) record.Verdict { return v } }

// The figures of a report, against verdicts scripted so that each is known: accuracy over
// runs with a verdict, a failed run counted as an error and not as wrong, consistency across
// repeats, mention recall, unsupported evidence, the confusion matrix and tokens.
func TestEvaluateFigures(t *testing.T) {
	t.Parallel()
	items := []eval.Item{
		{Case: eval.Case{ID: "c1", Verdict: record.VerdictTruePositive, MustMention: []string{"203.0.113.7", "bob", "evil.example"}},
			Alert: &record.Alert{ID: "a1", Data: json.RawMessage(`{"ip":"203.0.113.7"}`)}},
		{Case: eval.Case{ID: "c2", Verdict: record.VerdictFalsePositive},
			Alert: &record.Alert{ID: "a2", Data: json.RawMessage(`{}`)}},
		{Case: eval.Case{ID: "c3", Verdict: record.VerdictBenign},
			Alert: &record.Alert{ID: "a3", Data: json.RawMessage(`{}`)}},
	}
	s := &script{seen: map[string]int{}, fail: map[string]error{"B/a3": errors.New("429 after retries")}, verdicts: map[string]func(int) record.Verdict{
		"A/a1": always(record.VerdictTruePositive),
		"A/a2": func(n int) record.Verdict { // flips between repeats
			if n == 1 {
				return record.VerdictFalsePositive
			}
			return record.VerdictBenign
		},
		"A/a3": always(record.VerdictBenign),
		"B/a1": always(record.VerdictEscalated),
		"B/a2": always(record.VerdictFalsePositive),
	}}
	var last eval.Progress
	var pmu sync.Mutex
	res := eval.Evaluate(context.Background(), items, eval.Options{
		Models: []string{"A", "B"}, Repeat: 2, Concurrency: 3, Investigate: s.investigate, Conclude: s.conclude,
		Progress: func(p eval.Progress) { pmu.Lock(); last = p; pmu.Unlock() },
	})
	rep := eval.Summarize(items, []string{"A", "B"}, res, nil)
	if !rep.Complete || len(rep.Models) != 2 || len(rep.Cases) != 3 || last.Done != 12 || last.Total != 12 || last.Errors != 2 {
		t.Fatalf("report %+v, progress %+v", rep, last)
	}
	a, b := rep.Models[0], rep.Models[1]
	// A: 6 runs, 5 correct (c2's second repeat says benign); c2 inconsistent.
	if a.Runs != 6 || a.Errors != 0 || a.Accuracy != 5.0/6 || a.Consistency != 2.0/3 || a.Cases != 3 {
		t.Errorf("A: %+v", a)
	}
	// Mentions: c1 lists 3; its runs name 203.0.113.7 (conclusion) and bob (answer), not evil.example.
	if a.MentionRecall == nil || *a.MentionRecall != 2.0/3 {
		t.Errorf("A mention recall %v", a.MentionRecall)
	}
	// Each run cites 2 values, one (198.51.100.1) seen nowhere.
	if a.Cited != 12 || a.Unsupported != 6 || a.UnsupportedEvidence != 0.5 {
		t.Errorf("A evidence %d/%d = %v", a.Unsupported, a.Cited, a.UnsupportedEvidence)
	}
	if a.Confusion[record.VerdictFalsePositive][record.VerdictBenign] != 1 || a.Confusion[record.VerdictFalsePositive][record.VerdictFalsePositive] != 1 ||
		a.Confusion[record.VerdictTruePositive][record.VerdictTruePositive] != 2 {
		t.Errorf("A confusion %v", a.Confusion)
	}
	// Tokens: 6 runs of 100+10+5 investigating and 50+5 concluding.
	if a.Tokens.Input != 900 || a.Tokens.Output != 90 || a.Tokens.Thought != 30 || a.Tokens.Total != 1020 {
		t.Errorf("A tokens %+v", a.Tokens)
	}
	// B: c3's runs failed: errors, not wrong verdicts; 4 judged, 2 correct (c2).
	if b.Runs != 6 || b.Errors != 2 || b.Accuracy != 0.5 || b.Consistency != 1 || b.Confusion[record.VerdictBenign] != nil {
		t.Errorf("B: %+v", b)
	}
	c3 := rep.Cases[2]
	if c3.ID != "c3" || len(c3.Runs) != 4 || c3.Runs[0].Model != "A" || c3.Runs[2].Model != "B" || c3.Runs[2].Error != "429 after retries" {
		t.Errorf("case c3 runs %+v", c3.Runs)
	}
	if out, err := json.Marshal(rep); err != nil || !strings.Contains(string(out), `"mention_recall":0.6666666666666666`) ||
		!strings.Contains(string(out), `"false_positive":{"benign":1,"false_positive":1}`) {
		t.Errorf("json %s (%v)", out, err)
	}
}

// A model that cannot be used stops after its first error, said once; the other model goes on.
func TestEvaluateStopsUnavailableModel(t *testing.T) {
	t.Parallel()
	var items []eval.Item
	for i := range 20 {
		items = append(items, eval.Item{Case: eval.Case{ID: fmt.Sprint(i), Verdict: record.VerdictBenign},
			Alert: &record.Alert{ID: record.AlertID(fmt.Sprint("a", i)), Data: json.RawMessage(`{}`)}})
	}
	gone := errors.New("model gone-1 not found")
	var goneCalls atomic.Int64
	investigate := func(ctx context.Context, model string, a *record.Alert, q string) (*eval.Investigation, error) {
		if model == "gone-1" {
			goneCalls.Add(1)
			return nil, gone
		}
		return &eval.Investigation{}, nil
	}
	conclude := func(ctx context.Context, model string, a *record.Alert, _ []*genai.Content) (*conclude.Suggestion, error) {
		return &conclude.Suggestion{Verdict: record.VerdictBenign}, nil
	}
	res := eval.Evaluate(context.Background(), items, eval.Options{Models: []string{"gone-1", "ok"}, Concurrency: 1,
		Investigate: investigate, Conclude: conclude, Fatal: func(err error) bool { return errors.Is(err, gone) }})
	rep := eval.Summarize(items, []string{"gone-1", "ok"}, res, nil)
	if goneCalls.Load() != 1 || rep.Models[0].Stopped == "" || rep.Models[0].Runs != 0 || rep.Models[1].Runs != 20 || rep.Models[1].Accuracy != 1 {
		t.Fatalf("calls %d, report %+v", goneCalls.Load(), rep.Models)
	}
}

// Interrupted: the runs that finished are kept and the report says it is not complete; runs
// cut by the cancellation are not counted.
func TestEvaluateInterrupted(t *testing.T) {
	t.Parallel()
	var items []eval.Item
	for i := range 10 {
		items = append(items, eval.Item{Case: eval.Case{ID: fmt.Sprint(i), Verdict: record.VerdictBenign},
			Alert: &record.Alert{ID: record.AlertID(fmt.Sprint("a", i)), Data: json.RawMessage(`{}`)}})
	}
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	investigate := func(ctx context.Context, model string, a *record.Alert, q string) (*eval.Investigation, error) {
		if n.Add(1) == 4 {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &eval.Investigation{}, nil
	}
	conclude := func(ctx context.Context, model string, a *record.Alert, _ []*genai.Content) (*conclude.Suggestion, error) {
		return &conclude.Suggestion{Verdict: record.VerdictBenign}, nil
	}
	res := eval.Evaluate(ctx, items, eval.Options{Models: []string{"m"}, Concurrency: 1, Investigate: investigate, Conclude: conclude,
		Now: func() time.Time { return time.Unix(0, 0) }})
	rep := eval.Summarize(items, []string{"m"}, res, nil)
	if rep.Complete || rep.Models[0].Runs != 3 || rep.Models[0].Errors != 0 {
		t.Fatalf("report %+v", rep.Models[0])
	}
}

// Investigated looks each run's investigation up (a Batch API job's answers): every model,
// case and repeat once, and Investigate is not asked.
func TestEvaluateInvestigated(t *testing.T) {
	t.Parallel()
	var items []eval.Item
	for i := range 3 {
		items = append(items, eval.Item{Case: eval.Case{ID: fmt.Sprint("c", i), Verdict: record.VerdictBenign},
			Alert: &record.Alert{ID: record.AlertID(fmt.Sprint("a", i)), Data: json.RawMessage(`{}`)}})
	}
	var mu sync.Mutex
	seen := map[string]int{}
	res := eval.Evaluate(context.Background(), items, eval.Options{Models: []string{"A", "B"}, Repeat: 2, Concurrency: 3,
		Investigate: func(context.Context, string, *record.Alert, string) (*eval.Investigation, error) {
			return nil, errors.New("asked instead of looked up")
		},
		Investigated: func(_ context.Context, model string, it *eval.Item, repeat int) (*eval.Investigation, error) {
			mu.Lock()
			seen[fmt.Sprint(model, "/", it.Case.ID, "/", repeat)]++
			mu.Unlock()
			if it.Case.ID == "c1" && repeat == 2 {
				return nil, errors.New("the batch job has no answer to this request")
			}
			return &eval.Investigation{Answer: "looked up", Usage: record.Usage{InputTokens: 10}}, nil
		},
		Conclude: func(ctx context.Context, model string, a *record.Alert, _ []*genai.Content) (*conclude.Suggestion, error) {
			return &conclude.Suggestion{Verdict: record.VerdictBenign}, nil
		},
	})
	rep := eval.Summarize(items, []string{"A", "B"}, res, nil)
	if len(seen) != 12 {
		t.Fatalf("looked up %v", seen)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s looked up %d times", k, n)
		}
	}
	for _, m := range rep.Models {
		if m.Runs != 6 || m.Errors != 1 || m.Accuracy != 1 || m.Tokens.Input != 50 {
			t.Errorf("model %+v", m)
		}
	}
}
