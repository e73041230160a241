package eval_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/eval"
	"github.com/alertchat/alertchat/pkg/record"
)

// packCases reads the team's case pack.
func packCases(t *testing.T) []eval.Case {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := eval.ParseCases(data)
	if err != nil || len(cs) < 12 {
		t.Fatalf("case pack: %d cases, %v", len(cs), err)
	}
	return cs
}

// triager is a scripted Gemini: gemini-3.8-flash looks the alert's first indicator up with
// search_alerts, answers, and concludes the expected verdict citing that indicator and one
// value it never saw; gemini-3.7-flash answers without tools and always says benign.
func triager(t *testing.T, cases []eval.Case) (*geminitest.Server, *atomic.Int64) {
	var verdictRequests atomic.Int64
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			verdictRequests.Add(1)
			body := r.LastUserText()
			for _, c := range cases {
				if !strings.Contains(body, c.MustMention[0]) {
					continue
				}
				v := c.Verdict
				if r.Model == "gemini-3.7-flash" {
					v = record.VerdictBenign
				}
				return geminitest.Reply{Text: fmt.Sprintf(`{"verdict":%q,"conclusion":"Concluded.","evidence":[{"value":%q,"claim":"seen"},{"value":"192.0.2.254","claim":"made up"}]}`, v, c.MustMention[0])}
			}
			return geminitest.Reply{Status: 500, ErrorMessage: "no case matched"}
		}
		last := r.Contents[len(r.Contents)-1]
		if r.Model == "gemini-3.8-flash" && last.Parts[0].FunctionResponse == nil {
			for _, c := range cases {
				if strings.Contains(r.SystemText(), c.MustMention[0]) {
					return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_alerts", Args: map[string]any{"query": c.MustMention[0]}}}}}
				}
			}
		}
		return geminitest.Reply{Text: "Looked at it; the indicators are in the alert."}
	}))
	return srv, &verdictRequests
}

// Two models side by side on the case pack, against scripted verdicts: the figures are
// computed right, one verdict request per run beyond the investigation, nothing saved.
func TestEvalCasePack(t *testing.T) {
	t.Parallel()
	cases := packCases(t)
	srv, verdicts := triager(t, cases)
	dir := t.TempDir()
	out, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()),
		"--model", "gemini-3.8-flash,gemini-3.7-flash", "eval", "-f", filepath.Join("..", "..", "testdata", "eval", "cases.jsonl"), "-o", "json", "--concurrency", "6")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	benign := 0
	for _, c := range cases {
		if c.Verdict == record.VerdictBenign {
			benign++
		}
	}
	a, b := rep.Models[0], rep.Models[1]
	if !rep.Complete || a.Model != "gemini-3.8-flash" || a.Runs != len(cases) || a.Errors != 0 || a.Accuracy != 1 || a.Consistency != 1 {
		t.Errorf("A: %+v", a)
	}
	if b.Runs != len(cases) || b.Accuracy != float64(benign)/float64(len(cases)) || b.Confusion[record.VerdictTruePositive][record.VerdictBenign] == 0 {
		t.Errorf("B: %+v", b)
	}
	// Each run cites its first indicator (in the alert) and 192.0.2.254 (nowhere).
	if a.Cited != 2*len(cases) || a.Unsupported != len(cases) || a.UnsupportedEvidence != 0.5 {
		t.Errorf("A evidence %d of %d unsupported", a.Unsupported, a.Cited)
	}
	if a.MentionRecall == nil || *a.MentionRecall <= 0 || a.Tokens.Total == 0 || a.Tokens.Thought == 0 {
		t.Errorf("A mentions %v, tokens %+v", a.MentionRecall, a.Tokens)
	}
	for _, c := range rep.Cases {
		if len(c.Runs) != 2 || c.Runs[0].ToolCalls != 1 || c.Runs[1].ToolCalls != 0 {
			t.Errorf("case %s runs %+v", c.ID, c.Runs)
		}
	}
	if got := verdicts.Load(); got != int64(2*len(cases)) {
		t.Errorf("%d verdict requests for %d runs", got, 2*len(cases))
	}
	// Nothing is saved as a history without --save; the alerts were stored for the tools.
	hs, _, _ := clitest.Run(t, dir, "", "history", "list", "-o", "json")
	if strings.TrimSpace(hs) != "[]" {
		t.Errorf("histories saved without --save: %s", hs)
	}
	as, _, _ := clitest.Run(t, dir, "", "alert", "list", "-o", "json")
	var alerts []any
	if json.Unmarshal([]byte(as), &alerts) != nil || len(alerts) != len(cases) {
		t.Errorf("alerts stored: %s", as)
	}

	// --min-accuracy: the weaker model falls below it, exit 1 naming it; the table says the same.
	out, errOut, code = clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()),
		"--model", "gemini-3.8-flash,gemini-3.7-flash", "eval", "-f", filepath.Join("..", "..", "testdata", "eval", "cases.jsonl"), "--min-accuracy", "0.9")
	if code != 1 || !strings.Contains(errOut, "gemini-3.7-flash: accuracy") || strings.Contains(errOut, "gemini-3.8-flash: accuracy") ||
		!strings.Contains(out, "MODEL\tCASES") || !strings.Contains(out, "gemini-3.8-flash\t12\t12\t0\t100.0%") {
		t.Errorf("min-accuracy: exit %d\n%s\n%s", code, out, errOut)
	}
}

// --save keeps each investigation as a history; --from-history takes the resolved ones back
// as cases, the analyst's verdict their label.
func TestEvalSaveAndFromHistory(t *testing.T) {
	t.Parallel()
	cases := packCases(t)[:3]
	srv, _ := triager(t, cases)
	dir := t.TempDir()
	var lines []string
	for _, c := range cases {
		b, _ := json.Marshal(c)
		lines = append(lines, string(b))
	}
	file := clitest.WriteFile(t, "cases.jsonl", strings.Join(lines, "\n"))
	_, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), "--model", "gemini-3.8-flash", "eval", "-f", file, "--save", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, _, _ := clitest.Run(t, dir, "", "history", "list", "-o", "json")
	var hs []struct {
		ID      string `json:"id"`
		AlertID string `json:"alert_id"`
	}
	if err := json.Unmarshal([]byte(out), &hs); err != nil || len(hs) != 3 {
		t.Fatalf("saved histories: %s", out)
	}
	// Nothing resolved yet: no cases.
	_, errOut, code = clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), "eval", "--from-history")
	if code != 0 || !strings.Contains(errOut, "No cases to evaluate") {
		t.Fatalf("from an unresolved history: exit %d, %s", code, errOut)
	}
	for _, h := range hs[:2] {
		if _, e, c := clitest.Run(t, dir, "", "history", "resolve", h.ID, "--verdict", "benign"); c != 0 {
			t.Fatal(e)
		}
	}
	out, errOut, code = clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()), "--model", "gemini-3.7-flash", "eval", "--from-history", "-o", "json")
	var rep eval.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Cases) != 2 || rep.Models[0].Accuracy != 1 ||
		rep.Cases[0].Expected != record.VerdictBenign {
		t.Fatalf("from history: exit %d, %s, %s", code, out, errOut)
	}
}

// Bad input is exit 2 naming the line, before anything is asked; a model that does not exist
// is said once, not once per case, and exits 1.
func TestEvalBadInput(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithGemini3())
	for _, tc := range []struct {
		name, cases string
		args        []string
		want        string
		code        int
	}{
		{"not a case", "{\"alert_id\":\"abcdefgh\",\"verdict\":\"benign\"}\nhello\n", nil, "cases.jsonl: line 2: not a case", 2},
		{"unknown verdict", `{"alert":{"a":1},"verdict":"bad"}`, nil, `line 1: unknown verdict "bad"`, 2},
		{"unknown alert", `{"alert_id":"alert-doesnotexist","verdict":"benign"}`, nil, `line 1: no alert "alert-doesnotexist"`, 2},
		{"no source", "", []string{}, "-f FILE or --from-history", 2},
		{"repeat", `{"alert":{"a":1},"verdict":"benign"}`, []string{"--repeat", "0"}, "invalid --repeat", 2},
		{"min accuracy", `{"alert":{"a":1},"verdict":"benign"}`, []string{"--min-accuracy", "2"}, "invalid --min-accuracy", 2},
		{"output", `{"alert":{"a":1},"verdict":"benign"}`, []string{"-o", "yaml"}, "invalid output format", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"eval"}
			if tc.args == nil || len(tc.args) > 0 {
				args = append(args, "-f", clitest.WriteFile(t, "cases.jsonl", tc.cases))
			}
			args = append(args, tc.args...)
			before := len(srv.Requests())
			_, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, %q; want %d, %q", code, errOut, tc.code, tc.want)
			}
			if len(srv.Requests()) != before {
				t.Fatal("Gemini was asked")
			}
		})
	}

	var pack []string
	for i := range 5 {
		pack = append(pack, fmt.Sprintf(`{"alert":{"Title":"alert %d"},"verdict":"benign"}`, i))
	}
	file := clitest.WriteFile(t, "cases.jsonl", strings.Join(pack, "\n"))
	out, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), "--model", "gemini-0-nonexistent", "eval", "-f", file, "--concurrency", "1")
	if code != 1 || strings.Count(errOut+out, "gemini-0-nonexistent is not") > 2 || !strings.Contains(out, "gemini-0-nonexistent stopped") {
		t.Fatalf("unknown model: exit %d\n%s\n%s", code, out, errOut)
	}
}

// --evidence gives every investigation the evidence tools over the folder; what a tool read
// there supports the evidence cited. A folder that does not exist is exit 2 before anything
// is asked.
func TestEvalEvidence(t *testing.T) {
	t.Parallel()
	folder := t.TempDir()
	if err := os.WriteFile(filepath.Join(folder, "auth.log"), []byte("Nov 27 10:00:01 web02 sshd[811]: Accepted password for deploy from 198.51.100.77\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewServer(t, geminitest.WithGemini3(), geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			return geminitest.Reply{Text: `{"verdict":"true_positive","conclusion":"A login from outside.","evidence":[{"value":"198.51.100.77","claim":"the login's source"}]}`}
		}
		if last := r.Contents[len(r.Contents)-1]; last.Parts[0].FunctionResponse == nil {
			return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "grep_evidence", Args: map[string]any{"pattern": "Accepted password"}}}}}
		}
		return geminitest.Reply{Text: "deploy logged in from 198.51.100.77."}
	}))
	file := clitest.WriteFile(t, "cases.jsonl", `{"id":"ssh","alert":{"Title":"SSH login on web02"},"verdict":"true_positive","must_mention":["198.51.100.77"]}`)
	out, errOut, code := clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), "eval", "-f", file, "--evidence", folder, "-o", "json")
	var rep eval.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	run := rep.Cases[0].Runs[0]
	if !run.Correct || run.ToolCalls != 1 || run.Unsupported != 0 || len(run.Mentioned) != 1 {
		t.Fatalf("run %+v", run)
	}
	var declared bool
	for _, tl := range srv.Requests()[0].Tools {
		for _, fd := range tl.FunctionDeclarations {
			declared = declared || fd.Name == "grep_evidence"
		}
	}
	if !declared {
		t.Fatal("grep_evidence was not declared")
	}
	before := len(srv.Requests())
	_, errOut, code = clitest.RunWith(t, t.TempDir(), "", false, clitest.FakeGemini(srv.URL()), "eval", "-f", file, "--evidence", filepath.Join(folder, "nope"))
	if code != 2 || !strings.Contains(errOut, "does not exist") || len(srv.Requests()) != before {
		t.Fatalf("missing folder: exit %d, %s", code, errOut)
	}
}
