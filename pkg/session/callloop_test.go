package session_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
)

// cancelAfterCall passes a stream on and cancels the turn as soon as a chunk with a function
// call has been handed over: Ctrl-C right after the model's calls arrived.
type cancelAfterCall struct {
	llm.Generator
	cancel context.CancelFunc
}

func (g cancelAfterCall) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for resp, err := range g.Generator.GenerateContentStream(ctx, model, contents, cfg) {
			if !yield(resp, err) || err != nil {
				return
			}
			if resp != nil && len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
				for _, p := range resp.Candidates[0].Content.Parts {
					if p.FunctionCall != nil {
						g.cancel()
					}
				}
			}
		}
	}
}

// A stream that breaks (or is cancelled) right after a function-call chunk: the call is
// answered "interrupted" without running, the turn ends at that content boundary with a reply
// marked cut short and is saved, and the conversation goes on (the fake refuses an unanswered
// call as the API does).
func TestBrokenStreamAfterCallAnswersIt(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"stream error", "ctrl-c"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				if strings.Contains(r.LastUserText(), "again") {
					return geminitest.Reply{Text: "fine"}
				}
				r2 := geminitest.Reply{Parts: []*genai.Part{call("echo", "c1", map[string]any{"q": "x"})}}
				if how == "stream error" {
					r2.Status, r2.ErrorMessage = 500, "the stream broke"
				} else {
					r2.Hang = true
				}
				return r2
			}))
			echo := &echoTool{name: "echo"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := e.toolSession(t, func(o *session.Options) {
				if how == "ctrl-c" {
					o.LLM = cancelAfterCall{Generator: o.LLM, cancel: cancel}
				}
			}, echo)
			turn, err := s.Send(ctx, "go", nil)
			if err == nil || turn == nil {
				t.Fatalf("turn %+v, err %v", turn, err)
			}
			if echo.calls != 0 {
				t.Fatal("a call of a broken answer ran")
			}
			stored, gerr := e.store.GetHistory(context.Background(), s.History().ID)
			if gerr != nil || len(stored.Contents) != 4 {
				t.Fatalf("stored %v: %s", gerr, mustJSON(t, stored.Contents))
			}
			if last := stored.Contents[3]; last.Role != genai.RoleModel || last.Parts[0].Text != session.PartialMarker {
				t.Fatalf("the reply is not marked cut short: %s", mustJSON(t, last))
			}
			fr := stored.Contents[2].Parts[0].FunctionResponse
			if msg, _ := fr.Response["error"].(string); fr.ID != "c1" || fr.Name != "echo" || !strings.HasPrefix(msg, "interrupted") {
				t.Fatalf("response %+v", fr)
			}
			if len(turn.ToolCalls) != 1 || !strings.HasPrefix(turn.ToolCalls[0].Error, "interrupted") {
				t.Fatalf("calls reported: %+v", turn.ToolCalls)
			}
			if _, err := s.Send(context.Background(), "again", nil); err != nil {
				t.Fatalf("the next question was refused: %v", err)
			}
		})
	}
}

// A history stored with a call and no response (as an answer that broke off was stored
// before) is repaired when it is loaded: the call is answered, the indexes that point into the
// transcript move with it, and the conversation goes on.
func TestLoadedUnansweredCallIsRepaired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	broken := &record.History{ID: "00000000-0000-4000-8000-00000000000b", AlertID: e.alert.ID, Title: "t", TitleSource: record.TitleManual}
	calls := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: &genai.FunctionCall{ID: "a1", Name: "echo", Args: map[string]any{"q": "1"}}, ThoughtSignature: []byte("sig")},
		{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"q": "2"}}},
		{Text: "\n\n" + session.PartialMarker},
	}}
	broken.Contents = []*genai.Content{genai.NewContentFromText("go", genai.RoleUser), calls}
	broken.RedactedCount, broken.MessageCount = 2, 2
	broken.ToolApprovals = []record.ToolApproval{{Tool: "echo", Content: 1, Call: 0}}
	if err := e.store.SaveHistory(context.Background(), broken); err != nil {
		t.Fatal(err)
	}
	loaded, err := e.store.GetHistory(context.Background(), broken.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := e.session(t, false, loaded)
	if _, err := s.Send(context.Background(), "next", nil); err != nil {
		t.Fatalf("the repaired conversation was refused: %v", err)
	}
	h := s.History()
	if len(h.Contents) != 5 || h.MessageCount != 5 {
		t.Fatalf("%d contents: %s", len(h.Contents), mustJSON(t, h.Contents))
	}
	resp := h.Contents[2].Parts
	if len(resp) != 2 || resp[0].FunctionResponse.ID != "a1" || resp[1].FunctionResponse.ID != "" || resp[1].FunctionResponse.Name != "echo" {
		t.Fatalf("repair: %s", mustJSON(t, h.Contents[2]))
	}
	if string(h.Contents[1].Parts[0].ThoughtSignature) != "sig" || h.ToolApprovals[0].Content != 1 {
		t.Fatalf("the calls content or the approvals moved: %s", mustJSON(t, h))
	}
	if e.srv.Requests()[0].Contents[3].Parts[0].Text != "next" {
		t.Fatal("the question does not follow the repaired calls")
	}
}

// concurrencyTool counts its runs and the most that ran at once.
type concurrencyTool struct {
	runs, inflight, peak atomic.Int64
}

func (c *concurrencyTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: "lookup", Description: "lookup"}
}

func (c *concurrencyTool) Call(ctx context.Context, args map[string]any) map[string]any {
	c.runs.Add(1)
	n := c.inflight.Add(1)
	defer c.inflight.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return map[string]any{"ok": true}
}

// --max-tool-calls holds inside one model content: of 40 calls in one reply with a limit of
// 12, 12 run (never more than 8 at once), the other 28 are answered with the limit, and the
// model is asked once more without tools.
func TestToolLimitWithinOneContent(t *testing.T) {
	t.Parallel()
	var finalAsked atomic.Bool
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.ToolConfig != nil && r.ToolConfig.FunctionCallingConfig != nil && r.ToolConfig.FunctionCallingConfig.Mode == genai.FunctionCallingConfigModeNone {
			finalAsked.Store(true)
			return geminitest.Reply{Text: "summary of what was found"}
		}
		var parts []*genai.Part
		for i := range 40 {
			parts = append(parts, call("lookup", "", map[string]any{"n": i}))
		}
		return geminitest.Reply{Parts: parts}
	}))
	lt := &concurrencyTool{}
	s := e.toolSession(t, func(o *session.Options) { o.MaxToolCalls = 12 }, lt)
	turn, err := s.Send(context.Background(), "look everything up", nil)
	if err != nil {
		t.Fatal(err)
	}
	if lt.runs.Load() != 12 || lt.peak.Load() > 8 {
		t.Fatalf("%d calls ran, %d at once; want 12, at most 8", lt.runs.Load(), lt.peak.Load())
	}
	if turn.Answer != "summary of what was found" || !finalAsked.Load() || len(turn.ToolCalls) != 40 {
		t.Fatalf("answer %q, %d calls reported", turn.Answer, len(turn.ToolCalls))
	}
	responses := s.Contents()[2].Parts
	refused := 0
	for i, p := range responses {
		msg, _ := p.FunctionResponse.Response["error"].(string)
		if (i >= 12) != strings.Contains(msg, "limit of 12 tool calls") {
			t.Fatalf("response %d: %v", i, p.FunctionResponse.Response)
		}
		if msg != "" {
			refused++
		}
	}
	if len(responses) != 40 || refused != 28 {
		t.Fatalf("%d responses, %d refused", len(responses), refused)
	}
}

// The call loop as Gemini 3 streams it, against the fake in Gemini 3 mode: parallel calls,
// one per event, with ids and the first signed, then the signed empty text part. The model's
// content is kept as assembled (the trailing signed part included) and sent back so; each
// response copies its call's id; the fake (which checks ids and signatures as the API does)
// takes the follow-up and a resumed history; usage reports the thinking apart.
func TestGemini3ParallelCallsAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Parallel Lookups"}
		}
		if answered(r) {
			return geminitest.Reply{Text: "both seen before"}
		}
		return geminitest.Reply{Parts: []*genai.Part{
			call("echo", "", map[string]any{"q": "203.0.113.7"}), call("echo", "", map[string]any{"q": "evil.example"}),
		}}
	}))
	echo := &echoTool{name: "echo"}
	s := e.toolSession(t, func(o *session.Options) { o.Model = "gemini-3.8-flash"; o.Titles = true }, echo)
	turn, err := s.Send(context.Background(), "where were these seen?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "both seen before" || echo.calls != 2 || turn.Usage.ThoughtTokens == 0 {
		t.Fatalf("turn %+v", turn)
	}
	h := s.History()
	if h.Title != "Parallel Lookups" || h.Usage.ThoughtTokens != turn.Usage.ThoughtTokens {
		t.Fatalf("title %q (%s), usage %+v", h.Title, h.TitleSource, h.Usage)
	}
	calls := h.Contents[1].Parts
	if len(calls) != 3 || len(calls[0].FunctionCall.ID) != 8 || len(calls[0].ThoughtSignature) == 0 ||
		calls[1].FunctionCall.ID == "" || len(calls[1].ThoughtSignature) != 0 || calls[2].Text != "" || len(calls[2].ThoughtSignature) == 0 {
		t.Fatalf("calls content not kept as assembled: %s", mustJSON(t, h.Contents[1]))
	}
	for i, p := range h.Contents[2].Parts {
		if p.FunctionResponse.ID != calls[i].FunctionCall.ID {
			t.Fatalf("response %d has id %q, its call %q", i, p.FunctionResponse.ID, calls[i].FunctionCall.ID)
		}
	}
	answer := h.Contents[3].Parts
	if last := answer[len(answer)-1]; last.Text != "" || len(last.ThoughtSignature) == 0 {
		t.Fatalf("the answer's signed trailing part is gone: %s", mustJSON(t, h.Contents[3]))
	}
	// The follow-up request carried the content as received.
	reqs := e.srv.Requests()
	var follow *geminitest.Request
	for _, r := range reqs {
		if r.Kind == geminitest.KindStreamGenerateContent && answered(r) {
			follow = r
		}
	}
	if follow == nil || mustJSON(t, follow.Contents[1]) != mustJSON(t, h.Contents[1]) {
		t.Fatalf("the follow-up does not send the calls back as received")
	}
	// The title asked at the lowest level, with room, without a temperature.
	for _, r := range reqs {
		if r.Kind != geminitest.KindGenerateContent {
			continue
		}
		g := r.GenerationConfig
		if g.ThinkingConfig == nil || g.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow || g.ThinkingConfig.ThinkingBudget != nil || g.Temperature != nil || g.MaxOutputTokens < 64+1024 {
			t.Fatalf("title request: %+v %+v", g, g.ThinkingConfig)
		}
	}
	// Resumed from the store, the history with its calls is taken.
	stored, err := e.store.GetHistory(context.Background(), h.ID)
	if err != nil {
		t.Fatal(err)
	}
	again := e.toolSessionOn(t, stored, func(o *session.Options) { o.Model = "gemini-3.8-flash" }, echo)
	if _, err := again.Send(context.Background(), "and evil.example?", nil); err != nil {
		t.Fatalf("resumed history refused: %v", err)
	}
}

// A main answer that is all thought and no text is asked once more; a second one is a clear
// error, and the question is saved (its reply marked cut short) so nothing typed is lost.
func TestGemini3AllThoughtAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		replies []geminitest.Reply
		wantErr bool
	}{
		{"answered on the retry", []geminitest.Reply{{ThoughtTokens: 900}, {Text: "the answer"}}, false},
		{"no answer twice", []geminitest.Reply{{ThoughtTokens: 900}, {ThoughtTokens: 1200}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, geminitest.WithGemini3())
			e.srv.Enqueue(tc.replies...)
			s := e.toolSession(t, func(o *session.Options) { o.Model = "gemini-3.8-flash" })
			turn, err := s.Send(context.Background(), "what happened?", nil)
			if len(e.srv.Requests()) != 2 {
				t.Fatalf("%d requests, want the answer and one retry", len(e.srv.Requests()))
			}
			if !tc.wantErr {
				if err != nil || turn.Answer != "the answer" || turn.Usage.ThoughtTokens < 900 {
					t.Fatalf("%v %+v", err, turn)
				}
				return
			}
			if !errors.Is(err, session.ErrEmptyAnswer) || turn == nil || turn.Answer != "" {
				t.Fatalf("err %v, turn %+v", err, turn)
			}
			stored, gerr := e.store.GetHistory(context.Background(), s.History().ID)
			if gerr != nil || len(stored.Contents) != 2 || stored.Contents[0].Parts[0].Text != "what happened?" ||
				!strings.Contains(mustJSON(t, stored.Contents[1]), session.PartialMarker) || stored.Usage.ThoughtTokens != 2100 {
				t.Fatalf("question not saved: %v %s", gerr, mustJSON(t, stored))
			}
		})
	}
}

func (e *env) toolSessionOn(t *testing.T, h *record.History, o func(*session.Options), tools ...tool.Tool) *session.Session {
	t.Helper()
	reg, err := tool.NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	opts := session.Options{LLM: geminiModels(t, e), Store: e.store, Redactor: e.red, Model: "gemini-test", Tools: reg}
	if o != nil {
		o(&opts)
	}
	s, err := session.New(opts, e.alert, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A model that calls tools where it cannot (none are declared, or calling was turned off): its
// calls are answered with the refusal and it is asked once more for text; calling again ends
// the question without an answer (ErrCallsNotText), saved with its reply marked cut short.
func TestCallsWhereCallingIsOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		stubborn  bool // calls every time
		wantErr   error
		contents  int
		wantReply string
	}{
		{"answers after the refusal", false, nil, 4, "the answer"},
		{"keeps calling", true, session.ErrCallsNotText, 6, session.PartialMarker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				if strings.Contains(r.LastUserText(), "again") || (!tc.stubborn && answered(r)) {
					return geminitest.Reply{Text: "the answer"}
				}
				return geminitest.Reply{Parts: []*genai.Part{call("lookup", "c1", map[string]any{"q": "x"})}}
			}))
			s := e.toolSession(t, nil) // no tools declared
			turn, err := s.Send(context.Background(), "go", nil)
			if !errors.Is(err, tc.wantErr) || turn == nil {
				t.Fatalf("turn %+v, err %v, want %v", turn, err, tc.wantErr)
			}
			if turn.Partial != (tc.wantErr != nil) {
				t.Fatalf("partial %v with err %v", turn.Partial, err)
			}
			stored, gerr := e.store.GetHistory(context.Background(), s.History().ID)
			if gerr != nil || len(stored.Contents) != tc.contents {
				t.Fatalf("stored %v: %s", gerr, mustJSON(t, stored.Contents))
			}
			fr := stored.Contents[2].Parts[0].FunctionResponse
			if msg, _ := fr.Response["error"].(string); fr.ID != "c1" || msg == "" {
				t.Fatalf("the call was not refused: %+v", fr)
			}
			last := stored.Contents[len(stored.Contents)-1]
			if last.Role != genai.RoleModel || !strings.Contains(answerOf(last), tc.wantReply) {
				t.Fatalf("last content: %s", mustJSON(t, last))
			}
			if _, err := s.Send(context.Background(), "again", nil); err != nil {
				t.Fatalf("the next question was refused: %v", err)
			}
		})
	}
}
