package samechat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/samechat"
)

func TestParseAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		n    int
		want []string // nil: an error
	}{
		{"1: SAME\n2: DIFFERENT", 2, []string{"SAME", "DIFFERENT"}},
		{"2: different\n1: same\n", 2, []string{"SAME", "DIFFERENT"}},
		{"**1**: SAME\n- 2. DIFFERENT\nConversation 3: DIFFERENT", 3, []string{"SAME", "DIFFERENT", "DIFFERENT"}},
		{"SAME", 1, []string{"SAME"}},
		{"Different.", 1, []string{"DIFFERENT"}},
		{"1: SAME", 2, nil},
		{"1: SAME\n1: DIFFERENT", 1, nil},
		{"I think they are related.", 1, nil},
		{"", 1, nil},
		{"4: SAME\n1: SAME", 1, []string{"SAME"}},
	}
	for _, tc := range tests {
		got, err := samechat.ParseAnswers(tc.text, tc.n)
		if tc.want == nil {
			if err == nil {
				t.Errorf("ParseAnswers(%q, %d) = %v, want an error", tc.text, tc.n, got)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("ParseAnswers(%q, %d) = %v, %v; want %v", tc.text, tc.n, got, err, tc.want)
		}
	}
}

func judgeHistory(id string, rev int64, title string, questions ...string) *record.History {
	h := &record.History{ID: record.HistoryID(id), Revision: rev, Title: title, AlertID: "a"}
	for _, q := range questions {
		h.Contents = append(h.Contents, genai.NewContentFromText(q, genai.RoleUser), genai.NewContentFromText("answer", genai.RoleModel))
	}
	h.MessageCount = len(h.Contents)
	return h
}

func judgeClient(t *testing.T, srv *geminitest.Server) *genai.Client {
	t.Helper()
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "test-key", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func TestJudgeMatchAndCache(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	var reply atomic.Value
	reply.Store(geminitest.Reply{Text: "1: DIFFERENT\n2: SAME\n3: SAME"})
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		calls.Add(1)
		return reply.Load().(geminitest.Reply)
	}))
	cachePath := filepath.Join(t.TempDir(), "sub", "judge-cache.json")
	j := &samechat.Judge{LLM: judgeClient(t, srv).Models, Model: "judge-model", Cache: samechat.NewJudgeCache(cachePath, 0)}
	cands := []*record.History{
		judgeHistory("h-new", 3, "Instance owner", "who owns i-99999999?"),
		judgeHistory("h-mid", 5, "DNS exfiltration", "is there exfiltration?", "how much data?", "to which domain?"),
		judgeHistory("h-old", 1, "Exfil again", "exfil?"),
		judgeHistory("h-too-old", 1, "never judged", "x"),
	}
	ctx := context.Background()
	loads := 0
	strip := func(ctx context.Context, h *record.History) (*record.History, error) { loads++; return h, nil }
	got, err := j.Match(ctx, "What volume was exfiltrated?", cands, strip)
	if err != nil || got == nil || got.ID != "h-mid" {
		t.Fatalf("Match = %v, %v; want the newest SAME, h-mid", got, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "judge-model" || reqs[0].Kind != geminitest.KindGenerateContent {
		t.Fatalf("%d judge requests", len(reqs))
	}
	prompt := reqs[0].LastUserText()
	for _, want := range []string{"What volume was exfiltrated?", "1. Title: Instance owner", "2. Title: DNS exfiltration", "- how much data?", "- to which domain?", "3. Title: Exfil again"} {
		if !strings.Contains(prompt, want) {
			t.Fatalf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "is there exfiltration?") || strings.Contains(prompt, "never judged") {
		t.Fatalf("prompt has more than the last two questions of the three newest:\n%s", prompt)
	}
	if !strings.Contains(reqs[0].SystemText(), "SAME") {
		t.Fatal("no system instruction")
	}

	// Cached by (question, history, revision): no call, even from a new cache on the same file.
	j.Cache = samechat.NewJudgeCache(cachePath, 0)
	got, err = j.Match(ctx, "  What volume  was exfiltrated?\n", cands, strip)
	if err != nil || got.ID != "h-mid" || calls.Load() != 1 {
		t.Fatalf("cached Match = %v, %v after %d calls", got, err, calls.Load())
	}
	st, err := os.Stat(cachePath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v, %v", st, err)
	}
	if data, _ := os.ReadFile(cachePath); strings.Contains(string(data), "exfiltrated") {
		t.Fatal("the cache file holds the question")
	}

	// A new revision is judged again, alone.
	cands[1] = judgeHistory("h-mid", 6, "DNS exfiltration", "is there exfiltration?", "how much data?", "and now?")
	reply.Store(geminitest.Reply{Text: "DIFFERENT"})
	got, err = j.Match(ctx, "What volume was exfiltrated?", cands, strip)
	if err != nil || got == nil || got.ID != "h-old" || calls.Load() != 2 {
		t.Fatalf("after a revision: %v, %v, %d calls", got, err, calls.Load())
	}
	if p := srv.Requests()[1].LastUserText(); strings.Contains(p, "2. Title") || !strings.Contains(p, "1. Title: DNS exfiltration") {
		t.Fatalf("second prompt:\n%s", p)
	}

	// A candidate whose last question is this question is the same conversation, no call.
	same := judgeHistory("h-repeat", 1, "Repeat", "earlier", "Is it malware?")
	got, err = j.Match(ctx, "Is it  malware?", []*record.History{same}, strip)
	if err != nil || got != same || calls.Load() != 2 {
		t.Fatalf("repeat: %v, %v, %d calls", got, err, calls.Load())
	}

	// Metadata-only candidates are loaded when they must be judged.
	meta := cands[0].Meta()
	loads = 0
	reply.Store(geminitest.Reply{Text: "SAME"})
	got, err = j.Match(ctx, "another question", []*record.History{meta}, func(ctx context.Context, h *record.History) (*record.History, error) {
		loads++
		return cands[0], nil
	})
	if err != nil || got != cands[0] || loads != 1 {
		t.Fatalf("loaded candidate: %v, %v, %d loads", got, err, loads)
	}
}

func TestJudgeFailuresMeanNoMatch(t *testing.T) {
	t.Parallel()
	cands := []*record.History{judgeHistory("h1", 1, "DNS", "is there exfiltration?")}
	for name, tc := range map[string]struct {
		reply   geminitest.Reply
		timeout time.Duration
	}{
		"error":       {reply: geminitest.Reply{Status: 500}},
		"unparsable":  {reply: geminitest.Reply{Text: "Possibly; they share a topic."}},
		"timeout":     {reply: geminitest.Reply{Hang: true}, timeout: 200 * time.Millisecond},
		"empty reply": {reply: geminitest.Reply{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply { return tc.reply }))
			cachePath := filepath.Join(t.TempDir(), "c.json")
			cache := samechat.NewJudgeCache(cachePath, 0)
			j := &samechat.Judge{LLM: judgeClient(t, srv).Models, Model: "m", Cache: cache, Timeout: tc.timeout}
			start := time.Now()
			got, err := j.Match(context.Background(), "how much?", cands, nil)
			if err == nil || got != nil {
				t.Fatalf("Match = %v, %v; want no match and an error", got, err)
			}
			if time.Since(start) > 5*time.Second {
				t.Fatal("the timeout was not applied")
			}
			if _, err := os.Stat(cachePath); err == nil {
				t.Fatal("a failure was cached")
			}
		})
	}
}

func TestJudgeCacheBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "judge-cache.json")
	c := samechat.NewJudgeCache(path, 10)
	for i := range 25 {
		c.Put(fmt.Sprintf("q%02d", i), record.HistoryID("h"), 1, samechat.AnswerSame)
		if i%5 == 4 {
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	again := samechat.NewJudgeCache(path, 10)
	kept := 0
	for i := range 25 {
		if _, ok := again.Get(fmt.Sprintf("q%02d", i), "h", 1); ok {
			kept++
		}
	}
	if kept != 10 {
		t.Fatalf("kept %d entries, want 10", kept)
	}
	if _, ok := again.Get("q24", "h", 1); !ok {
		t.Fatal("the newest entry was dropped")
	}
	// A corrupt file is an empty cache, and is rewritten.
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := samechat.NewJudgeCache(path, 10)
	if _, ok := broken.Get("q24", "h", 1); ok {
		t.Fatal("read an answer from a corrupt file")
	}
	broken.Put("q", "h", 2, samechat.AnswerDifferent)
	if err := broken.Save(); err != nil {
		t.Fatal(err)
	}
	if v, ok := samechat.NewJudgeCache(path, 10).Get("q", "h", 2); !ok || v != samechat.AnswerDifferent {
		t.Fatal("rewritten cache does not read back")
	}
	var nilCache *samechat.JudgeCache
	nilCache.Put("q", "h", 1, samechat.AnswerSame)
	if _, ok := nilCache.Get("q", "h", 1); ok || nilCache.Save() != nil {
		t.Fatal("a nil cache is not a no-op")
	}
}
