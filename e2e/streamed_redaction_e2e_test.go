package e2e_test

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// streamedAnswer is what the model answers, echoing the question's e-mail address, a
// connection string and an address at its very end.
const streamedAnswer = "Connect with postgres://admin:S3cr3tPassw0rd@db.internal and tell alice@example.com; the beacon went to 203.0.113.77"

// streamedRaw are the values of streamedAnswer and the pieces a stream could leave of them.
func streamedRaw() []string {
	raw := []string{"S3cr3tPassw0rd", "alice@example.com", "203.0.113.77"}
	for _, v := range []string{"S3cr3tPassw0rd", "203.0.113.77"} {
		for i := 0; i+5 <= len(v); i++ {
			raw = append(raw, v[i:i+5])
		}
	}
	return append(raw, "alic", "ice@ex")
}

// streamedReply streams text in pieces of a few characters, each piece a part of its own
// with a thought signature (as Gemini 3 signs ordinary text chunks), so that the boundaries
// fall inside the values; the last few characters come as unsigned chunks, cutting the
// address at the end. With broken, the stream fails after the pieces, in the middle of a value.
func streamedReply(text string, broken bool) geminitest.Reply {
	cut := len(text) - 4
	var parts []*genai.Part
	for i := 0; i < cut; i += 4 {
		e := min(i+4, cut)
		parts = append(parts, &genai.Part{Text: text[i:e], ThoughtSignature: []byte("g3sig:piece-" + text[i:e])})
	}
	if broken {
		return geminitest.Reply{Parts: parts, Status: 500, ErrorMessage: "stream broke"}
	}
	return geminitest.Reply{Parts: parts, Chunks: []string{text[cut : cut+2], text[cut+2:]}}
}

// TestStreamedAnswerRedactedWhole: a Gemini 3 answer streamed in pieces of a few characters,
// signed pieces cutting every value, is stored with no piece of a value on the local store
// (transcripts and search index) nor on the cloud store (transcript objects and metadata),
// the e-mail address with the token of the question's; the stored content is accepted when
// the conversation goes on; a stream that breaks inside a value stores no piece of it.
func TestStreamedAnswerRedactedWhole(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	handler := geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "DB credentials"}
		}
		q := r.LastUserText()
		switch {
		case strings.Contains(q, "break"):
			return streamedReply("The password is in postgres://admin:S3cr3tPassw0rd", true)
		case strings.Contains(q, "again"):
			return geminitest.Reply{Text: "noted"}
		}
		return streamedReply(streamedAnswer, false)
	})
	local := newGemini3CLI(t, handler)
	remote := newGemini3CLI(t, handler)
	remote.env = append(remote.env, cloud.Env()...)
	remote.env = append(remote.env, "ALERTCHAT_STORE_TIMEOUT=60s") // the emulator on a loaded machine
	const question = "Which database does alice@example.com use?"

	for _, c := range []*cli{local, remote} {
		alertID := c.addAlert("guardduty.json") // it holds none of the values
		got, r := c.askG3("-a", alertID, "-q", question)
		if r.code != 0 || !strings.Contains(got.Answer, "S3cr3tPassw0rd") {
			t.Fatalf("exit %d, answer %q: %s", r.code, got.Answer, r.stderr)
		}
		out := c.mustRun("", "history", "show", got.HistoryID, "-o", "json")
		var h struct {
			Contents []*genai.Content `json:"contents"`
		}
		if err := json.Unmarshal([]byte(out), &h); err != nil || len(h.Contents) != 2 {
			t.Fatalf("history show: %v %s", err, out)
		}
		qTok := emailToken.FindString(textOf(h.Contents[0]))
		aTok := emailToken.FindString(textOf(h.Contents[1]))
		if qTok == "" || aTok != qTok {
			t.Errorf("the e-mail address's token: question %q, answer %q", qTok, aTok)
		}
		if len(ipToken.FindAllString(textOf(h.Contents[1]), -1)) != 1 || !strings.Contains(textOf(h.Contents[1]), "postgres://admin:[REDACTED_SECRET_") {
			t.Errorf("stored answer: %q", textOf(h.Contents[1]))
		}
		for _, p := range h.Contents[1].Parts {
			if p.Text == "" && len(p.ThoughtSignature) == 0 {
				t.Errorf("an empty part was stored: %+v", h.Contents[1].Parts)
			}
		}
		// The parts of a content joined, as stored (a byte scan of the files would not see a
		// value whose pieces are stored as parts of their own).
		if c == local {
			noRawText(t, "local history", c.history(got.HistoryID).Contents)
		}
		// The stored content is sent back as it is: the fake checks its signatures and parts.
		if _, r := c.askG3("--history", got.HistoryID, "-q", "again?"); r.code != 0 {
			t.Errorf("going on with the stored conversation: exit %d: %s", r.code, r.stderr)
		}
		// A stream that breaks inside the connection string.
		broken, _ := c.askG3("-a", alertID, "-q", "break the stream")
		if broken.HistoryID == "" {
			t.Fatalf("the cut-short turn was not saved: %+v", broken)
		}
		if c == local {
			noRawText(t, "local cut-short history", c.history(broken.HistoryID).Contents)
		}
	}

	scanForRaw(t, filepath.Join(local.dataDir, "data"), streamedRaw())
	scanForRaw(t, filepath.Join(remote.dataDir, "data"), streamedRaw())
	ctx := context.Background()
	names := testenv.ObjectNames(t, cloud.BucketHandle(), "histories/")
	if len(names) != 2 {
		t.Fatalf("cloud transcripts: %v", names)
	}
	for _, name := range names {
		rd, err := cloud.BucketHandle().Object(name).NewReader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rd)
		rd.Close()
		contents, err := store.DecodeTranscript(record.HistoryID(strings.TrimSuffix(filepath.Base(name), ".json")), data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		noRawText(t, name, contents)
		for _, raw := range streamedRaw() {
			if strings.Contains(string(data), raw) {
				t.Errorf("%s holds %q", name, raw)
			}
		}
	}
	docs, err := cloud.Firestore.Collection("histories").Documents(ctx).GetAll()
	if err != nil || len(docs) != 2 {
		t.Fatalf("metadata documents: %v, %d", err, len(docs))
	}
	for _, d := range docs {
		data, _ := json.Marshal(d.Data())
		for _, raw := range streamedRaw() {
			if strings.Contains(string(data), raw) {
				t.Errorf("metadata %s holds %q", d.Ref.ID, raw)
			}
		}
	}
}

// noRawText fails when the text of a content, its parts joined, holds a piece of a value.
func noRawText(t *testing.T, where string, contents []*genai.Content) {
	t.Helper()
	for i, c := range contents {
		var all strings.Builder
		for _, p := range c.Parts {
			all.WriteString(p.Text)
		}
		for _, raw := range streamedRaw() {
			if strings.Contains(all.String(), raw) {
				t.Errorf("%s: content %d holds %q: %q", where, i, raw, all.String())
			}
		}
	}
}

func textOf(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
