package remote_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/batch/remote"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
)

// g3Options are e's options for model on the fake's Gemini 3 mode, the main answers at level
// ("": the model's own).
func (e *env) g3Options(model string, level genai.ThinkingLevel) remote.Options {
	o := e.options()
	o.Model = model
	o.NewSession = func(a *record.Alert, h *record.History) (*session.Session, error) {
		return session.New(session.Options{LLM: failingGenerator{}, Store: countingSaver{e.store, e}, Redactor: secretRedactor{},
			Model: model, Thinking: level, Titles: true, CompactAt: -1}, a, h)
	}
	return o
}

// The requests of a remote batch are built for the model they go to, as a chat's: the answer at
// the level asked for (none: the model's own), the title at the lowest level the model offers
// with room for that thinking; never a thinking budget, never a temperature on Gemini 3.
func TestRemoteRequestsFitGemini3(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model      string
		level      genai.ThinkingLevel
		titleLevel genai.ThinkingLevel
	}{
		{"gemini-3.8-flash", "", genai.ThinkingLevelLow},
		{"gemini-3.8-flash", genai.ThinkingLevelHigh, genai.ThinkingLevelLow},
		{"gemini-3.5-flash-lite", "", genai.ThinkingLevelMinimal},
		{"gemini-3.1-pro-preview", genai.ThinkingLevelMedium, genai.ThinkingLevelLow},
	} {
		t.Run(tc.model+"/"+string(tc.level), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, geminitest.WithGemini3())
			input := `{"alert_id": "alert-dns", "query": "who owns the domain?"}` + "\n"
			r := e.run(t, t.Context(), input, e.g3Options(tc.model, tc.level))
			if r.err != nil || len(r.results) != 1 || r.results[0].Error != nil || r.results[0].Title != "Title 1" {
				t.Fatalf("%v: %+v", r.err, r.results)
			}
			if r.results[0].Usage.ThoughtTokens == 0 {
				t.Fatalf("the thinking is not reported: %+v", r.results[0].Usage)
			}
			b := e.srv.Batches()[0]
			if b.Model != tc.model || len(b.Requests) != 2 {
				t.Fatalf("job %s with %d requests", b.Model, len(b.Requests))
			}
			for _, req := range b.Requests {
				g := req.GenerationConfig
				var tcfg *genai.ThinkingConfig
				if g != nil {
					tcfg = g.ThinkingConfig
					if g.Temperature != nil {
						t.Fatalf("%s: temperature %v on Gemini 3", req.Key, *g.Temperature)
					}
				}
				if tcfg != nil && tcfg.ThinkingBudget != nil {
					t.Fatalf("%s: a thinking budget on Gemini 3: %+v", req.Key, tcfg)
				}
				switch req.Key {
				case "q1":
					if tc.level == "" && tcfg != nil || tc.level != "" && (tcfg == nil || tcfg.ThinkingLevel != tc.level) {
						t.Fatalf("answer thinking %+v, want %q", tcfg, tc.level)
					}
				case "t1":
					// Room for a title (64 tokens) and what the level thinks.
					if tcfg == nil || tcfg.ThinkingLevel != tc.titleLevel || g.MaxOutputTokens < 64+geminitest.ThinkingTokens()[tc.titleLevel] {
						t.Fatalf("title config %+v, thinking %+v", g, tcfg)
					}
				default:
					t.Fatalf("request %s", req.Key)
				}
			}
		})
	}
}

// A remote batch on the Gemini 3 fake whose answers have no text (all thought; cut at the output
// cap while thinking) ends those lines as a local batch does: an error naming the empty answer,
// the question saved in its history (its reply marked cut short), the usage reported. A title
// that thought through its whole allowance falls back to the first line. Collected again, the
// same lines come out and nothing is saved twice.
func TestRemoteAnswerWithoutText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithGemini3(), geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		q := r.LastUserText()
		switch {
		case strings.HasPrefix(r.Key, "t") && strings.Contains(q, "(title thinks)"):
			return geminitest.Reply{Text: "Unseen Title", ThoughtTokens: 100000}
		case strings.HasPrefix(r.Key, "t"):
			return geminitest.Reply{Text: "Title " + strings.TrimPrefix(r.Key, "t")}
		case strings.Contains(q, "(thought)"):
			return geminitest.Reply{ThoughtTokens: 900}
		case strings.Contains(q, "(capped)"):
			return geminitest.Reply{FinishReason: genai.FinishReasonMaxTokens, ThoughtTokens: 65536}
		}
		return geminitest.Reply{Text: "answer to " + r.Key}
	}))
	input := `{"alert_id": "alert-dns", "query": "who owns the domain?"}
{"alert_id": "alert-dns", "query": "a question (thought)\nsecond line"}
{"alert_id": "alert-scan", "query": "a question (capped)"}
{"alert_id": "alert-scan", "query": "is it internal? (title thinks)\nsecond line"}
`
	o := e.g3Options("gemini-3.8-flash", "")
	r := e.run(t, t.Context(), input, o)
	if r.err != nil || len(r.results) != 4 || r.oc.Summary.Failed != 2 {
		t.Fatalf("%v: %+v", r.err, r.results)
	}
	for i, l := range r.results {
		switch i {
		case 0:
			if l.Error != nil || l.Answer != "answer to q1" || l.Title != "Title 1" {
				t.Fatalf("line 1: %+v", l)
			}
		case 1, 2:
			if l.Error == nil || !strings.Contains(*l.Error, "empty answer") || l.Answer != "" || l.HistoryID == "" || l.Usage.ThoughtTokens == 0 {
				t.Fatalf("line %d: %+v (error %v)", i+1, l, l.Error)
			}
			h, err := e.store.GetHistory(t.Context(), l.HistoryID)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Contents) != 2 || !strings.HasPrefix(h.Contents[0].Parts[0].Text, "a question (") ||
				!strings.Contains(h.Contents[1].Parts[len(h.Contents[1].Parts)-1].Text, session.PartialMarker) || h.Title != l.Title || l.Title == "" {
				t.Fatalf("line %d's history %+v: %+v", i+1, h.Meta(), h.Contents)
			}
		case 3:
			if l.Error != nil || l.Title != "is it internal? (title thinks)" {
				t.Fatalf("line 4: %+v", l)
			}
		}
	}
	saves := e.saves.Load()
	if saves != 4 {
		t.Fatalf("%d saves, want 4", saves)
	}

	// Collected again (the Gemini API keeps an inline job's answers): the same lines, nothing
	// saved again.
	again := e.run(t, t.Context(), input, o)
	if again.err != nil || len(again.results) != 4 || e.saves.Load() != saves {
		t.Fatalf("again: %v, %d lines, %d saves", again.err, len(again.results), e.saves.Load())
	}
	for i := range again.results {
		a, b := again.results[i], r.results[i]
		if a.HistoryID != b.HistoryID || a.Answer != b.Answer || (a.Error == nil) != (b.Error == nil) || a.Title != b.Title {
			t.Fatalf("line %d: first %+v, again %+v", i+1, b, a)
		}
	}
}

// A job's answer holding calls (a job declares no tools) is answered as calls that cannot run:
// the transcript pairs every call with a response, and the question ends without an answer
// unless the model wrote text beside the calls.
func TestCompleteAnswersCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, err := e.store.GetAlert(t.Context(), "alert-dns")
	if err != nil {
		t.Fatal(err)
	}
	call := &genai.Part{FunctionCall: &genai.FunctionCall{ID: "abcd1234", Name: "search_alerts", Args: map[string]any{"query": "x"}}, ThoughtSignature: []byte("sig")}
	resp := func(parts ...*genai.Part) *genai.GenerateContentResponse {
		return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}, FinishReason: genai.FinishReasonStop}}}
	}
	for _, tc := range []struct {
		name   string
		resp   *genai.GenerateContentResponse
		answer string
		fails  bool
	}{
		{"calls only", resp(call), "", true},
		{"calls beside text", resp(genai.NewPartFromText("It is benign."), call), "It is benign.", false},
	} {
		s, err := session.New(session.Options{LLM: failingGenerator{}, Store: e.store, Redactor: secretRedactor{}, Model: "gemini-3.8-flash", Now: time.Now}, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		turn, err := s.Complete(t.Context(), "is it bad?", session.Answer{Response: tc.resp})
		if tc.fails != errors.Is(err, session.ErrCallsNotText) || turn == nil || turn.Answer != tc.answer || len(turn.ToolCalls) != 1 {
			t.Fatalf("%s: %+v, %v", tc.name, turn, err)
		}
		cs := s.History().Contents
		if len(cs) < 3 || cs[2].Role != genai.RoleUser || cs[2].Parts[0].FunctionResponse == nil || cs[2].Parts[0].FunctionResponse.ID != "abcd1234" {
			t.Fatalf("%s: the call is not answered: %+v", tc.name, cs)
		}
		text, _, aerr := session.Answered(tc.resp)
		if text != tc.answer || errors.Is(aerr, session.ErrCallsNotText) != tc.fails {
			t.Fatalf("%s: Answered %q, %v", tc.name, text, aerr)
		}
	}
}
