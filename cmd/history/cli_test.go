package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

func TestHistoryList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	oldest := clitest.NewHist("alert-aaaaaaaaaa", "Oldest", now.Add(-3*time.Hour), genai.NewContentFromText("q", genai.RoleUser))
	middle := clitest.NewHist("alert-bbbbbbbbbb", "Middle\tone", now.Add(-2*time.Hour))
	middle.ParentID = oldest.ID
	newest := clitest.NewHist("alert-aaaaaaaaaa", "Newest", now.Add(-time.Hour),
		genai.NewContentFromText("q", genai.RoleUser), genai.NewContentFromText("a", genai.RoleModel))
	newest.Usage = record.Usage{InputTokens: 1000, OutputTokens: 234}
	clitest.SeedHistories(t, dir, "default", oldest, middle, newest)
	clitest.SeedHistories(t, dir, "other", clitest.NewHist("alert-aaaaaaaaaa", "Elsewhere", now))

	out, errOut, code := clitest.Run(t, dir, "", "history", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := strings.Join([]string{
		strings.Join([]string{string(newest.ID), "Newest", "alert-aaaaaaaaaa", format.RFC3339(newest.UpdatedAt), "2", "1234"}, "\t"),
		strings.Join([]string{string(middle.ID), "Middle one", "alert-bbbbbbbbbb", format.RFC3339(middle.UpdatedAt), "0", "0"}, "\t"),
		strings.Join([]string{string(oldest.ID), "Oldest", "alert-aaaaaaaaaa", format.RFC3339(oldest.UpdatedAt), "1", "0"}, "\t"),
	}, "\n") + "\n"
	if out != want {
		t.Fatalf("piped list:\n got %q\nwant %q", out, want)
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
	// "history" alone is "history list", flags included.
	if bare, _, code := clitest.Run(t, dir, "", "history"); code != 0 || bare != want {
		t.Fatalf("bare history: exit %d, %q", code, bare)
	}

	ids := func(args ...string) []string {
		t.Helper()
		out, errOut, code := clitest.Run(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "" {
				got = append(got, strings.SplitN(line, "\t", 2)[0])
			}
		}
		return got
	}
	for _, tc := range []struct {
		args []string
		want []record.HistoryID
	}{
		{[]string{"history", "list", "-a", "alert-aaaaaaaaaa"}, []record.HistoryID{newest.ID, oldest.ID}},
		{[]string{"history", "list", "--alert", "alert-bbbbbbbbbb"}, []record.HistoryID{middle.ID}},
		{[]string{"history", "-a", "alert-bbbbbbbbbb"}, []record.HistoryID{middle.ID}},
		{[]string{"history", "list", "-a", "no-such-alert"}, nil},
		{[]string{"history", "list", "--limit", "2"}, []record.HistoryID{newest.ID, middle.ID}},
		{[]string{"history", "--limit", "1"}, []record.HistoryID{newest.ID}},
		{[]string{"history", "list", "--limit", "1", "-a", "alert-aaaaaaaaaa"}, []record.HistoryID{newest.ID}},
		{[]string{"--workspace", "other", "history", "list", "-a", "alert-bbbbbbbbbb"}, nil},
	} {
		got := ids(tc.args...)
		var w []string
		for _, id := range tc.want {
			w = append(w, string(id))
		}
		if !slices.Equal(got, w) {
			t.Errorf("%v: got %v, want %v", tc.args, got, w)
		}
	}
	if got := ids("--workspace", "other", "history", "list"); len(got) != 1 || got[0] == string(newest.ID) {
		t.Errorf("other workspace lists %v", got)
	}

	out, _, code = clitest.Run(t, dir, "", "history", "list", "-o", "json")
	if code != 0 {
		t.Fatalf("-o json: exit %d", code)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("-o json: %v: %q", err, out)
	}
	if len(list) != 3 {
		t.Fatalf("-o json: %d entries", len(list))
	}
	base := []string{"alert_id", "analysts", "created_at", "id", "message_count", "resolved_at", "resolved_by", "title", "tool_calls", "triage", "triage_agreed", "updated_at", "usage", "verdict"}
	for i, h := range []*record.History{newest, middle, oldest} {
		keys := make([]string, 0, len(list[i]))
		for k := range list[i] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		wantKeys := base
		if h.ParentID != "" {
			wantKeys = []string{"alert_id", "analysts", "created_at", "id", "message_count", "parent_id", "resolved_at", "resolved_by", "title", "tool_calls", "triage", "triage_agreed", "updated_at", "usage", "verdict"}
		}
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("entry %d keys %v, want %v", i, keys, wantKeys)
		}
		if list[i]["id"] != string(h.ID) || list[i]["alert_id"] != string(h.AlertID) || list[i]["title"] != h.Title ||
			list[i]["created_at"] != format.RFC3339(h.CreatedAt) || list[i]["updated_at"] != format.RFC3339(h.UpdatedAt) ||
			list[i]["message_count"] != float64(h.MessageCount) {
			t.Errorf("entry %d = %v", i, list[i])
		}
		if _, err := time.Parse(time.RFC3339, list[i]["updated_at"].(string)); err != nil || !strings.HasSuffix(list[i]["updated_at"].(string), "Z") {
			t.Errorf("updated_at %v is not RFC 3339 UTC", list[i]["updated_at"])
		}
	}
	if u := list[0]["usage"].(map[string]any); u["input_tokens"] != 1000.0 || u["output_tokens"] != 234.0 {
		t.Errorf("usage = %v", u)
	}
	if list[1]["parent_id"] != string(oldest.ID) {
		t.Errorf("parent_id = %v", list[1]["parent_id"])
	}

	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"history", "list", "--limit", "0"}, 2},
		{[]string{"history", "list", "-o", "yaml"}, 2},
		{[]string{"history", "list", "extra"}, 2},
		{[]string{"history", "nosuch"}, 2},
	} {
		out, errOut, code := clitest.Run(t, dir, "", tc.args...)
		if code != tc.code || out != "" || !strings.HasPrefix(errOut, "Error: ") {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", tc.args, code, tc.code, out, errOut)
		}
	}
}

func TestHistoryListEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := clitest.Run(t, dir, "", "history", "list", "-o", "json")
	if code != 0 || out != "[]\n" {
		t.Fatalf("empty -o json: exit %d, %q", code, out)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "list")
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("empty piped list: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code = clitest.RunTTY(t, dir, "", "history")
	if code != 0 || out != "" || !strings.Contains(errOut, "No histories") || !strings.Contains(errOut, "alertchat chat") {
		t.Fatalf("empty terminal list: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code = clitest.RunTTY(t, dir, "", "history", "list", "-o", "json")
	if code != 0 || out != "[]\n" {
		t.Fatalf("empty terminal -o json: exit %d, %q, %q", code, out, errOut)
	}
}

func TestHistoryListTTY(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := clitest.NewHist("0123456789abcdef-alert", "Shown to people", store.Now().Add(-2*time.Hour))
	h.Usage = record.Usage{InputTokens: 1100, OutputTokens: 100}
	h.MessageCount = 4
	clitest.SeedHistories(t, dir, "default", h)
	out, errOut, code := clitest.RunTTY(t, dir, "", "history", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || strings.Contains(out, "\t") {
		t.Fatalf("not a table: %q", out)
	}
	if got := strings.Fields(lines[0]); !slices.Equal(got, []string{"ID", "TITLE", "ALERT", "UPDATED", "MSGS", "TOKENS", "VERDICT"}) {
		t.Fatalf("header %q", lines[0])
	}
	row := lines[1]
	if !strings.HasPrefix(row, string(h.ID)[:8]+" ") || strings.Contains(row, string(h.ID)) {
		t.Errorf("row does not start with the short ID: %q", row)
	}
	for _, want := range []string{"Shown to people", " 01234567 ", "2h ago", " 4 ", "1.2k"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	if strings.Contains(row, "0123456789") {
		t.Errorf("alert ID not shortened: %q", row)
	}
}

// showFixture stores a history with every part kind, a hostile model text, redactions and
// usage, and returns it.
func showFixture(t *testing.T, dir string) *record.History {
	t.Helper()
	contents := storetest.EveryPartKind()
	contents = append(contents, genai.NewContentFromText("Colour: \x1b[31mred\x1b]0;title\x07 and \u009b2J done\u202e", genai.RoleModel))
	h := clitest.NewHist("alert-0001", "DNS to a \x1b[2Jbad domain", store.Now().Add(-time.Hour), contents...)
	h.Usage = record.Usage{InputTokens: 1234, OutputTokens: 56}
	h.Redactions = map[string]int{"IP": 1, "EMAIL": 2}
	clitest.SeedHistories(t, dir, "default", h)
	return h
}

func assertNoControls(t *testing.T, name, s string) {
	t.Helper()
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == '\u202e' {
			t.Errorf("%s: control character %U in output", name, r)
			return
		}
	}
}

func TestHistoryShowText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := showFixture(t, dir)
	out, errOut, code := clitest.Run(t, dir, "", "history", "show", string(h.ID))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	assertNoControls(t, "text", out)
	for _, want := range []string{
		"DNS to a bad domain\n",
		"id:       " + string(h.ID) + "\n",
		"alert:    alert-0001\n",
		"created:  " + format.RFC3339(h.CreatedAt) + "\n",
		"updated:  " + format.RFC3339(h.UpdatedAt) + "\n",
		"messages: 5\n",
		"tokens:   1.3k (1234 in, 56 out)\n",
		"redacted: EMAIL 2, IP 1\n",
		"\nYou:\nWhat does this alert mean? 日本語も\n[inline data: image/png, 8 bytes]\n[file: gs://bucket/report.pdf]\n",
		"\nGemini:\n[thought] Let me think.\n" + `-> call lookup_ip({"ip":"192.0.2.1","nested":{"list":["a",1.5,true,null]}})` + "\n",
		`<- lookup_ip: {"output":{"asn":64500,"country":"JP"}}` + "\n",
		"```python\nprint(1+1)\n```\n[code result: OUTCOME_OK]\n2\nThe instance queried a known bad domain.\n",
		"Gemini:\nColour: red and 2J done\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "You:\n") != 2 || strings.Count(out, "Gemini:\n") != 3 {
		t.Errorf("blocks per content wrong:\n%s", out)
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
}

func TestHistoryShowMarkdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := showFixture(t, dir)
	out, errOut, code := clitest.Run(t, dir, "", "history", "show", string(h.ID), "-o", "md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	assertNoControls(t, "md", out)
	if !strings.HasPrefix(out, "# DNS to a bad domain\n\n- ID: `"+string(h.ID)+"`\n- Alert: `alert-0001`\n") {
		t.Errorf("md header:\n%s", out)
	}
	for _, want := range []string{
		"- Messages: 5\n", "- Tokens: 1.3k (1234 in, 56 out)\n", "- Redacted: EMAIL 2, IP 1\n",
		"\n## You\n\nWhat does this alert mean? 日本語も\n",
		"\n## Gemini\n\n> *Thought:*\n> Let me think.\n",
		"-> call `lookup_ip`\n\n```json\n{\"ip\":\"192.0.2.1\"",
		"<- `lookup_ip`\n\n```json\n{\"output\"",
		"\n```python\nprint(1+1)\n```\n",
		"Code result (OUTCOME_OK):\n\n```\n2\n```\n",
		"*[inline data: image/png, 8 bytes]*", "*[file: `gs://bucket/report.pdf`]*",
		"Colour: red and 2J done\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("md output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n## You\n") != 2 || strings.Count(out, "\n## Gemini\n") != 3 {
		t.Errorf("sections per content wrong:\n%s", out)
	}
	if strings.Count(out, "```")%2 != 0 {
		t.Errorf("unbalanced fences:\n%s", out)
	}
}

func TestHistoryShowJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := showFixture(t, dir)
	out, errOut, code := clitest.Run(t, dir, "", "history", "show", string(h.ID)[:8], "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"alert_id", "analysts", "contents", "created_at", "id", "message_count", "note", "questions", "redactions", "resolved_at", "resolved_by", "title", "tool_approvals", "triage", "triage_agreed", "updated_at", "usage", "verdict"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	var redactions map[string]int
	var usage record.Usage
	_ = json.Unmarshal(got["redactions"], &redactions)
	_ = json.Unmarshal(got["usage"], &usage)
	if !reflect.DeepEqual(redactions, h.Redactions) || usage != h.Usage || string(got["id"]) != `"`+string(h.ID)+`"` {
		t.Errorf("metadata: %s %s %s", got["redactions"], got["usage"], got["id"])
	}
	// The contents are the transcript exactly as the SDK marshals it (stored text unchanged).
	var gotContents, wantContents any
	wantJSON, _ := json.Marshal(h.Contents)
	_ = json.Unmarshal(wantJSON, &wantContents)
	if err := json.Unmarshal(got["contents"], &gotContents); err != nil || !reflect.DeepEqual(gotContents, wantContents) {
		t.Fatalf("contents differ:\n got %s\nwant %s", got["contents"], wantJSON)
	}
	var back []*genai.Content
	if err := json.Unmarshal(got["contents"], &back); err != nil || !bytes.Equal(back[1].Parts[0].ThoughtSignature, []byte{1, 2, 3, 4, 0, 200}) {
		t.Fatalf("contents do not decode as genai.Content: %v", err)
	}

	// No redactions, no contents: {} and [], never null; only an open history's conclusion (and
	// the triage proposal it does not have) is.
	empty := clitest.NewHist("alert-0001", "empty", store.Now())
	clitest.SeedHistories(t, dir, "default", empty)
	out, _, _ = clitest.Run(t, dir, "", "history", "show", string(empty.ID), "-o", "json")
	open := strings.NewReplacer(`"verdict": null`, "", `"resolved_at": null`, "", `"resolved_by": null`, "", `"note": null`, "", `"triage": null`, "", `"triage_agreed": null`, "").Replace(out)
	if !strings.Contains(out, `"redactions": {}`) || !strings.Contains(out, `"contents": []`) || !strings.Contains(out, `"analysts": []`) ||
		!strings.Contains(out, `"questions": []`) || strings.Contains(open, "null") {
		t.Fatalf("empty history JSON: %s", out)
	}
}

func TestLookupHistoryID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := clitest.NewHist("alert-1", "first twin", store.Now())
	a.ID = "aaaaaaaa-0000-4000-8000-000000000001"
	b := clitest.NewHist("alert-1", "second twin", store.Now())
	b.ID = "aaaaaaaa-0000-4000-8000-000000000002"
	c := clitest.NewHist("alert-1", "loner", store.Now())
	c.ID = "cccccccc-1111-4000-8000-000000000003"
	clitest.SeedHistories(t, dir, "default", a, b, c)
	clitest.SeedHistories(t, dir, "other", clitest.NewHist("alert-1", "hidden", store.Now()))

	tests := []struct {
		name      string
		ws        string
		arg       string
		wantCode  int
		wantTitle string
		wantErr   []string
	}{
		{"full ID", "default", string(a.ID), 0, "first twin", nil},
		{"unique 8 prefix", "default", "cccccccc", 0, "loner", nil},
		{"unique long prefix", "default", "aaaaaaaa-0000-4000-8000-00000000000", 2, "", []string{string(a.ID), string(b.ID)}},
		{"unique longer prefix", "default", "aaaaaaaa-0000-4000-8000-000000000002", 0, "second twin", nil},
		{"7 chars", "default", "ccccccc", 2, "", []string{"too short"}},
		{"empty", "default", "", 2, "", []string{"too short"}},
		{"ambiguous", "default", "aaaaaaaa", 2, "", []string{"ambiguous", string(a.ID), string(b.ID)}},
		{"unknown prefix", "default", "dddddddd", 3, "", []string{"no history"}},
		{"unknown full ID", "default", "dddddddd-0000-4000-8000-000000000001", 3, "", []string{"no history"}},
		{"not an ID", "default", "../../etc/passwd", 3, "", nil},
		{"other workspace, full ID", "other", string(a.ID), 3, "", nil},
		{"other workspace, prefix", "other", "cccccccc", 3, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := clitest.Run(t, dir, "", "--workspace", tc.ws, "history", "show", tc.arg)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (%s)", code, tc.wantCode, errOut)
			}
			if tc.wantCode == 0 {
				if !strings.HasPrefix(out, tc.wantTitle+"\n") {
					t.Fatalf("showed %q", out)
				}
				return
			}
			if out != "" {
				t.Errorf("stdout on failure: %q", out)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

func TestHistoryRm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	var hs []*record.History
	for i := range 5 {
		hs = append(hs, clitest.NewHist("alert-1", "h", now.Add(-time.Duration(i)*time.Minute), storetest.EveryPartKind()...))
	}
	clitest.SeedHistories(t, dir, "default", hs...)
	exists := func(h *record.History) bool {
		t.Helper()
		_, err := clitest.GetMeta(t, dir, h.ID)
		_, statErr := os.Stat(clitest.ObjectPath(dir, h.ID))
		if (err == nil) != (statErr == nil) {
			t.Fatalf("%s: metadata error %v but object error %v", h.ID, err, statErr)
		}
		return err == nil
	}

	// Piped: nothing can be asked, so nothing is deleted without -y.
	out, errOut, code := clitest.Run(t, dir, "", "history", "rm", string(hs[0].ID))
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "-y") || !exists(hs[0]) {
		t.Fatalf("rm without -y in a pipe: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// With -y: a full ID and a prefix; stdout stays clean.
	out, errOut, code = clitest.Run(t, dir, "", "history", "rm", "-y", string(hs[0].ID), string(hs[1].ID)[:8])
	if code != 0 || out != "" {
		t.Fatalf("rm: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if errOut != "Deleted "+string(hs[0].ID)+"\nDeleted "+string(hs[1].ID)+"\n" {
		t.Errorf("stderr %q", errOut)
	}
	if exists(hs[0]) || exists(hs[1]) || !exists(hs[2]) {
		t.Fatal("rm removed the wrong histories")
	}

	// One unknown ID: nothing deleted.
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"history", "rm", string(hs[2].ID), "dddddddd-0000-4000-8000-000000000001"}, 3},
		{[]string{"history", "rm", string(hs[2].ID), string(hs[0].ID)}, 3},
		{[]string{"history", "rm", string(hs[2].ID), "dddddddd"}, 3},
		{[]string{"history", "rm", string(hs[2].ID), "ddd"}, 2},
		{[]string{"history", "rm"}, 2},
		{[]string{"--workspace", "other", "history", "rm", "-y", string(hs[2].ID)}, 3},
	} {
		out, errOut, code := clitest.Run(t, dir, "", tc.args...)
		if code != tc.code || out != "" || strings.Contains(errOut, "Deleted") {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", tc.args, code, tc.code, out, errOut)
		}
		if !exists(hs[2]) {
			t.Fatalf("%v deleted a history", tc.args)
		}
	}

	// On a terminal: asks; anything but y/yes keeps it.
	for _, answer := range []string{"n\n", "\n", "", "nope\n", "yess\n"} {
		out, errOut, code := clitest.RunTTY(t, dir, answer, "history", "rm", string(hs[2].ID))
		if code != 0 || out != "" || !strings.Contains(errOut, "Delete history "+string(hs[2].ID)[:8]+` "h" (`) || !strings.Contains(errOut, "? [y/N] ") || !strings.Contains(errOut, "Aborted.") {
			t.Errorf("answer %q: exit %d, stdout %q, stderr %q", answer, code, out, errOut)
		}
		if !exists(hs[2]) {
			t.Fatalf("answer %q deleted the history", answer)
		}
	}
	out, errOut, code = clitest.RunTTY(t, dir, "Y\n", "history", "rm", string(hs[2].ID), string(hs[3].ID))
	if code != 0 || !strings.Contains(errOut, "Delete 2 histories?\n  "+string(hs[2].ID)[:8]) || !strings.Contains(errOut, "\n  "+string(hs[3].ID)[:8]) || exists(hs[2]) || exists(hs[3]) {
		t.Fatalf("answer y: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = clitest.RunTTY(t, dir, "", "history", "rm", "-y", string(hs[4].ID), string(hs[4].ID))
	if code != 0 || strings.Contains(errOut, "[y/N]") || errOut != "Deleted "+string(hs[4].ID)+"\n" || exists(hs[4]) {
		t.Fatalf("-y: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestHistoryRenameRedacts checks that a rename, like every history write, is redacted.
func TestHistoryRenameRedacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := clitest.NewHist("alert-1", "t", store.Now(), storetest.EveryPartKind()...)
	clitest.SeedHistories(t, dir, "default", h)
	if _, errOut, code := clitest.Run(t, dir, "", "history", "rename", string(h.ID), "mail jane.doe@example.com"); code != 0 {
		t.Fatalf("rename: exit %d: %s", code, errOut)
	}
	got, err := clitest.GetMeta(t, dir, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^mail \[REDACTED_EMAIL_[a-z0-9]{6,}\]$`).MatchString(got.Title) || got.Redactions["EMAIL"] != 1 {
		t.Fatalf("title %q, redactions %v", got.Title, got.Redactions)
	}
}

func TestHistoryRename(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := clitest.NewHist("alert-1", "generated one", store.Now().Add(-time.Hour), storetest.EveryPartKind()...)
	h.TitleSource = record.TitleGenerated
	h.RedactedCount = len(h.Contents) // as every saved history is: a rename rescans nothing
	clitest.SeedHistories(t, dir, "default", h)
	wantContents, _ := json.Marshal(h.Contents)

	long := strings.Repeat("調", 70)
	tests := []struct {
		title string
		want  string
	}{
		{"Lateral movement", "Lateral movement"},
		{"  padded \n two\tlines  ", "padded two lines"},
		{"\x1b[31mred\x07 alert\u202e", "red alert"},
		{strings.Repeat("x", 60), strings.Repeat("x", 60)},
		{strings.Repeat("x", 61), strings.Repeat("x", 59) + "…"},
		{long, strings.Repeat("調", 29) + "…"},
	}
	for _, tc := range tests {
		out, errOut, code := clitest.Run(t, dir, "", "history", "rename", string(h.ID)[:8], tc.title)
		if code != 0 || out != "" {
			t.Fatalf("rename %q: exit %d, stdout %q, stderr %q", tc.title, code, out, errOut)
		}
		got, err := clitest.GetMeta(t, dir, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != tc.want || got.TitleSource != record.TitleManual {
			t.Errorf("rename %q: title %q (%s), want %q (manual)", tc.title, got.Title, got.TitleSource, tc.want)
		}
		if gotContents, _ := json.Marshal(got.Contents); !bytes.Equal(gotContents, wantContents) || !got.UpdatedAt.Equal(h.UpdatedAt) {
			t.Errorf("rename changed the transcript or the update time")
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"history", "rename", string(h.ID), "   "}, 2},
		{[]string{"history", "rename", string(h.ID), "\x1b\x07\n"}, 2},
		{[]string{"history", "rename", string(h.ID)}, 2},
		{[]string{"history", "rename", string(h.ID), "a", "b"}, 2},
		{[]string{"history", "rename", "dddddddd", "x"}, 3},
		{[]string{"--workspace", "other", "history", "rename", string(h.ID), "stolen"}, 3},
	} {
		if _, errOut, code := clitest.Run(t, dir, "", tc.args...); code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
	}
	if got, _ := clitest.GetMeta(t, dir, h.ID); got.Title != strings.Repeat("調", 29)+"…" {
		t.Errorf("a failed rename changed the title to %q", got.Title)
	}
}

func TestHistoryPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	ancient := clitest.NewHist("alert-1", "ancient", now.Add(-40*24*time.Hour), storetest.EveryPartKind()...)
	old := clitest.NewHist("alert-2", "old", now.Add(-10*24*time.Hour))
	recent := clitest.NewHist("alert-1", "recent", now.Add(-time.Hour))
	clitest.SeedHistories(t, dir, "default", ancient, old, recent)
	otherOld := clitest.NewHist("alert-1", "other workspace", now.Add(-40*24*time.Hour))
	clitest.SeedHistories(t, dir, "other", otherOld)
	all := []*record.History{ancient, old, recent}
	remaining := func() []record.HistoryID {
		t.Helper()
		var ids []record.HistoryID
		for _, h := range all {
			if _, err := clitest.GetMeta(t, dir, h.ID); err == nil {
				ids = append(ids, h.ID)
			}
		}
		return ids
	}

	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"history", "prune"}, 2},
		{[]string{"history", "prune", "--older-than", "soon"}, 2},
		{[]string{"history", "prune", "--older-than", "0d"}, 2},
		{[]string{"history", "prune", "--older-than", "-30d", "-y"}, 2},
		{[]string{"history", "prune", "--older-than", ""}, 2},
		{[]string{"history", "prune", "--older-than", "1d", "extra"}, 2},
	} {
		out, errOut, code := clitest.Run(t, dir, "", tc.args...)
		if code != tc.code || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %q", tc.args, code, tc.code, out, errOut)
		}
	}

	out, errOut, code := clitest.Run(t, dir, "", "history", "prune", "--older-than", "1w", "--dry-run")
	if code != 0 || out != string(old.ID)+"\n"+string(ancient.ID)+"\n" || !strings.Contains(errOut, "Would delete 2 histories") {
		t.Fatalf("dry run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if len(remaining()) != 3 {
		t.Fatal("dry run deleted something")
	}
	// On a terminal, "no" keeps everything.
	out, errOut, code = clitest.RunTTY(t, dir, "n\n", "history", "prune", "--older-than", "30d")
	if code != 0 || out != "" || !strings.Contains(errOut, "[y/N]") || !strings.Contains(errOut, "Aborted.") || len(remaining()) != 3 {
		t.Fatalf("terminal, no: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "prune", "--older-than", "30d")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "-y") || len(remaining()) != 3 {
		t.Fatalf("prune in a pipe without -y: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "prune", "--older-than", "30d", "-y")
	if code != 0 || out != string(ancient.ID)+"\n" || !strings.Contains(errOut, "Deleted 1 history") {
		t.Fatalf("prune 30d: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(clitest.ObjectPath(dir, ancient.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("transcript of a pruned history survived: %v", err)
	}
	out, errOut, code = clitest.RunTTY(t, dir, "", "history", "prune", "--older-than", "2d", "-y")
	if code != 0 || out != string(old.ID)+"\n" || strings.Contains(errOut, "[y/N]") {
		t.Fatalf("prune 2d -y: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got := remaining(); !slices.Equal(got, []record.HistoryID{recent.ID}) {
		t.Fatalf("remaining %v, want only the recent one", got)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "prune", "--older-than", "2d")
	if code != 0 || out != "" || !strings.Contains(errOut, "No histories") {
		t.Fatalf("nothing to prune: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The other workspace's old history was never touched.
	s := clitest.OpenLocal(t, dir, "other")
	defer s.Close()
	if _, err := s.GetHistory(context.Background(), otherOld.ID); err != nil {
		t.Fatalf("prune reached into another workspace: %v", err)
	}
}

// TestHistoryListSaysThereAreMore: a listing cut by --limit says so on stderr, with the total
// and the cursor that continues it; --header adds the column names to piped TSV.
func TestHistoryListSaysThereAreMore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	var hs []*record.History
	for i := range 5 {
		hs = append(hs, clitest.NewHist("alert-1", fmt.Sprintf("h%d", i), now.Add(-time.Duration(i)*time.Minute)))
	}
	clitest.SeedHistories(t, dir, "default", hs...)
	out, errOut, code := clitest.Run(t, dir, "", "history", "list", "--limit", "2")
	if code != 0 || strings.Count(out, "\n") != 2 || !strings.HasPrefix(errOut, "2 of 5; --limit N or --cursor ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	cursor := strings.TrimSuffix(strings.TrimPrefix(errOut, "2 of 5; --limit N or --cursor "), " for more\n")
	out, errOut, code = clitest.Run(t, dir, "", "history", "list", "--limit", "2", "--cursor", cursor)
	if code != 0 || !strings.HasPrefix(out, string(hs[2].ID)+"\t") || !strings.Contains(errOut, "2 shown; --limit N or --cursor") {
		t.Fatalf("second page: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = clitest.Run(t, dir, "", "history", "list", "--header")
	if code != 0 || !strings.HasPrefix(out, "ID\tTITLE\tALERT\tUPDATED\tMSGS\tTOKENS\n") || strings.Count(out, "\n") != 6 || errOut != "" {
		t.Fatalf("--header, all shown: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Piped with --header it is still TSV, the header its first row: cut -f finds the columns.
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.Count(line, "\t") != 5 || strings.Contains(line, "  ") {
			t.Fatalf("--header: %q is not a TSV row of six columns", line)
		}
	}
	if _, errOut, code = clitest.Run(t, dir, "", "history", "list", "--cursor", "bogus"); code != cmdutil.ExitUsage {
		t.Fatalf("bad cursor: exit %d, %q", code, errOut)
	}
}
