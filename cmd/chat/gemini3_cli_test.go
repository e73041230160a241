package chat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/record"
)

type chatObject struct {
	HistoryID string `json:"history_id"`
	Title     string `json:"title"`
	Answer    string `json:"answer"`
	Usage     struct {
		InputTokens   int64 `json:"input_tokens"`
		OutputTokens  int64 `json:"output_tokens"`
		ThoughtTokens int64 `json:"thought_tokens"`
	} `json:"usage"`
	Error    *string `json:"error"`
	Complete bool    `json:"complete"`
}

func addAlertCLI(t *testing.T, dir string) string {
	t.Helper()
	out, errOut, code := clitest.Run(t, dir, `{"Title": "Drop point DNS", "AccountId": "783957204773"}`, "alert", "add", "-f", "-")
	if code != 0 {
		t.Fatalf("alert add: %s", errOut)
	}
	return strings.TrimSpace(out)
}

// gemini3Answers answers titles and questions as a Gemini 3 model would (the fake's Gemini 3
// mode: thinking counted against the output cap, the signed trailing part, the 404s).
func gemini3Answers() []geminitest.Option {
	return []geminitest.Option{geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Drop Point DNS Query"}
		}
		return geminitest.Reply{Text: "The instance queried a drop point."}
	})}
}

// A fresh install answers on a current model: the default is a Gemini 3 model the API
// serves, its title comes from the model (asked at the lowest level, with room to think, no
// temperature), and chat -o json reports the thinking apart from the answer.
func TestDefaultModelAnswers(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, gemini3Answers()...)
	dir := t.TempDir()
	alertID := addAlertCLI(t, dir)
	out, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), "chat", "-a", alertID, "-q", "What happened?", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got chatObject
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Answer != "The instance queried a drop point." || got.Title != "Drop Point DNS Query" || !got.Complete {
		t.Fatalf("%+v", got)
	}
	if got.Usage.ThoughtTokens != int64(geminitest.ThinkingTokens()[genai.ThinkingLevelMedium]) || got.Usage.OutputTokens != 9 {
		t.Fatalf("usage %+v: output is the answer's, thought the thinking's", got.Usage)
	}
	if !strings.Contains(out, `"thought_tokens"`) {
		t.Fatalf("no thought_tokens: %s", out)
	}
	for _, r := range srv.Requests() {
		if r.Model != "gemini-3.8-flash" {
			t.Fatalf("request for %s", r.Model)
		}
		g := r.GenerationConfig
		switch r.Kind {
		case geminitest.KindGenerateContent:
			if g == nil || g.ThinkingConfig == nil || g.ThinkingConfig.ThinkingLevel != genai.ThinkingLevelLow || g.Temperature != nil || g.ThinkingConfig.ThinkingBudget != nil {
				t.Fatalf("title request config %+v", g)
			}
		case geminitest.KindStreamGenerateContent:
			if g != nil && (g.ThinkingConfig != nil || g.Temperature != nil) {
				t.Fatalf("main request config %+v: the model's own level, no overrides", g)
			}
		}
	}
	// The history's usage metadata records the thinking, and history show says it.
	out, _, _ = clitest.Run(t, dir, "", "history", "show", got.HistoryID)
	if !strings.Contains(out, "thinking)") {
		t.Fatalf("history show:\n%s", out)
	}
}

// A retired model: one error line naming it and the models that can be used instead (from
// the API's list), exit 1, no retry of the 404, and the question saved in a history.
func TestRetiredModel(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, gemini3Answers()...)
	dir := t.TempDir()
	alertID := addAlertCLI(t, dir)
	run := clitest.FakeGemini(srv.URL())
	_, errOut, code := clitest.RunWith(t, dir, "", false, run, "--model", "gemini-2.5-flash", "--max-attempts", "4", "chat", "-a", alertID, "-q", "Is it bad?")
	want := `Error: Gemini model "gemini-2.5-flash" is not available (it is retired, or these credentials cannot use it); use one of: ` +
		"gemini-3.8-flash, gemini-3.7-flash, gemini-3.6-flash, gemini-3.5-flash-lite, gemini-3.1-flash-lite, gemini-3.1-pro-preview (--model or ALERTCHAT_MODEL; 'alertchat models' lists them all)\n"
	if code != 1 || errOut != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, want)
	}
	streamed := 0
	for _, r := range srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			streamed++
		}
	}
	if streamed != 1 {
		t.Fatalf("the 404 was sent %d times", streamed)
	}
	// The question is kept: saved in a history, its reply marked cut short.
	out, _, _ := clitest.RunWith(t, dir, "", false, run, "history", "list", "-o", "json")
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("histories: %v %s", err, out)
	}
	h, err := clitest.GetMeta(t, dir, record.HistoryID(list[0].ID))
	if err != nil || h.MessageCount != 2 {
		t.Fatalf("saved: %v %+v", err, h)
	}
	out, _, _ = clitest.Run(t, dir, "", "history", "show", list[0].ID)
	if !strings.Contains(out, "Is it bad?") {
		t.Fatalf("the question is not in the history:\n%s", out)
	}
	// -o json says the same, with the history that holds the question.
	out, _, code = clitest.RunWith(t, dir, "", false, run, "--model", "gemini-2.0-flash", "chat", "-a", alertID, "-q", "again", "-o", "json")
	var got chatObject
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 1 || got.Error == nil || !strings.Contains(*got.Error, `"gemini-2.0-flash" is not available`) || got.HistoryID == "" || got.Complete {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// --thinking sets the main answers' level; a level the model does not offer, or a word that is
// no level, is a usage error naming the ones it offers; a 2.5 model gets a budget, never both.
func TestThinkingFlag(t *testing.T) {
	t.Parallel()
	// Vertex AI may still serve a 2.5 model: here gemini-2.5-pro is not retired.
	models := geminitest.DefaultModels()
	for i := range models {
		if models[i].Name == "gemini-2.5-pro" {
			models[i].Retired = false
		}
	}
	srv := geminitest.NewServer(t, append(gemini3Answers(), geminitest.WithModels(models...))...)
	dir := t.TempDir()
	alertID := addAlertCLI(t, dir)
	run := clitest.FakeGemini(srv.URL())
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--thinking", "minimal"}, 2, `gemini-3.8-flash does not offer thinking level "minimal": it offers low, medium, high`},
		{[]string{"--thinking", "extreme"}, 2, "it offers low, medium, high"},
		{[]string{"--model", "gemini-3.5-flash-lite", "--thinking", "minimal"}, 0, ""},
		{[]string{"--thinking", "HIGH"}, 0, ""},
		{[]string{"--model", "gemini-2.5-pro", "--thinking", "low"}, 0, ""},
	} {
		before := len(srv.Requests())
		_, errOut, code := clitest.RunWith(t, dir, "", false, run, append(tc.args, "chat", "-a", alertID, "-q", "q", "--no-title-generation")...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		reqs := srv.Requests()[before:]
		if tc.code != 0 {
			if len(reqs) != 0 {
				t.Fatalf("%v: a usage error asked the model", tc.args)
			}
			continue
		}
		tcfg := reqs[0].GenerationConfig.ThinkingConfig
		switch tc.args[len(tc.args)-1] {
		case "minimal":
			if tcfg.ThinkingLevel != genai.ThinkingLevelMinimal || tcfg.ThinkingBudget != nil {
				t.Fatalf("%v: %+v", tc.args, tcfg)
			}
		case "HIGH":
			if tcfg.ThinkingLevel != genai.ThinkingLevelHigh {
				t.Fatalf("%v: %+v", tc.args, tcfg)
			}
		case "low":
			if tcfg.ThinkingLevel != "" || tcfg.ThinkingBudget == nil || *tcfg.ThinkingBudget != 1024 {
				t.Fatalf("%v: %+v", tc.args, tcfg)
			}
		}
	}
	// Another command is not affected by a level it does not use.
	if _, errOut, code := clitest.RunWith(t, dir, "", false, run, "--thinking", "extreme", "alert", "list"); code != 0 {
		t.Fatalf("alert list: exit %d: %s", code, errOut)
	}
}
