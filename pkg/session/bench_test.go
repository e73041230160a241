package session_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/local"
)

type benchStore interface {
	store.HistorySaver
}

type nopRedactor struct{}

func (nopRedactor) RedactContents([]*genai.Content) map[string]int { return nil }
func (nopRedactor) RedactString(s string) (string, map[string]int) { return s, nil }

var benchStores = []struct {
	name string
	open func(b *testing.B) benchStore
}{
	{"local", func(b *testing.B) benchStore {
		s, err := local.Open(context.Background(), local.Options{Dir: b.TempDir(), Workspace: "default"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}},
	{"cloud", func(b *testing.B) benchStore {
		_, _, handle := testenv.GCSBucket(b)
		s, err := cloud.New(cloud.Config{Firestore: testenv.Firestore(b), Bucket: handle, Workspace: "default"})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}},
}

var benchTranscripts = []struct {
	name     string
	contents func() []*genai.Content
}{
	{"10turns", func() []*genai.Content { return storetest.Transcript(20 * 4096)[:20] }},
	{"1MB", func() []*genai.Content { return storetest.Transcript(1 << 20) }},
}

func benchClient(b *testing.B, srv *geminitest.Server) *genai.Client {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "bench", HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client(),
	})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// BenchmarkTurnOverhead is a whole turn with a zero-latency model: request, streamed answer,
// redaction step and save. BenchmarkStoreSave is the store's own save of the same transcript,
// its yardstick.
func BenchmarkTurnOverhead(b *testing.B) {
	for _, st := range benchStores {
		for _, tr := range benchTranscripts {
			b.Run(st.name+"/"+tr.name, func(b *testing.B) {
				srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithHandler(func(*geminitest.Request) geminitest.Reply {
					return geminitest.Reply{Chunks: []string{"The instance ", "is compromised."}}
				}))
				benchTurns(b, st.open(b), tr.contents(), benchClient(b, srv).Models)
			})
		}
	}
}

// benchTurns times turns on a stored history of base, reset to base before each turn.
func benchTurns(b *testing.B, s benchStore, base []*genai.Content, llm llm.Generator) {
	h := storetest.NewHistory("alert", append([]*genai.Content(nil), base...))
	h.Title, h.TitleSource = "bench", record.TitleManual
	h.RedactedCount = len(base)
	if err := s.SaveHistory(context.Background(), h); err != nil {
		b.Fatal(err)
	}
	alert := &record.Alert{ID: "alert", Data: json.RawMessage(`{"Title":"bench"}`)}
	sess, err := session.New(session.Options{LLM: llm, Store: s, Redactor: nopRedactor{}, Model: "m"}, alert, h)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := store.EncodeTranscript(base)
	b.SetBytes(int64(len(data)))
	ctx := context.Background()
	for b.Loop() {
		sess.ResetTo(len(base))
		turn, err := sess.Send(ctx, "What next?", nil)
		if err != nil || turn.SaveErr != nil {
			b.Fatal(err, turn.SaveErr)
		}
	}
}

func BenchmarkStoreSave(b *testing.B) {
	for _, st := range benchStores {
		for _, tr := range benchTranscripts {
			b.Run(st.name+"/"+tr.name, func(b *testing.B) {
				s := st.open(b)
				contents := append(tr.contents(), genai.NewContentFromText("What next?", genai.RoleUser), genai.NewContentFromText("The instance is compromised.", genai.RoleModel))
				h := storetest.NewHistory("alert", contents)
				data, _ := store.EncodeTranscript(tr.contents())
				b.SetBytes(int64(len(data)))
				ctx := context.Background()
				for b.Loop() {
					if err := s.SaveHistory(ctx, h); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTimeToFirstToken compares the first token's delay with title generation on and off
// for a new history; the title call is made concurrently and must not delay the answer.
func BenchmarkTimeToFirstToken(b *testing.B) {
	for _, titles := range []bool{false, true} {
		name := "titlesOff"
		if titles {
			name = "titlesOn"
		}
		b.Run(name, func(b *testing.B) {
			srv := geminitest.NewServer(b, geminitest.WithoutRecording(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				if r.Kind == geminitest.KindGenerateContent {
					return geminitest.Reply{Text: "Bench Title"}
				}
				return geminitest.Reply{Chunks: []string{"first", " rest"}}
			}))
			s, err := local.Open(context.Background(), local.Options{Dir: b.TempDir(), Workspace: "default"})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			client := benchClient(b, srv)
			firstTokens(b, func() (*session.Session, error) {
				return session.New(session.Options{LLM: client.Models, Store: s, Redactor: nopRedactor{}, Model: "m", Titles: titles}, benchAlert, nil)
			})
		})
	}
}

var benchAlert = &record.Alert{ID: "alert", Data: json.RawMessage(`{"Title":"bench"}`)}

// firstTokens asks a question of a new session per iteration and reports the mean delay of the
// answer's first token.
func firstTokens(b *testing.B, newSession func() (*session.Session, error)) {
	var total time.Duration
	for b.Loop() {
		sess, err := newSession()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var first time.Duration
		if _, err := sess.Send(context.Background(), "What happened?", func(string) {
			if first == 0 {
				first = time.Since(start)
			}
		}); err != nil {
			b.Fatal(err)
		}
		total += first
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-to-first-token")
}

// instantLLM answers at no cost, to separate the session's own per-turn cost from the SDK's
// request serialisation and HTTP. Only for this measurement: tests use the fake server.
type instantLLM struct{}

func (instantLLM) GenerateContent(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText("Title", genai.RoleModel)}}}, nil
}

func (instantLLM) GenerateContentStream(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for _, t := range []string{"The instance ", "is compromised."} {
			if !yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(t, genai.RoleModel)}}}, nil) {
				return
			}
		}
	}
}

func BenchmarkTurnSessionOnly(b *testing.B) {
	for _, st := range benchStores[:1] {
		for _, tr := range benchTranscripts {
			b.Run(st.name+"/"+tr.name, func(b *testing.B) {
				benchTurns(b, st.open(b), tr.contents(), instantLLM{})
			})
		}
	}
}
