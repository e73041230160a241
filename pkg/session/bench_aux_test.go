package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/samechat"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// thoughtCounter sums the thinking tokens the model reports, apart for the main answers
// (streamed) and the auxiliary requests (titles, judgements, summaries: unary).
type thoughtCounter struct {
	llm.Generator
	mu              sync.Mutex
	main, aux       int64
	mainN, auxN     int
	auxLevels       map[genai.ThinkingLevel]int
	mainPromptBytes int
}

func (c *thoughtCounter) GenerateContent(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	resp, err := c.Generator.GenerateContent(ctx, model, contents, cfg)
	if err == nil && resp.UsageMetadata != nil {
		c.mu.Lock()
		c.aux += int64(resp.UsageMetadata.ThoughtsTokenCount)
		c.auxN++
		if cfg.ThinkingConfig != nil {
			c.auxLevels[cfg.ThinkingConfig.ThinkingLevel]++
		}
		c.mu.Unlock()
	}
	return resp, err
}

func (c *thoughtCounter) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for resp, err := range c.Generator.GenerateContentStream(ctx, model, contents, cfg) {
			if err == nil && resp.UsageMetadata != nil && len(resp.Candidates) > 0 && resp.Candidates[0].FinishReason != "" {
				c.mu.Lock()
				c.main += int64(resp.UsageMetadata.ThoughtsTokenCount)
				c.mainN++
				c.mu.Unlock()
			}
			if !yield(resp, err) {
				return
			}
		}
	}
}

// thinkingModel is the benchmark's model of how much Gemini 3 thinks: more at a higher level,
// and more for a larger task (the request's prompt, one token per four bytes), with a floor.
// Per 1,000 prompt tokens: MINIMAL 10, LOW 80, MEDIUM 500, HIGH 1,500 thinking tokens; at
// least 16, 40, 200, 400. (The recordings of real traffic in google/adk-go's testdata show
// 45 to 204 thinking tokens at the default level on prompts of 160 to 400 tokens.) It is an
// assumption, stated so that the ratio below can be judged: what alertchat controls is how
// many auxiliary requests there are, at which level, on how large a prompt.
func thinkingModel(level genai.ThinkingLevel, promptBytes int) int32 {
	rate := map[genai.ThinkingLevel]int{"MINIMAL": 10, "LOW": 80, "MEDIUM": 500, "HIGH": 1500}[level]
	floor := map[genai.ThinkingLevel]int{"MINIMAL": 16, "LOW": 40, "MEDIUM": 200, "HIGH": 400}[level]
	return int32(max(floor, rate*promptBytes/4/1000))
}

// BenchmarkAuxiliaryThinking: the thinking tokens a conversation's title, same-conversation
// judgement and summaries cost at the level alertchat asks for (the lowest gemini-3.8-flash
// offers, LOW), against the main answers' (the model's own level, MEDIUM), on the Gemini 3 fake.
// A conversation: the first question of a new conversation on a GuardDuty alert with three
// earlier conversations (title and judge), then five follow-ups in a request budget small
// enough that the older turns are summarised. "by-size" thinks as thinkingModel says; "flat"
// as the fake's ThinkingTokens (the same tokens at a level whatever the task: the worst case
// for short auxiliary tasks).
func BenchmarkAuxiliaryThinking(b *testing.B) {
	b.Run("by-size", func(b *testing.B) { benchAuxThinking(b, thinkingModel) })
	b.Run("flat", func(b *testing.B) { benchAuxThinking(b, nil) })
}

func benchAuxThinking(b *testing.B, model func(genai.ThinkingLevel, int) int32) {
	alertJSON, err := os.ReadFile("../../testdata/alerts/guardduty.json")
	if err != nil {
		b.Fatal(err)
	}
	alert := &record.Alert{ID: "alert-gd", Data: json.RawMessage(alertJSON)}
	srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithGemini3(),
		geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
			level := genai.ThinkingLevelMedium // gemini-3.8-flash's own
			if g := r.GenerationConfig; g != nil && g.ThinkingConfig != nil && g.ThinkingConfig.ThinkingLevel != "" {
				level = g.ThinkingConfig.ThinkingLevel
			}
			var thoughts int32 // 0: the fake's own, by level
			if model != nil {
				thoughts = model(level, len(r.SystemText())+len(mustJSONBench(r.Contents)))
			}
			switch {
			case r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "continues an earlier conversation"):
				return geminitest.Reply{Text: "1: DIFFERENT\n2: DIFFERENT\n3: DIFFERENT", ThoughtTokens: thoughts}
			case r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "running summary"):
				return geminitest.Reply{Text: "IOCs: 3322.org, i-99999999. Findings: DNS to a drop point. Decisions: isolate. Open questions: none.", ThoughtTokens: thoughts}
			case r.Kind == geminitest.KindGenerateContent:
				return geminitest.Reply{Text: "Drop Point DNS Query", ThoughtTokens: thoughts}
			}
			return geminitest.Reply{Text: strings.Repeat("The instance queried a known drop point; isolate it and review its IAM role. ", 12), ThoughtTokens: thoughts}
		}))
	client := benchClient(b, srv)
	earlier := []*record.History{
		judgeHistory("h1", 1, "Who launched the instance", "who launched i-99999999?"),
		judgeHistory("h2", 1, "IAM role review", "which role does the instance use?"),
		judgeHistory("h3", 1, "Cost anomaly", "why did the bill go up?"),
	}
	var main, aux int64
	var mainN, auxN int
	levels := map[genai.ThinkingLevel]int{}
	for b.Loop() {
		st, err := local.Open(context.Background(), local.Options{Dir: b.TempDir(), Workspace: "default"})
		if err != nil {
			b.Fatal(err)
		}
		counter := &thoughtCounter{Generator: client.Models, auxLevels: levels}
		judge := &samechat.Judge{LLM: counter, Model: "gemini-3.8-flash"}
		if _, err := judge.Match(context.Background(), "Is the DNS query to 3322.org malicious?", earlier, nil); err != nil {
			b.Fatal(err)
		}
		s, err := session.New(session.Options{LLM: counter, Store: st, Redactor: nopRedactor{}, Model: "gemini-3.8-flash", Titles: true,
			MaxContextTokens: 2000}, alert, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i, q := range []string{"Is the DNS query to 3322.org malicious?", "Which instance and account?", "What should we check in CloudTrail?",
			"Is there lateral movement?", "Draft the containment steps.", "Summarise for the incident ticket."} {
			if _, err := s.Send(context.Background(), q, nil); err != nil {
				b.Fatal(fmt.Errorf("question %d: %w", i+1, err))
			}
		}
		_ = st.Close()
		main, aux, mainN, auxN = main+counter.main, aux+counter.aux, mainN+counter.mainN, auxN+counter.auxN
	}
	n := float64(b.N)
	b.ReportMetric(float64(aux)/n, "aux-thought-tokens/conv")
	b.ReportMetric(float64(main)/n, "main-thought-tokens/conv")
	b.ReportMetric(float64(auxN)/n, "aux-requests/conv")
	b.ReportMetric(float64(mainN)/n, "main-requests/conv")
	b.ReportMetric(float64(aux)/float64(main), "aux/main")
	if levels[genai.ThinkingLevelLow] != auxN {
		b.Fatalf("auxiliary requests not all at LOW: %v of %d", levels, auxN)
	}
}

func mustJSONBench(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// judgeHistory is an earlier conversation for the same-conversation judge: the questions, each
// answered.
func judgeHistory(id string, rev int64, title string, questions ...string) *record.History {
	h := &record.History{ID: record.HistoryID(id), Revision: rev, Title: title, AlertID: "a"}
	for _, q := range questions {
		h.Contents = append(h.Contents, genai.NewContentFromText(q, genai.RoleUser), genai.NewContentFromText("answer", genai.RoleModel))
	}
	h.MessageCount = len(h.Contents)
	return h
}
