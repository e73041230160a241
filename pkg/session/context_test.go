package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/tokenbudget"
)

// engineRedactor is the real redaction engine behind the session's Redactor interface.
type engineRedactor struct{ r *redact.Redactor }

func (e engineRedactor) RedactContents(cs []*genai.Content) map[string]int {
	return stringCounts(redacthist.Contents(e.r, cs))
}

func (e engineRedactor) RedactString(s string) (string, map[string]int) {
	out, c := e.r.String(s)
	return out, stringCounts(c)
}

func stringCounts(c redact.Counts) map[string]int {
	m := map[string]int{}
	for t, n := range c {
		m[string(t)] = n
	}
	return m
}

// longEnv is a session under a small context budget against the fake, with a local store.
type longEnv struct {
	srv       *geminitest.Server
	store     *local.Store
	alert     *record.Alert
	summaries atomic.Int64
	streams   atomic.Int64
}

const summaryReply = "IOCs: 198.51.100.7, drop.example.net. Findings: beaconing from i-99999999. " +
	"Decisions: isolate the instance. Open questions: who is analyst alice@example.com reporting to?"

// isSummaryRequest recognises the summariser by its system instruction.
func isSummaryRequest(r *geminitest.Request) bool {
	return r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "running summary")
}

// newLongEnv answers summaries with summaryReply and questions with stream(r) (default: an
// answer of about 50 tokens).
func newLongEnv(t *testing.T, stream func(n int64, r *geminitest.Request) geminitest.Reply) *longEnv {
	t.Helper()
	e := &longEnv{alert: &record.Alert{ID: "alert-long", Data: json.RawMessage(`{"Title":"Drop point DNS","InstanceId":"i-99999999"}`)}}
	e.srv = geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case isSummaryRequest(r):
			e.summaries.Add(1)
			return geminitest.Reply{Text: summaryReply}
		case r.Kind == geminitest.KindStreamGenerateContent:
			n := e.streams.Add(1)
			if stream != nil {
				return stream(n, r)
			}
			return geminitest.Reply{Text: fmt.Sprintf("Answer %d: %s", n, strings.Repeat("the beacon interval is regular ", 6))}
		}
		return geminitest.Reply{Text: "unexpected request"}
	}))
	st, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e.store = st
	return e
}

func (e *longEnv) session(t *testing.T, budget int, compactAt float64, h *record.History) *session.Session {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(session.Options{
		LLM: client.Models, Store: e.store, Redactor: engineRedactor{redact.New(redact.Email)},
		Model: "gemini-test", MaxContextTokens: budget, CompactAt: compactAt,
	}, e.alert, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *longEnv) streamRequests() []*geminitest.Request {
	var out []*geminitest.Request
	for _, r := range e.srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			out = append(out, r)
		}
	}
	return out
}

// toolTurn is a turn with a function call and its response between question and answer.
func toolTurn(i int) []*genai.Content {
	name := fmt.Sprintf("lookup_%d", i)
	return []*genai.Content{
		genai.NewContentFromText(fmt.Sprintf("tool question %d: who owns 198.51.100.%d?", i, i%250), genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{genai.NewPartFromFunctionCall(name, map[string]any{"ip": fmt.Sprintf("198.51.100.%d", i%250)})}},
		{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse(name, map[string]any{"asn": 64500 + i, "owner": strings.Repeat("Example Hosting ", 5)})}},
		genai.NewContentFromText(fmt.Sprintf("tool answer %d: it belongs to AS%d.", i, 64500+i), genai.RoleModel),
	}
}

const summaryLead = "Summary of the earlier conversation"

// checkRequestShape asserts the transcript rules on one request.
func checkRequestShape(t *testing.T, req *geminitest.Request, question string) (summarised bool) {
	t.Helper()
	cs := req.Contents
	if len(cs) == 0 || !tokenbudget.IsTurnStart(cs[0]) {
		t.Fatalf("request %d does not start with a real user message: %s", req.Seq, mustJSON(t, cs[:1]))
	}
	history := cs[:len(cs)-1]
	if strings.HasPrefix(cs[0].Parts[0].Text, summaryLead) {
		summarised = true
		if len(cs) < 3 || cs[1].Role != genai.RoleModel {
			t.Fatalf("request %d: summary without the model's acknowledgement", req.Seq)
		}
		history = cs[2 : len(cs)-1]
	}
	if len(history) > 0 && !tokenbudget.IsTurnStart(history[0]) {
		t.Fatalf("request %d: history starts inside a turn: %s", req.Seq, mustJSON(t, history[0]))
	}
	for i, c := range cs {
		want := genai.RoleUser
		if i%2 == 1 {
			want = genai.RoleModel
		}
		if c.Role != want {
			t.Fatalf("request %d: content %d has role %q, want %q", req.Seq, i, c.Role, want)
		}
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				next := cs[i+1]
				if next.Parts[0].FunctionResponse == nil || next.Parts[0].FunctionResponse.Name != p.FunctionCall.Name {
					t.Fatalf("request %d: call %s not followed by its response", req.Seq, p.FunctionCall.Name)
				}
			}
			if p.FunctionResponse != nil {
				prev := cs[i-1]
				if prev.Parts[0].FunctionCall == nil || prev.Parts[0].FunctionCall.Name != p.FunctionResponse.Name {
					t.Fatalf("request %d: response %s without its call", req.Seq, p.FunctionResponse.Name)
				}
			}
		}
	}
	if req.LastUserText() != strings.TrimSpace(question) {
		t.Fatalf("request %d ends with %q, want %q", req.Seq, req.LastUserText(), question)
	}
	return summarised
}

// TestLongConversationFitsBudget runs 200 turns of about 100 tokens under a 2,000-token budget,
// with turns carrying function calls seeded into the transcript along the way. Every request
// stays within the budget (by the session's calibrated estimate and by the fake's own count),
// starts at a real user message and keeps calls with their responses; the stored transcript
// keeps every turn.
func TestLongConversationFitsBudget(t *testing.T) {
	t.Parallel()
	const budget, turns = 2000, 200
	for _, tc := range []struct {
		name      string
		compactAt float64
	}{
		{"sliding window only", -1},
		{"with summaries", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newLongEnv(t, nil)
			s := e.session(t, budget, tc.compactAt, nil)
			ctx := context.Background()
			seeded, summarisedRequests := 0, 0
			for i := range turns {
				if i%9 == 4 {
					s.AppendLive(toolTurn(i)...)
					seeded += 4
				}
				q := fmt.Sprintf("Question %d: %s", i, strings.Repeat("what does the DNS log show ", 6))
				ratio := s.Context().Ratio
				turn, err := s.Send(ctx, q, nil)
				if err != nil {
					t.Fatalf("turn %d: %v", i, err)
				}
				if turn.SaveErr != nil {
					t.Fatalf("turn %d: %v", i, turn.SaveErr)
				}
				reqs := e.streamRequests()
				req := reqs[len(reqs)-1]
				raw := tokenbudget.EstimateContent(req.SystemInstruction) + tokenbudget.EstimateContents(req.Contents)
				if float64(raw)*ratio > budget+1 {
					t.Fatalf("turn %d: request estimated at %d x %.2f > %d", i, raw, ratio, budget)
				}
				if turn.Usage.InputTokens > budget {
					t.Fatalf("turn %d: the fake counted %d prompt tokens > %d", i, turn.Usage.InputTokens, budget)
				}
				if checkRequestShape(t, req, q) {
					summarisedRequests++
				}
				if i > 50 && len(req.Contents) >= len(s.History().Contents) {
					t.Fatalf("turn %d: the whole transcript was sent", i)
				}
			}
			info := s.Context()
			t.Logf("%d summaries; last request %d contents, ~%d tokens; calibration %.2f", e.summaries.Load(), info.LastRequestContents, info.LastRequestTokens, info.Ratio)
			stored, err := e.store.GetHistory(ctx, s.History().ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored.Contents) != 2*turns+seeded || stored.MessageCount != len(stored.Contents) {
				t.Fatalf("stored %d contents (message count %d), want %d", len(stored.Contents), stored.MessageCount, 2*turns+seeded)
			}
			asked := 0
			for _, c := range stored.Contents {
				if c.Role == genai.RoleUser && strings.HasPrefix(c.Parts[0].Text, fmt.Sprintf("Question %d:", asked)) {
					asked++
				}
			}
			if asked != turns {
				t.Fatalf("stored transcript holds %d of the %d questions in order", asked, turns)
			}
			switch {
			case tc.compactAt < 0 && (e.summaries.Load() != 0 || stored.Summary != nil || summarisedRequests != 0):
				t.Fatalf("summaries are off, yet %d summary requests", e.summaries.Load())
			case tc.compactAt >= 0 && (e.summaries.Load() == 0 || stored.Summary == nil || summarisedRequests == 0):
				t.Fatalf("no summary: %d summary requests, %d requests with one", e.summaries.Load(), summarisedRequests)
			}
		})
	}
}

// TestCompactionStoredRedactedAndUsed: once the conversation passes the threshold, older turns
// are summarised by a separate request, the summary is stored redacted in the metadata, and
// later requests carry it instead of the turns it covers.
func TestCompactionStoredRedactedAndUsed(t *testing.T) {
	t.Parallel()
	e := newLongEnv(t, nil)
	s := e.session(t, 2000, 0, nil)
	ctx := context.Background()
	var firstSummaryTurn = -1
	for i := range 40 {
		q := fmt.Sprintf("Question %d: %s", i, strings.Repeat("what does the DNS log show ", 6))
		if _, err := s.Send(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
		if firstSummaryTurn < 0 && e.summaries.Load() > 0 {
			firstSummaryTurn = i
		}
	}
	if firstSummaryTurn < 0 {
		t.Fatal("no compaction in 40 turns of 100 tokens under a 2,000-token budget")
	}
	meta, err := e.store.GetHistoryMeta(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	sm := meta.Summary
	if sm == nil || sm.CoversCount <= 0 || sm.CoversCount >= len(s.History().Contents) || sm.CreatedAt.IsZero() {
		t.Fatalf("stored summary: %+v", sm)
	}
	if strings.Contains(sm.Text, "alice@example.com") || !strings.Contains(sm.Text, "[REDACTED_EMAIL]") || !strings.Contains(sm.Text, "198.51.100.7") {
		t.Fatalf("stored summary not redacted as expected: %q", sm.Text)
	}
	if meta.Redactions["EMAIL"] == 0 {
		t.Fatalf("redaction counts miss the summary: %v", meta.Redactions)
	}

	// The summariser saw the turns it folds in, and later the previous summary.
	var summaryReqs []*geminitest.Request
	for _, r := range e.srv.Requests() {
		if isSummaryRequest(r) {
			summaryReqs = append(summaryReqs, r)
		}
	}
	if !strings.Contains(summaryReqs[0].LastUserText(), "Question 0:") || !strings.Contains(summaryReqs[0].SystemText(), "IOCs, Findings, Decisions, Open questions") {
		t.Fatalf("first summary request: %q", summaryReqs[0].LastUserText())
	}
	if len(summaryReqs) > 1 && !strings.Contains(summaryReqs[1].LastUserText(), "Previous summary:\n"+"IOCs: 198.51.100.7") {
		t.Fatalf("second summary request does not fold into the first: %q", summaryReqs[1].LastUserText())
	}

	// The last request opens with the live summary (only what is written is redacted) and
	// carries fewer turns than stored.
	reqs := e.streamRequests()
	last := reqs[len(reqs)-1]
	if !strings.HasPrefix(last.Contents[0].Parts[0].Text, summaryLead) || !strings.Contains(last.Contents[0].Parts[0].Text, "alice@example.com") {
		t.Fatalf("last request does not carry the summary: %q", last.Contents[0].Parts[0].Text)
	}
	if got := len(last.Contents) - 3; got >= len(s.History().Contents)-sm.CoversCount+2 || got >= 2*40 {
		t.Fatalf("last request carries %d transcript contents", got)
	}
	if s.Context().SummaryCovers != s.History().Summary.CoversCount {
		t.Fatalf("Context() = %+v", s.Context())
	}

	// A resumed session uses the stored summary without summarising again.
	full, err := e.store.GetHistory(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	before := e.summaries.Load()
	resumed := e.session(t, 2000, 0, full)
	if _, err := resumed.Send(ctx, "and now?", nil); err != nil {
		t.Fatal(err)
	}
	reqs = e.streamRequests()
	if first := reqs[len(reqs)-1].Contents[0].Parts[0].Text; !strings.HasPrefix(first, summaryLead) {
		t.Fatalf("resumed request does not open with the summary: %q", first)
	}
	if e.summaries.Load() > before+1 {
		t.Fatal("a resumed session summarised more than once")
	}
}

// seedHistory stores a history of n plain turns and returns it.
func (e *longEnv) seedHistory(t *testing.T, n int) *record.History {
	t.Helper()
	h := &record.History{ID: record.HistoryID(fmt.Sprintf("00000000-0000-4000-8000-%012d", n)), AlertID: e.alert.ID, Title: "seeded"}
	for i := range n {
		h.Contents = append(h.Contents,
			genai.NewContentFromText(fmt.Sprintf("seeded question %d", i), genai.RoleUser),
			genai.NewContentFromText(fmt.Sprintf("seeded answer %d", i), genai.RoleModel))
	}
	h.MessageCount = len(h.Contents)
	if err := e.store.SaveHistory(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	return h
}

const tooLongMessage = "The input token count exceeds the maximum number of tokens allowed"

// TestTooLongCompactsAndRetriesOnce: a refusal as too long leads to one compaction and one
// retry; a second refusal is reported, not looped on.
func TestTooLongCompactsAndRetriesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("retry succeeds", func(t *testing.T) {
		t.Parallel()
		e := newLongEnv(t, func(n int64, r *geminitest.Request) geminitest.Reply {
			if n == 1 {
				return geminitest.Reply{Status: 400, ErrorMessage: tooLongMessage}
			}
			return geminitest.Reply{Text: "fine now"}
		})
		h := e.seedHistory(t, 6)
		s := e.session(t, 0, 0, h)
		turn, err := s.Send(ctx, "what next?", nil)
		if err != nil {
			t.Fatal(err)
		}
		if turn.Answer != "fine now" || e.summaries.Load() != 1 || e.streams.Load() != 2 {
			t.Fatalf("answer %q after %d summaries and %d requests", turn.Answer, e.summaries.Load(), e.streams.Load())
		}
		reqs := e.streamRequests()
		if len(reqs[0].Contents) != 13 || !strings.HasPrefix(reqs[1].Contents[0].Parts[0].Text, summaryLead) || len(reqs[1].Contents) >= 13 {
			t.Fatalf("requests carried %d then %d contents", len(reqs[0].Contents), len(reqs[1].Contents))
		}
		checkRequestShape(t, reqs[1], "what next?")
		stored, err := e.store.GetHistory(ctx, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Summary == nil || len(stored.Contents) != 14 {
			t.Fatalf("stored %d contents, summary %+v", len(stored.Contents), stored.Summary)
		}
	})

	t.Run("second refusal is reported", func(t *testing.T) {
		t.Parallel()
		e := newLongEnv(t, func(int64, *geminitest.Request) geminitest.Reply {
			return geminitest.Reply{Status: 400, ErrorMessage: tooLongMessage}
		})
		h := e.seedHistory(t, 6)
		s := e.session(t, 0, 0, h)
		turn, err := s.Send(ctx, "what next?", nil)
		if turn != nil || !errors.Is(err, session.ErrContextTooLong) {
			t.Fatalf("turn %v, err %v", turn, err)
		}
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 400 {
			t.Fatalf("the model's error is lost: %v", err)
		}
		if e.summaries.Load() != 1 || e.streams.Load() != 2 {
			t.Fatalf("%d summaries and %d requests, want 1 and 2", e.summaries.Load(), e.streams.Load())
		}
		if len(s.History().Contents) != 12 {
			t.Fatalf("the transcript changed: %d contents", len(s.History().Contents))
		}
	})

	t.Run("nothing to compact", func(t *testing.T) {
		t.Parallel()
		e := newLongEnv(t, func(int64, *geminitest.Request) geminitest.Reply {
			return geminitest.Reply{Status: 400, ErrorMessage: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}
		})
		s := e.session(t, 0, 0, nil)
		if _, err := s.Send(ctx, "a question far too long", nil); !errors.Is(err, session.ErrContextTooLong) {
			t.Fatalf("err %v", err)
		}
		if e.summaries.Load() != 0 || e.streams.Load() != 1 {
			t.Fatalf("%d summaries and %d requests for a new conversation, want 0 and 1", e.summaries.Load(), e.streams.Load())
		}
		// The limit the refusal told is kept.
		if b := s.Context().Budget; b > 1048576 {
			t.Fatalf("budget %d above the model's limit", b)
		}
	})

	t.Run("other 400s are not retried", func(t *testing.T) {
		t.Parallel()
		e := newLongEnv(t, func(int64, *geminitest.Request) geminitest.Reply {
			return geminitest.Reply{Status: 400, ErrorMessage: "API key not valid. Please pass a valid API key."}
		})
		s := e.session(t, 0, 0, e.seedHistory(t, 3))
		if _, err := s.Send(ctx, "q", nil); err == nil || errors.Is(err, session.ErrContextTooLong) {
			t.Fatalf("err %v", err)
		}
		if e.summaries.Load() != 0 || e.streams.Load() != 1 {
			t.Fatalf("%d summaries and %d requests", e.summaries.Load(), e.streams.Load())
		}
	})
}

// TestCompactCommand: Compact summarises all but the newest turn and saves; with a single turn
// there is nothing to do.
func TestCompactCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newLongEnv(t, nil)
	h := e.seedHistory(t, 5)
	s := e.session(t, 0, 0, h)
	covers, err := s.Compact(ctx)
	if err != nil || covers != 8 {
		t.Fatalf("Compact = %d, %v", covers, err)
	}
	meta, err := e.store.GetHistoryMeta(ctx, h.ID)
	if err != nil || meta.Summary == nil || meta.Summary.CoversCount != 8 {
		t.Fatalf("stored summary %+v, %v", meta.Summary, err)
	}
	if _, err := s.Compact(ctx); !errors.Is(err, session.ErrNothingToCompact) {
		t.Fatalf("second Compact: %v", err)
	}
	if _, err := s.Send(ctx, "next", nil); err != nil {
		t.Fatal(err)
	}
	reqs := e.streamRequests()
	if got := reqs[len(reqs)-1].Contents; len(got) != 5 || got[2].Parts[0].Text != "seeded question 4" {
		t.Fatalf("request after /compress: %s", mustJSON(t, got))
	}

	single := newLongEnv(t, nil)
	s = single.session(t, 0, 0, single.seedHistory(t, 1))
	if _, err := s.Compact(ctx); !errors.Is(err, session.ErrNothingToCompact) || single.summaries.Load() != 0 {
		t.Fatalf("Compact of one turn: %v", err)
	}
}

// TestSummaryFailureFallsBackToWindow: when the summariser fails, the question still goes out
// with the newest turns that fit.
func TestSummaryFailureFallsBackToWindow(t *testing.T) {
	t.Parallel()
	var streams atomic.Int64
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if isSummaryRequest(r) {
			return geminitest.Reply{Status: 503}
		}
		streams.Add(1)
		return geminitest.Reply{Text: "ok " + strings.Repeat("word ", 40)}
	}))
	e := &longEnv{srv: srv, alert: &record.Alert{ID: "alert-long", Data: json.RawMessage(`{}`)}}
	st, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	e.store = st
	s := e.session(t, 1000, 0, nil)
	for i := range 30 {
		q := fmt.Sprintf("Question %d: %s", i, strings.Repeat("word ", 40))
		if _, err := s.Send(context.Background(), q, nil); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		reqs := e.streamRequests()
		checkRequestShape(t, reqs[len(reqs)-1], q)
	}
	if s.History().Summary != nil || len(s.History().Contents) != 60 {
		t.Fatalf("summary %+v, %d contents", s.History().Summary, len(s.History().Contents))
	}
}
