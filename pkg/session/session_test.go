package session_test

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

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/local"
)

type env struct {
	srv   *geminitest.Server
	store *local.Store
	alert *record.Alert
	red   *countingRedactor
}

// countingRedactor replaces "secret" and records what it was asked to scan.
type countingRedactor struct {
	mu      sync.Mutex
	scanned int // contents scanned
}

func (r *countingRedactor) RedactContents(cs []*genai.Content) map[string]int {
	r.mu.Lock()
	r.scanned += len(cs)
	r.mu.Unlock()
	n := 0
	for _, c := range cs {
		for _, p := range c.Parts {
			if strings.Contains(p.Text, "secret") {
				p.Text = strings.ReplaceAll(p.Text, "secret", "[REDACTED_SECRET]")
				n++
			}
		}
	}
	return map[string]int{"SECRET": n}
}

func (r *countingRedactor) RedactString(s string) (string, map[string]int) {
	return strings.ReplaceAll(s, "secret", "[REDACTED_SECRET]"), map[string]int{"SECRET": strings.Count(s, "secret")}
}

func newEnv(t *testing.T, opts ...geminitest.Option) *env {
	t.Helper()
	srv := geminitest.NewServer(t, opts...)
	st, err := local.Open(context.Background(), local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &env{srv: srv, store: st, red: &countingRedactor{},
		alert: &record.Alert{ID: "alert-1", Data: json.RawMessage(`{"Title":"Drop point DNS","AccountId":"783957204773"}`)}}
}

func (e *env) session(t *testing.T, titles bool, h *record.History) *session.Session {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(session.Options{LLM: client.Models, Store: e.store, Redactor: e.red, Model: "gemini-test", Titles: titles}, e.alert, h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// routeTitles answers title requests (unary) with title and answers (streamed) with answer.
func routeTitles(title geminitest.Reply, answer func(*geminitest.Request) geminitest.Reply) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return title
		}
		return answer(r)
	})
}

func TestSendStreamsSavesAndTitles(t *testing.T) {
	t.Parallel()
	e := newEnv(t, routeTitles(geminitest.Reply{Text: "\"Drop Point DNS Query.\" 🚨"}, func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Chunks: []string{"It is ", "a DNS ", "query."},
			Usage: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 7, ThoughtsTokenCount: 3}}
	}))
	s := e.session(t, true, nil)
	ctx := context.Background()
	var chunks []string
	turn, err := s.Send(ctx, "What happened here?", func(c string) { chunks = append(chunks, c) })
	if err != nil {
		t.Fatal(err)
	}
	if turn.SaveErr != nil {
		t.Fatal(turn.SaveErr)
	}
	if strings.Join(chunks, "") != "It is a DNS query." || len(chunks) != 3 || turn.Answer != "It is a DNS query." {
		t.Fatalf("streamed %q, answer %q", chunks, turn.Answer)
	}
	if turn.Usage != (record.Usage{InputTokens: 100, OutputTokens: 7, ThoughtTokens: 3}) {
		t.Fatalf("usage %+v", turn.Usage)
	}
	h := s.History()
	if h.Title != "Drop Point DNS Query" || h.TitleSource != record.TitleGenerated {
		t.Fatalf("title %q (%s)", h.Title, h.TitleSource)
	}
	stored, err := e.store.GetHistory(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.Contents) != 2 || stored.Contents[1].Parts[0].Text != "It is a DNS query." || len(stored.Contents[1].Parts) != 1 {
		t.Fatalf("stored transcript: %s", mustJSON(t, stored.Contents))
	}
	if stored.Title != h.Title || stored.MessageCount != 2 || stored.Usage != turn.Usage || stored.AlertID != "alert-1" {
		t.Fatalf("stored metadata %+v", stored.Meta())
	}

	// The second turn carries the first, and the alert in the system instruction.
	if _, err := s.Send(ctx, "And now?", nil); err != nil {
		t.Fatal(err)
	}
	var answers []*geminitest.Request
	titles := 0
	for _, r := range e.srv.Requests() {
		switch r.Kind {
		case geminitest.KindStreamGenerateContent:
			answers = append(answers, r)
		case geminitest.KindGenerateContent:
			titles++
		}
	}
	if titles != 1 {
		t.Fatalf("%d title requests, want exactly 1", titles)
	}
	last := answers[len(answers)-1]
	if len(last.Contents) != 3 || last.Contents[0].Parts[0].Text != "What happened here?" || last.LastUserText() != "And now?" {
		t.Fatalf("second request contents: %s", mustJSON(t, last.Contents))
	}
	if !strings.Contains(last.SystemText(), `"AccountId":"783957204773"`) {
		t.Fatalf("alert missing from system instruction: %q", last.SystemText())
	}
	stored, _ = e.store.GetHistory(ctx, h.ID)
	if stored.MessageCount != 4 || stored.Usage.InputTokens != 200 {
		t.Fatalf("after two turns: %+v", stored.Meta())
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTitleDoesNotDelayFirstToken(t *testing.T) {
	t.Parallel()
	// The answer is not sent until the title has been asked, and the title is not answered
	// until the answer's first token has arrived: only a session that asks both at once gets
	// through; one that waits for either first fails at the deadline.
	const deadline = 10 * time.Second
	release := make(chan struct{})
	titleAsked := make(chan struct{})
	var stuck atomic.Value
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			close(titleAsked)
			select {
			case <-release:
			case <-time.After(deadline):
				stuck.Store("the title was asked before the answer and waited for it")
			}
			return geminitest.Reply{Text: "Slow Title"}
		}
		select {
		case <-titleAsked:
		case <-time.After(deadline):
			stuck.Store("the answer was sent before the title was asked")
		}
		return geminitest.Reply{Chunks: []string{"first", " second"}}
	}))
	s := e.session(t, true, nil)
	var once sync.Once
	turn, err := s.Send(context.Background(), "question", func(string) { once.Do(func() { close(release) }) })
	if err != nil || turn.SaveErr != nil {
		t.Fatal(err, turn.SaveErr)
	}
	if msg := stuck.Load(); msg != nil {
		t.Fatal(msg)
	}
	if s.History().Title != "Slow Title" {
		t.Fatalf("title %q", s.History().Title)
	}
}

func TestTitleFallbackAndIdempotence(t *testing.T) {
	t.Parallel()
	long := "Please check whether the instance i-99999999 talking to 3322.org is compromised\nsecond line"
	tests := []struct {
		name  string
		title geminitest.Reply
		want  string
		src   string
	}{
		{"error", geminitest.Reply{Status: 500, ErrorMessage: "boom"}, "Please check whether the instance i-99999999 talking to…", record.TitleFallback},
		{"junk", geminitest.Reply{Text: "  \"...\"  "}, "Please check whether the instance i-99999999 talking to…", record.TitleFallback},
		{"empty", geminitest.Reply{Text: ""}, "Please check whether the instance i-99999999 talking to…", record.TitleFallback},
		{"good", geminitest.Reply{Text: "Instance Compromise Check"}, "Instance Compromise Check", record.TitleGenerated},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, routeTitles(tc.title, func(*geminitest.Request) geminitest.Reply { return geminitest.Reply{Text: "answer"} }))
			s := e.session(t, true, nil)
			if _, err := s.Send(context.Background(), long, nil); err != nil {
				t.Fatal(err)
			}
			if s.History().Title != tc.want || s.History().TitleSource != tc.src {
				t.Fatalf("title %q (%s), want %q (%s)", s.History().Title, s.History().TitleSource, tc.want, tc.src)
			}
			if _, err := s.Send(context.Background(), "another question", nil); err != nil {
				t.Fatal(err)
			}
			if s.History().Title != tc.want {
				t.Fatal("title regenerated")
			}
			n := 0
			for _, r := range e.srv.Requests() {
				if r.Kind == geminitest.KindGenerateContent {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d title requests", n)
			}
		})
	}
}

func TestManualTitleSurvives(t *testing.T) {
	t.Parallel()
	e := newEnv(t, routeTitles(geminitest.Reply{Text: "Generated"}, func(*geminitest.Request) geminitest.Reply { return geminitest.Reply{Text: "a"} }))
	s := e.session(t, true, nil)
	if err := s.SetTitle(context.Background(), "  My\tcase  "); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), "q", nil); err != nil {
		t.Fatal(err)
	}
	if s.History().Title != "My case" || s.History().TitleSource != record.TitleManual {
		t.Fatalf("title %q (%s)", s.History().Title, s.History().TitleSource)
	}
	for _, r := range e.srv.Requests() {
		if r.Kind == geminitest.KindGenerateContent {
			t.Fatal("a title was generated for a manually titled history")
		}
	}
	if err := s.SetTitle(context.Background(), " \n "); !errors.Is(err, session.ErrInvalidTitle) {
		t.Fatalf("empty title: %v", err)
	}
}

func TestModelContentKeptWhole(t *testing.T) {
	t.Parallel()
	parts := []*genai.Part{
		{Text: "thinking...", Thought: true},
		{Text: " more", Thought: true, ThoughtSignature: []byte{9, 8, 7}},
		{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{"ip": "192.0.2.1"}}},
	}
	e := newEnv(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		return geminitest.Reply{Parts: parts, Text: "visible answer"}
	}))
	s := e.session(t, false, nil)
	var shown strings.Builder
	turn, err := s.Send(context.Background(), "q", func(c string) { shown.WriteString(c) })
	if err != nil {
		t.Fatal(err)
	}
	if shown.String() != "visible answer" || turn.Answer != "visible answer" {
		t.Fatalf("thoughts leaked into the answer: %q", shown.String())
	}
	got := s.History().Contents[1].Parts
	if len(got) != 4 {
		t.Fatalf("parts: %s", mustJSON(t, got))
	}
	if got[0].Text != "thinking..." || string(got[1].ThoughtSignature) != string([]byte{9, 8, 7}) || got[2].FunctionCall == nil || got[3].Text != "visible answer" {
		t.Fatalf("order or signatures changed: %s", mustJSON(t, got))
	}
	// Without tools the call cannot run, but it is answered, so the conversation goes on.
	if c := s.History().Contents; len(c) != 3 || c[2].Parts[0].FunctionResponse == nil || c[2].Parts[0].FunctionResponse.Response["error"] == nil {
		t.Fatalf("the call is not answered: %s", mustJSON(t, c))
	}
	if _, err := s.Send(context.Background(), "next", nil); err != nil {
		t.Fatalf("the next question: %v", err)
	}
}

func TestModelFailureKeepsTranscript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.srv.Enqueue(geminitest.Reply{Text: "first answer"})
	s := e.session(t, false, nil)
	ctx := context.Background()
	if _, err := s.Send(ctx, "one", nil); err != nil {
		t.Fatal(err)
	}
	e.srv.Enqueue(geminitest.Reply{Status: 503, ErrorMessage: "overloaded"})
	if _, err := s.Send(ctx, "two", nil); err == nil {
		t.Fatal("want an error")
	}
	if len(s.History().Contents) != 2 {
		t.Fatalf("failed turn changed the transcript: %d contents", len(s.History().Contents))
	}
	// A failure mid-stream keeps what arrived.
	e.srv.Enqueue(geminitest.Reply{Chunks: []string{"partial ", "answer"}, Status: 500, ErrorMessage: "cut"})
	turn, err := s.Send(ctx, "three", nil)
	if err == nil || turn == nil || !turn.Partial || turn.Answer != "partial answer" {
		t.Fatalf("mid-stream failure: %v %+v", err, turn)
	}
	stored, err := e.store.GetHistory(ctx, s.History().ID)
	if err != nil || len(stored.Contents) != 4 || stored.Contents[3].Parts[0].Text != "partial answer" {
		t.Fatalf("partial answer not saved: %v", err)
	}
	// Blocked questions are reported as such.
	e.srv.Enqueue(geminitest.Reply{BlockReason: "SAFETY"})
	if _, err := s.Send(ctx, "four", nil); !errors.Is(err, session.ErrBlocked) {
		t.Fatalf("blocked: %v", err)
	}
}

func TestCancelKeepsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.session(t, false, nil)
	e.srv.Enqueue(geminitest.Reply{Chunks: []string{"a", "b", "c", "d"}, ChunkDelay: 200 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	turn, err := s.Send(ctx, "slow", func(string) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
	if turn == nil || !turn.Partial || turn.SaveErr != nil {
		t.Fatalf("partial turn not kept and saved: %+v", turn)
	}
	if _, err := s.Send(context.Background(), "next", nil); err != nil {
		t.Fatalf("session unusable after cancel: %v", err)
	}
}

func TestSaveFailureKeepsTurnAndRedactsIncrementally(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.session(t, false, nil)
	ctx := context.Background()
	if _, err := s.Send(ctx, "my secret is here", nil); err != nil {
		t.Fatal(err)
	}
	if e.red.scanned != 2 {
		t.Fatalf("scanned %d contents, want 2", e.red.scanned)
	}
	// Another writer saves the same transcript first: this session's save conflicts, finds
	// the stored transcript to be an earlier state of its own, and saves on top of it.
	other, err := e.store.GetHistory(ctx, s.History().ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SaveHistory(ctx, other); err != nil {
		t.Fatal(err)
	}
	turn, err := s.Send(ctx, "second", nil)
	if err != nil {
		t.Fatal(err)
	}
	if turn.SaveErr != nil || turn.ForkedFrom != "" || s.History().ID != other.ID || s.History().Revision != 3 {
		t.Fatalf("save after a metadata-only save: err %v, forked from %q, revision %d", turn.SaveErr, turn.ForkedFrom, s.History().Revision)
	}
	if len(s.History().Contents) != 4 || e.red.scanned != 4 {
		t.Fatalf("contents %d, scanned %d", len(s.History().Contents), e.red.scanned)
	}
	h := s.History()
	// The question, the echoed answer and the fallback title each held one.
	if h.Redactions["SECRET"] != 3 || strings.Contains(h.Title, "secret") || !strings.Contains(h.Contents[0].Parts[0].Text, "[REDACTED_SECRET]") {
		t.Fatalf("redaction not applied/counted: %v %q", h.Redactions, h.Contents[0].Parts[0].Text)
	}
}

func TestTitleFunctions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Suspicious DNS Query", "Suspicious DNS Query"},
		{"\"Suspicious DNS Query.\"", "Suspicious DNS Query"},
		{"Title: **Drop Point Domain** 🔥\nextra", "Drop Point Domain"},
		{"不審なDNS通信の調査。", "不審なDNS通信の調査"},
		{"「認証情報の窃取」", "認証情報の窃取"},
		{"...", ""},
		{"", ""},
		{strings.Repeat("word ", 40), ""},
		{strings.Repeat("あ", 70), ""}, // 140 columns: a paragraph, not a title
		{strings.Repeat("あ", 40), strings.Repeat("あ", 29) + "…"},
		{"Suspicious Outbound Connections From Production Database Server To Unknown Hosts", "Suspicious Outbound Connections From Production Database…"},
		// bidirectional overrides and escape sequences from the model are never kept
		{"Login from \u202eeulav\u202c and \u2066x\u2069", "Login from eulav and x"},
		{"\x1b]0;owned\x07Phishing \x1b[31mreport\x1b[0m", "Phishing report"},
	} {
		if got := session.CleanGeneratedTitle(tc.in); got != tc.want {
			t.Errorf("CleanGeneratedTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"short question", "short question"},
		{"\n\n  first line  \nsecond", "first line"},
		{"Is the EC2 instance i-99999999 compromised by the malware that queried 3322.org?", "Is the EC2 instance i-99999999 compromised by the malware…"},
		{strings.Repeat("日本語", 20), strings.Repeat("日本語", 9) + "日本…"},
		{"EC2インスタンスi-99999999が3322.orgに問い合わせたマルウェアに侵害されたか調べてください", "EC2インスタンスi-99999999が3322.orgに問い合わせたマルウェア…"},
		{"averyveryverylongwordwithoutanyspacesthatgoesonandonandonandonandonandon", "averyveryverylongwordwithoutanyspacesthatgoesonandonandonan…"},
		{"👨‍👩‍👧 " + strings.Repeat("👍🏽", 40), "👨‍👩‍👧 " + strings.Repeat("👍🏽", 28) + "…"},
	} {
		got := session.FallbackTitle(tc.in)
		if got != tc.want {
			t.Errorf("FallbackTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := format.Width(got); n > session.MaxTitleWidth {
			t.Errorf("FallbackTitle(%q) is %d columns", tc.in, n)
		}
	}
}

// Titles ask at the lowest level the model offers, with room for it and no temperature on
// Gemini 3; a 2.5 model (named by a user, Vertex AI may still serve one) gets its least budget
// and the temperature, never a level.
func TestTitleThinkingFitsTheModel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model  string
		level  genai.ThinkingLevel
		budget int32 // -1: none
		temp   bool
	}{
		{"gemini-3.8-flash", genai.ThinkingLevelLow, -1, false},
		{"gemini-3.5-flash-lite", genai.ThinkingLevelMinimal, -1, false},
		{"gemini-3.1-pro-preview", genai.ThinkingLevelLow, -1, false},
		{"gemini-2.5-flash", "", 0, true},
		{"gemini-2.5-pro", "", 128, true},
	} {
		e := newEnv(t, routeTitles(geminitest.Reply{Text: "A Title"}, func(*geminitest.Request) geminitest.Reply { return geminitest.Reply{Text: "a"} }))
		client, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: e.srv.URL()}, HTTPClient: e.srv.Client()})
		if err != nil {
			t.Fatal(err)
		}
		s, err := session.New(session.Options{LLM: client.Models, Store: e.store, Redactor: e.red, Model: tc.model, Titles: true}, e.alert, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Send(context.Background(), "q", nil); err != nil {
			t.Fatal(err)
		}
		for _, r := range e.srv.Requests() {
			if r.Kind != geminitest.KindGenerateContent {
				continue
			}
			g := r.GenerationConfig
			tcfg := g.ThinkingConfig
			budgetOK := tc.budget < 0 && tcfg.ThinkingBudget == nil || tc.budget >= 0 && tcfg.ThinkingBudget != nil && *tcfg.ThinkingBudget == tc.budget
			if tcfg.ThinkingLevel != tc.level || !budgetOK || (g.Temperature != nil) != tc.temp || g.MaxOutputTokens < 64 {
				t.Fatalf("%s: title config %+v, thinking %+v", tc.model, g, tcfg)
			}
		}
	}
}

// TestManyChunksJoinInLinearTime streams a long answer in many small chunks: it is joined into
// one text part, byte for byte.
func TestManyChunksJoinInLinearTime(t *testing.T) {
	t.Parallel()
	chunks := make([]string, 20000)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("w%05d ", i)
	}
	e := newEnv(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply { return geminitest.Reply{Chunks: chunks} }))
	s := e.session(t, false, nil)
	turn, err := s.Send(context.Background(), "long", nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := s.History().Contents[1].Parts
	if len(parts) != 1 || parts[0].Text != strings.Join(chunks, "") || turn.Answer != parts[0].Text {
		t.Fatalf("%d parts, text of %d bytes", len(parts), len(parts[0].Text))
	}
}
