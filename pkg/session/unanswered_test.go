package session_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// resettingListener takes each request's first bytes and resets the connection: a network
// that fails.
func resettingListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Once the request is on its way (the connection is not idle), a reset: closing
			// at once could look to the client like an idle connection the server let go.
			_, _ = c.Read(make([]byte, 1))
			_ = c.(*net.TCPConn).SetLinger(0)
			_ = c.Close()
		}
	}()
	return "http://" + ln.Addr().String()
}

// retrying is the model as a chat reaches it: the SDK on baseURL behind pkg/llm's retries,
// which here wait nothing and give a try 300 ms to answer.
func retrying(t *testing.T, baseURL string) llm.Generator {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return llm.New(client.Models, llm.Options{MaxAttempts: 3, CallTimeout: 300 * time.Millisecond,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
}

// A question whose turn ends before any answer arrived, whatever ended it, is saved with
// KeepUnanswered (as a chat sets it): the question, a reply holding only the marker, the
// fallback title when the title did not come; the error is returned with the turn, and the
// conversation goes on from what is stored. Without it (a batch) nothing is saved, as before,
// unless something arrived.
func TestUnansweredQuestionKept(t *testing.T) {
	t.Parallel()
	const question = "Who ran the binary on i-99999999?\nAnd from which address?"
	apiCode := func(code int) func(error) bool {
		return func(err error) bool {
			var apiErr genai.APIError
			return errors.As(err, &apiErr) && apiErr.Code == code
		}
	}
	for _, tc := range []struct {
		name string
		// answer is the fake's reply to the question; cancel ends the turn (Ctrl-C). A nil
		// answer is a network that resets every connection.
		answer func(cancel context.CancelFunc) geminitest.Reply
		is     func(error) bool
		// batchKeeps: something arrived (thoughts), so even a batch keeps the turn.
		batchKeeps bool
	}{
		{"rate limited after retries", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Status: 429, ErrorMessage: "quota", RetryDelay: time.Millisecond}
		}, apiCode(429), false},
		{"outage after retries", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Status: 503, ErrorMessage: "overloaded"}
		}, apiCode(503), false},
		{"network error", nil, func(err error) bool { return llm.Attempts(err) == 3 }, false},
		{"call timeout", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Hang: true}
		}, func(err error) bool { return errors.Is(err, llm.ErrCallTimeout) }, false},
		{"stream broken after thoughts", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Parts: []*genai.Part{{Text: "weighing the evidence", Thought: true}}, Status: 500, ErrorMessage: "broken"}
		}, func(err error) bool { return err != nil }, true},
		{"blocked", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{BlockReason: "SAFETY"}
		}, func(err error) bool { return errors.Is(err, session.ErrBlocked) }, false},
		{"ctrl-c before the first byte", func(cancel context.CancelFunc) geminitest.Reply {
			cancel() // the request has arrived; nothing of the answer has
			return geminitest.Reply{Hang: true}
		}, func(err error) bool { return errors.Is(err, context.Canceled) }, false},
	} {
		for _, keep := range []bool{true, false} {
			name := tc.name + "/kept"
			if !keep {
				name = tc.name + "/batch"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				good := newEnv(t) // answers the conversation's next question
				base := resettingListener(t)
				if tc.answer != nil {
					failing := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
						if r.Kind == geminitest.KindGenerateContent {
							return geminitest.Reply{Hang: true} // the title never comes
						}
						return tc.answer(cancel)
					}))
					base = failing.URL()
				}
				opts := session.Options{LLM: retrying(t, base), Store: good.store, Redactor: good.red, Model: "gemini-test",
					Titles: true, KeepUnanswered: keep}
				s, err := session.New(opts, good.alert, nil)
				if err != nil {
					t.Fatal(err)
				}
				turn, err := s.Send(ctx, question, nil)
				if !tc.is(err) {
					t.Fatalf("error %v", err)
				}
				if !keep && !tc.batchKeeps {
					if turn != nil || len(s.Contents()) != 0 {
						t.Fatalf("a batch's failed question was kept: %+v", turn)
					}
					if _, gerr := good.store.GetHistory(context.Background(), s.History().ID); !errors.Is(gerr, store.ErrNotFound) {
						t.Fatalf("a batch's failed question was stored: %v", gerr)
					}
					return
				}
				if turn == nil || !turn.Partial || turn.Answer != "" || turn.SaveErr != nil {
					t.Fatalf("turn %+v", turn)
				}
				h, gerr := good.store.GetHistory(context.Background(), s.History().ID)
				if gerr != nil {
					t.Fatalf("the question was not stored: %v", gerr)
				}
				if len(h.Contents) != 2 || h.Contents[0].Role != genai.RoleUser || h.Contents[0].Parts[0].Text != question {
					t.Fatalf("stored %s", mustJSON(t, h.Contents))
				}
				if r := h.Contents[1]; r.Role != genai.RoleModel || answerOf(r) != session.PartialMarker {
					t.Fatalf("stored reply %s", mustJSON(t, r))
				}
				if h.Title != "Who ran the binary on i-99999999?" || h.TitleSource != record.TitleFallback {
					t.Fatalf("title %q (%s)", h.Title, h.TitleSource)
				}

				// The conversation goes on from what is stored: the next request carries the
				// question and its reply cut short.
				next, err := session.New(session.Options{LLM: geminiModels(t, good), Store: good.store, Redactor: good.red,
					Model: "gemini-test", KeepUnanswered: true}, good.alert, h)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := next.Send(context.Background(), "ask again", nil); err != nil {
					t.Fatalf("the next question: %v", err)
				}
				req := good.srv.Requests()[len(good.srv.Requests())-1]
				if len(req.Contents) != 3 || req.Contents[0].Parts[0].Text != question || answerOf(req.Contents[1]) != session.PartialMarker {
					t.Fatalf("request %s", mustJSON(t, req.Contents))
				}
			})
		}
	}
}

// answerOf is a content's text, thoughts left out.
func answerOf(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// On a Gemini 3 model, Ctrl-C while a call runs ends the turn after the calls' responses with
// a reply marked cut short; the model takes the conversation on from there (the fake refuses
// what the API refuses: unsigned calls of the current turn, unanswered calls, empty parts).
func TestCutShortDuringCallsGemini3(t *testing.T) {
	t.Parallel()
	e := newEnv(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.LastUserText() == "go on" {
			return geminitest.Reply{Text: "carrying on"}
		}
		return geminitest.Reply{Text: "I will look it up.", Parts: []*genai.Part{call("slow", "", map[string]any{"q": "x"})}}
	}))
	slow := &echoTool{name: "slow", release: make(chan struct{}), started: make(chan struct{}, 1)}
	s := e.toolSession(t, func(o *session.Options) { o.Model, o.KeepUnanswered = "gemini-3.8-flash", true }, slow)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-slow.started
		cancel()
	}()
	turn, err := s.Send(ctx, "who is 203.0.113.7?", nil)
	if !errors.Is(err, context.Canceled) || turn == nil || !turn.Partial || len(turn.ToolCalls) != 1 {
		t.Fatalf("turn %+v, err %v", turn, err)
	}
	h, err := e.store.GetHistory(context.Background(), s.History().ID)
	if err != nil || len(h.Contents) != 4 {
		t.Fatalf("stored %v: %s", err, mustJSON(t, h.Contents))
	}
	if fr := h.Contents[2].Parts[0].FunctionResponse; fr == nil || fr.Response["error"] != "cancelled" {
		t.Fatalf("the call is not answered cancelled: %s", mustJSON(t, h.Contents[2]))
	}
	if r := h.Contents[3]; r.Role != genai.RoleModel || answerOf(r) != session.PartialMarker {
		t.Fatalf("the reply is not marked cut short: %s", mustJSON(t, r))
	}
	if _, err := s.Send(context.Background(), "go on", nil); err != nil {
		t.Fatalf("the model refused the conversation after the cut: %v", err)
	}
	req := e.srv.Requests()[len(e.srv.Requests())-1]
	if n := len(req.Contents); n != 5 || answerOf(req.Contents[3]) != session.PartialMarker {
		t.Fatalf("request %s", mustJSON(t, req.Contents))
	}
}
