package session

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// idleLLM is never called: the benchmarks only build requests.
type idleLLM struct{}

func (idleLLM) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	panic("not called")
}

func (idleLLM) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	panic("not called")
}

type idleStore struct{}

func (idleStore) SaveHistory(context.Context, *record.History) error { return nil }

type idleRedactor struct{}

func (idleRedactor) RedactContents([]*genai.Content) map[string]int { return nil }
func (idleRedactor) RedactString(s string) (string, map[string]int) { return s, nil }

// longSession is a session on a transcript of turns question/answer pairs of about 100 tokens,
// every tenth with a function call and its response.
func longSession(tb testing.TB, turns, budget int) *Session {
	tb.Helper()
	h := &record.History{ID: "bench", AlertID: "a"}
	for i := range turns {
		h.Contents = append(h.Contents, genai.NewContentFromText(fmt.Sprintf("question %d %s", i, strings.Repeat("what does the log show ", 8)), genai.RoleUser))
		if i%10 == 0 {
			h.Contents = append(h.Contents,
				&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{genai.NewPartFromFunctionCall("lookup", map[string]any{"ip": "198.51.100.7"})}},
				&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{genai.NewPartFromFunctionResponse("lookup", map[string]any{"asn": 64500})}})
		}
		h.Contents = append(h.Contents, genai.NewContentFromText(fmt.Sprintf("answer %d %s", i, strings.Repeat("the beacon is regular ", 9)), genai.RoleModel))
	}
	h.RedactedCount = len(h.Contents)
	s, err := New(Options{LLM: idleLLM{}, Store: idleStore{}, Redactor: idleRedactor{}, Model: "m", MaxContextTokens: budget},
		&record.Alert{ID: "a", Data: json.RawMessage(`{"Title":"Drop point DNS"}`)}, h)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestShapeLongTranscript(t *testing.T) {
	t.Parallel()
	s := longSession(t, 10_000, 20_000)
	user := genai.NewContentFromText("next question", genai.RoleUser)
	contents, raw := s.shape([]*genai.Content{user}, s.budget())
	if raw > 20_000 || len(contents) < 100 || contents[len(contents)-1] != user || contents[0].Role != genai.RoleUser {
		t.Fatalf("%d contents, estimate %d", len(contents), raw)
	}
	if n := len(s.History().Contents); contents[len(contents)-2] != s.History().Contents[n-1] {
		t.Fatal("the newest turn is not in the request")
	}
}

// BenchmarkBuildRequest10kTurns builds the request for a new question from a 10,000-turn
// transcript, a turn being appended before each build as in a conversation: the estimates are
// cached, so each build estimates the new turn and searches.
func BenchmarkBuildRequest10kTurns(b *testing.B) {
	for _, budget := range []int{2_000, DefaultMaxContextTokens} {
		b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
			s := longSession(b, 10_000, budget)
			user := genai.NewContentFromText("next question", genai.RoleUser)
			s.shape([]*genai.Content{user}, s.budget()) // the first build fills the cache
			h := s.History()
			base := len(h.Contents)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if len(h.Contents) > base+20_000 { // bound the memory of long runs
					clear(h.Contents[base:])
					h.Contents = h.Contents[:base]
				}
				h.Contents = append(h.Contents,
					genai.NewContentFromText(fmt.Sprintf("q %d %s", i, strings.Repeat("what now ", 20)), genai.RoleUser),
					genai.NewContentFromText(fmt.Sprintf("a %d %s", i, strings.Repeat("this then ", 20)), genai.RoleModel))
				h.RedactedCount = len(h.Contents)
				s.shape([]*genai.Content{user}, s.budget())
			}
		})
	}
}

// BenchmarkBuildRequest10kTurnsCold is the first build on a resumed 10,000-turn transcript:
// every content is estimated once.
func BenchmarkBuildRequest10kTurnsCold(b *testing.B) {
	s := longSession(b, 10_000, DefaultMaxContextTokens)
	user := genai.NewContentFromText("next question", genai.RoleUser)
	for b.Loop() {
		s.cw = nil
		s.shape([]*genai.Content{user}, s.budget())
	}
}
