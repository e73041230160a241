package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
)

// benchQuestion holds values every redaction type path sees: two addresses and an e-mail.
const benchQuestion = "Is 203.0.113.7 malicious? It contacted evil@example.com from 198.51.100.23"

// BenchmarkTurnSave10MB is a whole turn (zero-cost model) on a stored 10 MB transcript with the
// real redaction engine: keyed tokens and the alert's values kept, as the command line builds
// it. The transcript is reset to the 10 MB base before each turn, so each turn's save copies
// and redacts only the new question and answer and writes the whole transcript.
func BenchmarkTurnSave10MB(b *testing.B) {
	tk, err := redact.NewTokenizer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		b.Fatal(err)
	}
	red := redacthist.Engine(redact.New(redact.AllTypes()...).WithTokens(tk))
	stores := append([]struct {
		name string
		open func(b *testing.B) benchStore
	}{
		{"noStore", func(*testing.B) benchStore { return noStore{} }},
		{"encodeOnly", func(*testing.B) benchStore { return encodeStore{} }},
	}, benchStores...)
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b)
			base := storetest.Transcript(10 << 20)
			h := storetest.NewHistory("alert", append([]*genai.Content(nil), base...))
			h.Title, h.TitleSource = "bench", record.TitleManual
			h.RedactedCount = len(base)
			if err := s.SaveHistory(context.Background(), h); err != nil {
				b.Fatal(err)
			}
			alert := &record.Alert{ID: "alert", Data: json.RawMessage(`{"Title":"bench","RemoteIp":"198.51.100.23"}`)}
			sess, err := session.New(session.Options{LLM: instantLLM{}, Store: s, Redactor: red, Model: "m"}, alert, h)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := store.EncodeTranscript(base)
			b.SetBytes(int64(len(data)))
			ctx := context.Background()
			for b.Loop() {
				sess.ResetTo(len(base))
				turn, err := sess.Send(ctx, benchQuestion, nil)
				if err != nil || turn.SaveErr != nil {
					b.Fatal(err, turn.SaveErr)
				}
			}
		})
	}
}

// encodeStore does the CPU work of a save (encoding the whole transcript) without I/O, so that
// the session's own cost is measured without the disk's noise.
type encodeStore struct{}

func (encodeStore) SaveHistory(_ context.Context, h *record.History) error {
	_, err := store.EncodeTranscript(h.Contents)
	return err
}

// noStore writes nothing: what is left is the session's own work on a turn (request, reply,
// copy and redaction of the new contents).
type noStore struct{}

func (noStore) SaveHistory(context.Context, *record.History) error { return nil }
