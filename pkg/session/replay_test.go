package session_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/httprr"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/tool"
)

// The replay tests drive alertchat's own reply assembly and call loop with recordings of real
// Gemini API traffic that nobody on this team wrote: google/adk-go's
// internal/llminternal/testdata/TestParallelFunctionCalls_*.httprr (Copyright Google LLC,
// Apache License 2.0, https://github.com/google/adk-go), recorded through go-genai in 2026 on
// gemini-3-flash-preview, gemini-3.1-pro-preview and gemini-2.5-flash. They are not copied
// here: the test takes them from the module google.golang.org/adk@v1.7.0, which `go mod
// download` brings from the module proxy into the module cache (skipped without it, failing
// under CI=true).
const (
	adkModule  = "google.golang.org/adk"
	adkVersion = "v1.7.0"
)

// sumTool is the recordings' tool: it adds two integers.
type sumTool struct{}

func (sumTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: "sum", Description: "sums two integers", Parameters: &genai.Schema{Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{"a": {Type: genai.TypeInteger}, "b": {Type: genai.TypeInteger}}, Required: []string{"a", "b"}}}
}

func (sumTool) Call(_ context.Context, args map[string]any) map[string]any {
	a, _ := args["a"].(float64)
	b, _ := args["b"].(float64)
	return map[string]any{"sum": a + b}
}

// jsonValue decodes v's JSON into plain values, for comparisons that ignore key order.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Each recorded conversation (two questions, each answered after three parallel calls) is
// replayed to the real SDK; alertchat's session runs the calls and sends each request itself.
// Every request it builds carries exactly the contents the recorded request carried: the
// model's content as received (calls with their ids and the first one's signature, the signed
// trailing part of a Gemini 3.1 Pro answer, no unsigned empty part), and each functionResponse
// with its call's id and name. The stored transcript is that content, and usage counts the
// recorded thinking apart.
func TestReplayParallelFunctionCalls(t *testing.T) {
	t.Parallel()
	dir := httprr.Module(t, adkModule, adkVersion)
	for _, tc := range []struct {
		model    string
		ids      bool // calls carry ids (Gemini 3)
		signed   bool // the text answers end with a signed empty part
		thoughts int64
	}{
		{"gemini-3-flash-preview", true, false, 45 + 106},
		{"gemini-3.1-pro-preview", true, true, 204 + 75 + 154 + 80},
		{"gemini-2.5-flash", false, false, 77 + 76},
	} {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			ex := httprr.Load(t, dir, "internal/llminternal/testdata/TestParallelFunctionCalls_test_parallel_function_calls_"+tc.model+".httprr")
			if len(ex) != 4 {
				t.Fatalf("%d exchanges", len(ex))
			}
			questions := []string{recordedText(t, ex[0], 0), recordedText(t, ex[2], -1)}
			replay := httprr.NewReplay(t, ex)
			e := newEnv(t)
			client, err := genai.NewClient(context.Background(), &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "k", HTTPOptions: genai.HTTPOptions{BaseURL: replay.URL()}})
			if err != nil {
				t.Fatal(err)
			}
			reg, err := tool.NewRegistry(sumTool{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := session.New(session.Options{LLM: client.Models, Store: e.store, Redactor: nopRedactor{}, Model: tc.model, Tools: reg}, e.alert, nil)
			if err != nil {
				t.Fatal(err)
			}
			var usage int64
			for i, q := range questions {
				turn, err := s.Send(context.Background(), q, nil)
				if err != nil {
					t.Fatalf("question %d: %v (mismatches: %v)", i+1, err, replay.Mismatches())
				}
				if len(turn.ToolCalls) != 3 || !strings.Contains(turn.Answer, []string{"13", "130"}[i]) {
					t.Fatalf("question %d: %+v", i+1, turn)
				}
				usage += turn.Usage.ThoughtTokens
			}
			if m := replay.Mismatches(); len(m) > 0 {
				t.Fatal(m)
			}
			got := replay.Requests()
			for k := range ex {
				want, err := ex[k].Contents()
				if err != nil {
					t.Fatal(err)
				}
				sent, err := got[k].Contents()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(sent, want) {
					t.Fatalf("request %d differs from the recorded one:\n sent %s\n want %s", k+1, mustJSON(t, sent), mustJSON(t, want))
				}
			}
			// The transcript is what the last recorded request carries, then the last answer.
			stored, err := e.store.GetHistory(context.Background(), s.History().ID)
			if err != nil {
				t.Fatal(err)
			}
			last, _ := ex[3].Contents()
			if len(stored.Contents) != len(last)+1 || !reflect.DeepEqual(jsonValue(t, stored.Contents[:len(last)]), jsonValue(t, last)) {
				t.Fatalf("stored transcript:\n%s\nrecorded:\n%s", mustJSON(t, stored.Contents), mustJSON(t, last))
			}
			for _, i := range []int{1, 5} {
				calls := stored.Contents[i].Parts
				if len(calls) != 3 || len(calls[0].ThoughtSignature) == 0 || len(calls[1].ThoughtSignature) != 0 || len(calls[2].ThoughtSignature) != 0 {
					t.Fatalf("calls content %d: %s", i, mustJSON(t, stored.Contents[i]))
				}
				for k, p := range calls {
					if (len(p.FunctionCall.ID) == 8) != tc.ids || stored.Contents[i+1].Parts[k].FunctionResponse.ID != p.FunctionCall.ID {
						t.Fatalf("call %d of content %d: id %q, response id %q", k, i, p.FunctionCall.ID, stored.Contents[i+1].Parts[k].FunctionResponse.ID)
					}
				}
			}
			answer := stored.Contents[len(stored.Contents)-1].Parts
			if trailing := answer[len(answer)-1]; (trailing.Text == "" && len(trailing.ThoughtSignature) > 0) != tc.signed {
				t.Fatalf("the answer's trailing part: %s", mustJSON(t, answer))
			}
			if usage != tc.thoughts || stored.Usage.ThoughtTokens != tc.thoughts {
				t.Fatalf("thought tokens %d (stored %d), recorded %d", usage, stored.Usage.ThoughtTokens, tc.thoughts)
			}
		})
	}
}

// recordedText is the text of the recorded request's content i (negative: from the end).
func recordedText(t *testing.T, ex httprr.Exchange, i int) string {
	t.Helper()
	var body struct {
		Contents []*genai.Content `json:"contents"`
	}
	if err := json.Unmarshal(ex.RequestBody, &body); err != nil {
		t.Fatal(err)
	}
	if i < 0 {
		i += len(body.Contents)
	}
	return body.Contents[i].Parts[0].Text
}
