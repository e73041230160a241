package history_test

import (
	"encoding/json"
	"os"
	"os/user"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/analyst"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// listed is an element of history list -o json, as far as conclusions go.
type listed struct {
	ID         string   `json:"id"`
	Verdict    *string  `json:"verdict"`
	ResolvedAt *string  `json:"resolved_at"`
	ResolvedBy *string  `json:"resolved_by"`
	Analysts   []string `json:"analysts"`
}

func listJSON(t *testing.T, dir string, args ...string) []listed {
	t.Helper()
	out, errOut, code := clitest.Run(t, dir, "", append([]string{"history", "list", "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("history list %v: exit %d: %s", args, code, errOut)
	}
	var got []listed
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	return got
}

func listedIDs(ls []listed) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

func asked(alert record.AlertID, title string, at time.Time, analysts ...string) *record.History {
	h := clitest.NewHist(alert, title, at)
	for _, a := range analysts {
		h.Questions = append(h.Questions, record.Question{Content: len(h.Contents), Analyst: a, At: at})
		h.Contents = append(h.Contents, genai.NewContentFromText("question from "+a, genai.RoleUser), genai.NewContentFromText("answer", genai.RoleModel))
	}
	h.MessageCount = len(h.Contents)
	return h
}

func TestResolveAndReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	h := asked("alert-aaaaaaaaaa", "Port probe", now.Add(-time.Hour), "alice", "bob")
	other := asked("alert-aaaaaaaaaa", "Elsewhere", now, "mallory")
	clitest.SeedHistories(t, dir, "default", h)
	clitest.SeedHistories(t, dir, "other", other)

	// The note is redacted like every write; the name is cleaned of terminal controls.
	_, errOut, code := clitest.Run(t, dir, "", "--analyst", "car\x1b[31mol", "history", "resolve", string(h.ID)[:8],
		"--verdict", "false_positive", "--note", "Our scanner; its owner is scanner-team@example.com")
	if code != 0 {
		t.Fatalf("resolve: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "as false positive, by carol") || strings.Contains(errOut, "\x1b") {
		t.Errorf("stderr %q", errOut)
	}
	got, err := clitest.GetMeta(t, dir, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Resolution
	if r == nil || r.Verdict != record.VerdictFalsePositive || r.ResolvedBy != "carol" || time.Since(r.ResolvedAt) > time.Minute ||
		strings.Contains(r.Note, "scanner-team@example.com") || !strings.Contains(r.Note, "[REDACTED_EMAIL") || got.Redactions["EMAIL"] != 1 {
		t.Fatalf("stored %+v, redactions %v", r, got.Redactions)
	}
	if len(got.Contents) != len(h.Contents) || !got.UpdatedAt.Equal(h.UpdatedAt) {
		t.Fatalf("resolving changed the conversation: %d contents, updated %v", len(got.Contents), got.UpdatedAt)
	}
	ls := listJSON(t, dir)
	if len(ls) != 1 || ls[0].Verdict == nil || *ls[0].Verdict != "false_positive" || *ls[0].ResolvedBy != "carol" ||
		ls[0].ResolvedAt == nil || !slices.Equal(ls[0].Analysts, []string{"alice", "bob"}) {
		t.Fatalf("list: %+v", ls)
	}
	if _, err := time.Parse(time.RFC3339, *ls[0].ResolvedAt); err != nil {
		t.Fatalf("resolved_at %q", *ls[0].ResolvedAt)
	}

	// Bad input.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{string(h.ID), "--verdict", "malicious"}, 2, "true_positive, false_positive, benign, escalated, inconclusive"},
		// The contract's names exactly: another spelling is another word.
		{[]string{string(h.ID), "--verdict", "FALSE_POSITIVE"}, 2, "unknown verdict"},
		{[]string{string(h.ID), "--verdict", "false-positive"}, 2, "unknown verdict"},
		{[]string{string(h.ID), "--verdict", "false positive"}, 2, "unknown verdict"},
		{[]string{string(h.ID), "--verdict", ""}, 2, "--verdict true_positive"},
		{[]string{string(h.ID)}, 2, "--verdict true_positive"},
		{[]string{string(h.ID), "--verdict", "benign", "--suggest"}, 2, "not both"},
		{[]string{string(h.ID), "--verdict", "benign", "-y"}, 2, "-y"},
		{[]string{string(other.ID), "--verdict", "benign"}, 3, "no history"},
		{[]string{"00000000-0000-4000-8000-000000000000", "--verdict", "benign"}, 3, "no history"},
	} {
		_, errOut, code := clitest.Run(t, dir, "", append([]string{"history", "resolve"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("resolve %v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if o, err := clitest.OpenLocal(t, dir, "other").GetHistoryMeta(t.Context(), other.ID); err != nil || o.Resolution != nil {
		t.Fatalf("the other workspace's history: %v %+v", err, o)
	}

	// Resolved again: the new verdict replaces the old, which is named.
	_, errOut, code = clitest.Run(t, dir, "", "--analyst", "dave", "history", "resolve", string(h.ID), "--verdict", "escalated")
	if code != 0 || !strings.Contains(errOut, "(was false positive)") {
		t.Fatalf("resolve again: exit %d: %q", code, errOut)
	}
	_, errOut, code = clitest.Run(t, dir, "", "history", "reopen", string(h.ID))
	if code != 0 || !strings.Contains(errOut, "it was escalated") {
		t.Fatalf("reopen: exit %d: %q", code, errOut)
	}
	if ls := listJSON(t, dir); ls[0].Verdict != nil || ls[0].ResolvedBy != nil || ls[0].ResolvedAt != nil {
		t.Fatalf("reopened: %+v", ls[0])
	}
	before, _ := clitest.GetMeta(t, dir, h.ID)
	_, errOut, code = clitest.Run(t, dir, "", "history", "reopen", string(h.ID))
	after, _ := clitest.GetMeta(t, dir, h.ID)
	if code != 0 || !strings.Contains(errOut, "open already") || after.Revision != before.Revision {
		t.Fatalf("reopen an open history: exit %d, %q, revision %d -> %d", code, errOut, before.Revision, after.Revision)
	}
	if _, errOut, code := clitest.Run(t, dir, "", "history", "reopen", string(other.ID)); code != 3 {
		t.Fatalf("reopen another workspace's: exit %d, %q", code, errOut)
	}
}

// Without --analyst, on the local store, who resolves is user@host.
func TestResolvedByUserAtHost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := asked("alert-aaaaaaaaaa", "Port probe", store.Now())
	clitest.SeedHistories(t, dir, "default", h)
	if _, errOut, code := clitest.Run(t, dir, "", "history", "resolve", string(h.ID), "--verdict", "benign"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	got, _ := clitest.GetMeta(t, dir, h.ID)
	if want := analyst.Local(name, host); got.Resolution.ResolvedBy != want || !strings.Contains(want, "@") {
		t.Fatalf("resolved by %q, want %q", got.Resolution.ResolvedBy, want)
	}
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	h1 := asked("alert-aaaaaaaaaa", "one", now.Add(-4*time.Hour), "alice", "bob")
	h2 := asked("alert-aaaaaaaaaa", "two", now.Add(-3*time.Hour), "bob")
	h3 := asked("alert-bbbbbbbbbb", "three", now.Add(-2*time.Hour), "alice")
	h4 := asked("alert-bbbbbbbbbb", "four", now.Add(-1*time.Hour))
	clitest.SeedHistories(t, dir, "default", h1, h2, h3, h4)
	for _, r := range []struct {
		h *record.History
		v string
	}{{h1, "false_positive"}, {h3, "true_positive"}} {
		if _, errOut, code := clitest.Run(t, dir, "", "history", "resolve", string(r.h.ID), "--verdict", r.v); code != 0 {
			t.Fatalf("resolve: %s", errOut)
		}
	}
	ids := func(hs ...*record.History) []string {
		var out []string
		for _, h := range hs {
			out = append(out, string(h.ID))
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--verdict", "false_positive"}, ids(h1)},
		{[]string{"--verdict", "true_positive"}, ids(h3)},
		{[]string{"--open"}, ids(h4, h2)},
		{[]string{"--analyst", "alice"}, ids(h3, h1)},
		{[]string{"--analyst", "al\x07ice"}, ids(h3, h1)},
		{[]string{"--analyst", "bob", "--open"}, ids(h2)},
		{[]string{"-a", "alert-aaaaaaaaaa", "--open"}, ids(h2)},
		{[]string{"--analyst", "nobody"}, nil},
	} {
		if got := listedIDs(listJSON(t, dir, tc.args...)); !slices.Equal(got, tc.want) {
			t.Errorf("list %q: %v, want %v", tc.args, got, tc.want)
		}
	}
	// Search results carry the verdict.
	out, errOut, code := clitest.Run(t, dir, "", "history", "search", "question", "-o", "json")
	var found []struct {
		ID         string  `json:"id"`
		Verdict    *string `json:"verdict"`
		ResolvedBy *string `json:"resolved_by"`
	}
	if err := json.Unmarshal([]byte(out), &found); code != 0 || err != nil || len(found) != 3 {
		t.Fatalf("search: exit %d, %v, %q %q", code, err, out, errOut)
	}
	for _, f := range found {
		switch f.ID {
		case string(h1.ID):
			if f.Verdict == nil || *f.Verdict != "false_positive" || f.ResolvedBy == nil {
				t.Errorf("search result of a resolved history: %+v", f)
			}
		case string(h2.ID):
			if f.Verdict != nil || f.ResolvedBy != nil {
				t.Errorf("search result of an open history: %+v", f)
			}
		}
	}
	if !strings.Contains(out, `"verdict": null`) {
		t.Errorf("an open result must say null: %s", out)
	}
	// "history" alone takes them too.
	out, errOut, code = clitest.Run(t, dir, "", "history", "--open")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, string(h4.ID)) {
		t.Fatalf("history --open: exit %d, %q, %q", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--verdict", "bad"}, "use one of true_positive"},
		{[]string{"--verdict", "TRUE_POSITIVE"}, "use one of true_positive"},
		{[]string{"--verdict", "true positive"}, "use one of true_positive"},
		{[]string{"--verdict", ""}, "use one of true_positive"},
		{[]string{"--analyst", ""}, "invalid --analyst"},
		{[]string{"--verdict", "benign", "--open"}, "not both"},
		{[]string{"--analyst", "\x1b[2J"}, "invalid --analyst"},
	} {
		if _, errOut, code := clitest.Run(t, dir, "", append([]string{"history", "list"}, tc.args...)...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("list %q: exit %d, %q", tc.args, code, errOut)
		}
	}
	// On a terminal: the verdict column, and no raw control characters from a stored name.
	out, _, _ = clitest.RunTTY(t, dir, "", "history", "list", "--verdict", "false_positive")
	if !strings.Contains(out, "VERDICT") || !strings.Contains(out, "false positive") || strings.Contains(out, "open") {
		t.Fatalf("terminal list:\n%s", out)
	}
}

// history show names who asked each question, and the verdict; a hostile name is cleaned.
func TestShowNamesWhoAsked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := asked("alert-aaaaaaaaaa", "Port probe", store.Now(), "alice", "b\x1b]0;x\x07ob")
	clitest.SeedHistories(t, dir, "default", h)
	if _, errOut, code := clitest.Run(t, dir, "", "--analyst", "carol", "history", "resolve", string(h.ID), "--verdict", "benign", "--note", "A scheduled job."); code != 0 {
		t.Fatal(errOut)
	}
	text, _, _ := clitest.Run(t, dir, "", "history", "show", string(h.ID))
	for _, want := range []string{"You (alice):\nquestion from alice", "You (bob):", "verdict:  benign, by carol at ", "note:     A scheduled job."} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	md, _, _ := clitest.Run(t, dir, "", "history", "show", string(h.ID), "-o", "md")
	if !strings.Contains(md, "## You (alice)") || !strings.Contains(md, "- Verdict: benign, by carol") {
		t.Errorf("markdown:\n%s", md)
	}
	for _, out := range []string{text, md} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("raw control characters shown: %q", out)
		}
	}
	js, _, _ := clitest.Run(t, dir, "", "history", "show", string(h.ID), "-o", "json")
	var got struct {
		Verdict   string            `json:"verdict"`
		Note      string            `json:"note"`
		Questions []record.Question `json:"questions"`
		Analysts  []string          `json:"analysts"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil || got.Verdict != "benign" || got.Note != "A scheduled job." ||
		len(got.Questions) != 2 || got.Questions[1].Content != 2 || got.Analysts[0] != "alice" {
		t.Fatalf("json %v: %+v", err, got)
	}
}

// --suggest: Gemini proposes, and nothing is recorded without the analyst's yes (a terminal) or
// -y; where nobody can be asked and -y is missing, Gemini is not even asked.
func TestResolveSuggest(t *testing.T) {
	t.Parallel()
	const good = `{"verdict":"false_positive","conclusion":"The probes came from our own scanner at 203.0.113.7. Nothing else reached the instance."}`
	srv := geminitest.NewServer(t)
	run := func(dir string, tty bool, stdin string, args ...string) (string, int) {
		full := append([]string{"--model", "gemini-test", "--analyst", "alice", "history", "resolve"}, args...)
		_, errOut, code := clitest.RunWith(t, dir, stdin, tty, clitest.FakeGemini(srv.URL()), full...)
		return errOut, code
	}
	seed := func() (string, *record.History) {
		dir := t.TempDir()
		h := asked("alert-aaaaaaaaaa", "Port probe", store.Now(), "bob")
		clitest.SeedHistories(t, dir, "default", h)
		return dir, h
	}
	resolution := func(dir string, h *record.History) *record.Resolution {
		got, err := clitest.GetMeta(t, dir, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Resolution
	}

	dir, h := seed()
	before := len(srv.Requests())
	if errOut, code := run(dir, false, "", string(h.ID), "--suggest"); code != 2 || !strings.Contains(errOut, "-y") {
		t.Fatalf("no terminal, no -y: exit %d, %q", code, errOut)
	}
	if len(srv.Requests()) != before || resolution(dir, h) != nil {
		t.Fatal("asked Gemini or recorded without a way to confirm")
	}

	srv.Enqueue(geminitest.Reply{Text: good})
	errOut, code := run(dir, false, "", string(h.ID), "--suggest", "-y")
	r := resolution(dir, h)
	if code != 0 || r == nil || r.Verdict != record.VerdictFalsePositive || !r.Suggested || r.ResolvedBy != "alice" ||
		!strings.HasPrefix(r.Note, "The probes came from our own scanner at [REDACTED_IP_") || !strings.Contains(errOut, "Gemini suggests: false positive") {
		t.Fatalf("-y: exit %d, %q, %+v", code, errOut, r)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.GenerationConfig == nil || last.GenerationConfig.ResponseMIMEType != "application/json" || !strings.Contains(last.LastUserText(), "question from bob") {
		t.Fatalf("request: %+v", last.GenerationConfig)
	}

	// The note is written redacted: the suggestion's address becomes its token.
	const suggested = "The probes came from our own scanner at [REDACTED_IP_"
	for _, tc := range []struct {
		name, stdin string
		want        *record.Resolution
	}{
		{"yes", "y\n", &record.Resolution{Verdict: record.VerdictFalsePositive, Note: suggested}},
		{"no", "\n", nil},
		{"end of input", "", nil},
		{"end of input while editing", "e\nbenign\n", nil},
		{"edit", "e\nbenign\nA scheduled scan we run.\n", &record.Resolution{Verdict: record.VerdictBenign, Note: "A scheduled scan we run."}},
		{"edit, keep", "e\n\n\n", &record.Resolution{Verdict: record.VerdictFalsePositive, Note: suggested}},
		{"edit, a typo first", "e\nbenighn\nescalated\n-\n", &record.Resolution{Verdict: record.VerdictEscalated}},
	} {
		dir, h := seed()
		srv.Enqueue(geminitest.Reply{Text: good})
		errOut, code := run(dir, true, tc.stdin, string(h.ID), "--suggest")
		got := resolution(dir, h)
		switch {
		case tc.want == nil && got != nil:
			t.Errorf("%s: recorded %+v", tc.name, got)
		case tc.want != nil && (got == nil || got.Verdict != tc.want.Verdict || !strings.HasPrefix(got.Note, tc.want.Note) || tc.want.Note == "" && got.Note != "" || !got.Suggested):
			t.Errorf("%s: exit %d, %q: recorded %+v, want %+v", tc.name, code, errOut, got, tc.want)
		}
		if !strings.Contains(errOut, "Record it?") || code != 0 || (tc.want == nil) != strings.Contains(errOut, "Nothing recorded.") {
			t.Errorf("%s: exit %d: %q", tc.name, code, errOut)
		}
	}

	// Not the schema, twice: a clear error, exit 1, nothing recorded.
	dir, h = seed()
	srv.Enqueue(geminitest.Reply{Text: "I believe it is a false positive."}, geminitest.Reply{Text: `{"verdict":"maybe","conclusion":"x"}`})
	errOut, code = run(dir, false, "", string(h.ID), "--suggest", "-y")
	if code != 1 || !strings.Contains(errOut, "without a verdict and a conclusion") || !strings.Contains(errOut, "nothing was recorded") || resolution(dir, h) != nil {
		t.Fatalf("bad answers: exit %d, %q", code, errOut)
	}
}

// --suggest shows the evidence each conclusion rests on, and marks what appears neither in
// the alert nor in any tool result of the investigation (the model's own words do not count).
func TestResolveSuggestEvidence(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	dir := t.TempDir()
	h := asked("alert-aaaaaaaaaa", "Port probe", store.Now(), "bob")
	h.Contents = append(h.Contents,
		&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "search_alerts", Args: map[string]any{"query": "scanner"}}}}},
		&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "search_alerts",
			Response: map[string]any{"results": []any{map[string]any{"title": "Scanner vuln-scan-01 probing ports"}}}}}}},
		genai.NewContentFromText("It is vuln-scan-01, as 192.0.2.99 shows.", genai.RoleModel))
	h.MessageCount = len(h.Contents)
	clitest.SeedHistories(t, dir, "default", h)
	srv.Enqueue(geminitest.Reply{Text: `{"verdict":"false_positive","conclusion":"Our scanner.","evidence":[` +
		`{"value":"vuln-scan-01","claim":"the team's scanner"},{"value":"192.0.2.99","claim":"the scanner's address"}]}`})
	_, errOut, code := clitest.RunWith(t, dir, "", false, clitest.FakeGemini(srv.URL()),
		"--model", "gemini-test", "history", "resolve", string(h.ID), "--suggest", "-y")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "Evidence:\n  vuln-scan-01: the team's scanner\n") ||
		!strings.Contains(errOut, "! 192.0.2.99: the scanner's address  [unsupported: found neither in the alert nor in any tool result]") {
		t.Fatalf("evidence not shown as expected:\n%s", errOut)
	}
}
