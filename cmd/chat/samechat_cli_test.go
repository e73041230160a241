package chat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/transcript"
)

func TestHistoryShowSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	contents := []*genai.Content{
		genai.NewContentFromText("first question", genai.RoleUser), genai.NewContentFromText("first answer", genai.RoleModel),
		genai.NewContentFromText("second question", genai.RoleUser), genai.NewContentFromText("second answer", genai.RoleModel),
	}
	h := clitest.NewHist("alert-0001", "Summarised", store.Now(), contents...)
	h.Summary = &record.Summary{Text: "IOCs: none.", CoversCount: 2, CreatedAt: store.Now()}
	plain := clitest.NewHist("alert-0001", "Plain", store.Now(), contents...)
	clitest.SeedHistories(t, dir, "default", h, plain)

	out, _, code := clitest.Run(t, dir, "", "history", "show", string(h.ID))
	if code != 0 || !strings.Contains(out, "summary:  the first 2 of 4 messages are summarised") || !strings.Contains(out, "first question") {
		t.Fatalf("text:\n%s", out)
	}
	out, _, _ = clitest.Run(t, dir, "", "history", "show", string(h.ID), "-o", "md")
	if !strings.Contains(out, "- Summary: the first 2 of 4 messages") || !strings.Contains(out, "first answer") {
		t.Fatalf("markdown:\n%s", out)
	}
	out, _, _ = clitest.Run(t, dir, "", "history", "show", string(h.ID), "-o", "json")
	var got transcript.JSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Summary == nil || got.Summary.Text != "IOCs: none." || len(got.Contents) != 4 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	out, _, _ = clitest.Run(t, dir, "", "history", "show", string(plain.ID))
	if strings.Contains(out, "summary:") {
		t.Fatalf("a history without a summary shows one:\n%s", out)
	}
}

// TestOneShotOfferOnTerminal: a one-shot question on a terminal is offered the matching
// conversation (prompt on stderr, answer on stdin); without a terminal nothing is judged.
func TestOneShotOfferOnTerminal(t *testing.T) {
	var judged atomic.Int64
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case r.Kind == geminitest.KindGenerateContent && strings.Contains(r.SystemText(), "continues an earlier conversation"):
			judged.Add(1)
			return geminitest.Reply{Text: "1: SAME\n2: DIFFERENT\n3: DIFFERENT"}
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "A Title"}
		}
		return geminitest.Reply{Text: "answer"}
	}))
	env := clitest.FakeGemini(srv.URL())
	dir := t.TempDir()
	alertOut, _, _ := clitest.Run(t, dir, `{"Title":"x"}`, "alert", "add", "-f", "-")
	alertID := strings.TrimSpace(alertOut)

	chat := func(tty bool, stdin, q string) (chatResult, string) {
		t.Helper()
		var out, errOut bytes.Buffer
		ios := &cmdutil.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut, StdinTTY: tty, StdoutTTY: tty, StderrTTY: tty, NoColor: true}
		if code := cmd.RunWith(context.Background(), []string{"alertchat", "--data-dir", dir, "chat", "-o", "json", "-a", alertID, "-q", q}, ios, env); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		var got chatResult
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got, errOut.String()
	}
	first, _ := chat(false, "", "first question")
	second, _ := chat(false, "", "second question")
	if second.HistoryID == first.HistoryID || judged.Load() != 0 {
		t.Fatalf("without a terminal: %s, %d judgements", second.HistoryID, judged.Load())
	}

	got, stderr := chat(true, "y\n", "follow-up")
	if got.HistoryID != second.HistoryID || !strings.Contains(stderr, "Ask it again there, with that conversation's context? [y/N]") || !strings.Contains(stderr, "Continuing") {
		t.Fatalf("accepted offer: %s (want %s, %d judgements); stderr %q", got.HistoryID, second.HistoryID, judged.Load(), stderr)
	}
	got, stderr = chat(true, "\n", "another follow-up")
	if got.HistoryID == second.HistoryID || got.HistoryID == first.HistoryID || !strings.Contains(stderr, "Ask it again there") {
		t.Fatalf("declined offer: %s; stderr %q", got.HistoryID, stderr)
	}
}

// chatResult is chat -o json's object.
type chatResult struct {
	HistoryID string  `json:"history_id"`
	AlertID   string  `json:"alert_id"`
	Title     string  `json:"title"`
	Answer    string  `json:"answer"`
	Error     *string `json:"error"`
	Complete  bool    `json:"complete"`
}
