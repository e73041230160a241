package alert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd"
	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
)

func TestAlertAdd(t *testing.T) {
	t.Parallel()
	guardduty, err := os.ReadFile("../../testdata/alerts/guardduty.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantErr  string
	}{
		{"file", []string{"alert", "add", "-f", clitest.WriteFile(t, "a.json", string(guardduty))}, "", 0, ""},
		{"stdin", []string{"alert", "add", "-f", "-"}, `{"Title": "from stdin"}`, 0, ""},
		{"array", []string{"alert", "add", "-f", "-"}, `[{"a": 1}]`, 0, ""},
		{"not an object", []string{"alert", "add", "-f", "-"}, `"just a string"`, 2, "JSON object or array"},
		{"malformed", []string{"alert", "add", "-f", "-"}, `{"a": `, 2, "not valid JSON"},
		{"empty stdin", []string{"alert", "add", "-f", "-"}, ``, 2, "empty"},
		{"binary", []string{"alert", "add", "-f", "-"}, "{\"a\":\"\x00\xff\"}", 2, "UTF-8"},
		{"missing file", []string{"alert", "add", "-f", "/does/not/exist.json"}, "", 2, "no such file"},
		{"directory", []string{"alert", "add", "-f", t.TempDir()}, "", 2, "directory"},
		{"no -f", []string{"alert", "add"}, "", 2, "file"},
		{"more files, one missing", []string{"alert", "add", "-f", "-", "/does/not/exist.json"}, `{}`, 2, "no such file"},
		{"stdin twice", []string{"alert", "add", "-f", "-", "-"}, `{}`, 2, "once"},
		{"bad flag", []string{"alert", "add", "--nope"}, "", 2, "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, errOut, code := clitest.Run(t, dir, tc.stdin, tc.args...)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.wantCode, errOut)
			}
			if tc.wantCode != 0 {
				if out != "" {
					t.Errorf("stdout on failure: %q", out)
				}
				if !strings.Contains(errOut, tc.wantErr) {
					t.Errorf("stderr %q does not mention %q", errOut, tc.wantErr)
				}
				// Nothing stored.
				list, _, _ := clitest.Run(t, dir, "", "alert", "list")
				if list != "" {
					t.Errorf("a failed add stored something: %q", list)
				}
				return
			}
			id := strings.TrimSpace(out)
			if len(id) != 36 || strings.Count(out, "\n") != 1 {
				t.Fatalf("stdout is not just the ID: %q", out)
			}
			again, _, code := clitest.Run(t, dir, tc.stdin, tc.args...)
			if code != 0 || strings.TrimSpace(again) != id {
				t.Fatalf("re-adding gave %q (exit %d), want the same ID %s", again, code, id)
			}
			list, _, _ := clitest.Run(t, dir, "", "alert", "list")
			if strings.Count(list, "\n") != 1 {
				t.Fatalf("re-adding duplicated the alert: %q", list)
			}
		})
	}
}

func TestAlertListAndShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, _, _ := clitest.Run(t, dir, `{"Title": "First alert", "n": 1}`, "alert", "add", "-f", "-")
	second, _, _ := clitest.Run(t, dir, `{"finding": {"category": "Second alert"}}`, "alert", "add", "-f", "-")
	first, second = strings.TrimSpace(first), strings.TrimSpace(second)

	out, _, code := clitest.Run(t, dir, "", "alert", "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], second+"\t") || !strings.HasPrefix(lines[1], first+"\t") {
		t.Fatalf("piped list is not tab-separated newest first: %q", out)
	}
	if !strings.HasSuffix(lines[0], "\tSecond alert") {
		t.Fatalf("title missing: %q", lines[0])
	}

	out, _, _ = clitest.Run(t, dir, "", "alert", "list", "-o", "json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("list -o json: %v: %q", err, out)
	}
	if len(list) != 2 || list[0]["id"] != second || list[0]["title"] != "Second alert" || list[0]["created_at"] == "" {
		t.Fatalf("list -o json: %v", list)
	}
	out, _, _ = clitest.Run(t, dir, "", "alert", "list", "--limit", "1", "-o", "json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("--limit 1: %v %q", err, out)
	}

	out, _, code = clitest.Run(t, dir, "", "alert", "show", first)
	if code != 0 || strings.TrimSpace(out) != `{"Title": "First alert", "n": 1}` {
		t.Fatalf("show: exit %d, %q", code, out)
	}
	out, _, code = clitest.Run(t, dir, "", "alert", "show", first, "-o", "json")
	var shown map[string]any
	if err := json.Unmarshal([]byte(out), &shown); err != nil || code != 0 {
		t.Fatalf("show -o json: %v %q", err, out)
	}
	if shown["id"] != first || shown["data"].(map[string]any)["n"] != 1.0 {
		t.Fatalf("show -o json: %v", shown)
	}

	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"alert", "show", "00000000-0000-0000-0000-000000000000"}, 3},
		{[]string{"alert", "show"}, 2},
		{[]string{"alert", "show", first, "-o", "yaml"}, 2},
		{[]string{"alert", "list", "--limit", "0"}, 2},
		{[]string{"--workspace", "other", "alert", "show", first}, 3},
		{[]string{"--workspace", "../bad", "alert", "list"}, 2},
		{[]string{"--firestore-project", "p", "alert", "list"}, 2},
		{[]string{"nosuchcommand"}, 2},
	} {
		_, errOut, code := clitest.Run(t, dir, "", tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (%s)", tc.args, code, tc.code, errOut)
		}
		if code != 0 && !strings.HasPrefix(errOut, "Error: ") {
			t.Errorf("%v: stderr %q", tc.args, errOut)
		}
	}
	out, _, _ = clitest.Run(t, dir, "", "--workspace", "other", "alert", "list")
	if out != "" {
		t.Fatalf("another workspace lists alerts: %q", out)
	}
}

func TestAlertListTTY(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clitest.Run(t, dir, `{"Title": "Shown to people"}`, "alert", "add", "-f", "-")
	var out, errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, StdoutTTY: true}
	if code := cmd.Run(context.Background(), []string{"alertchat", "--data-dir", dir, "alert", "list"}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "ID") || !strings.Contains(out.String(), "just now") || strings.Contains(out.String(), "\t") {
		t.Fatalf("terminal list is not a table: %q", out.String())
	}
}

// TestAlertShowIsTerminalSafe: JSON may hold bidirectional overrides as they are; a terminal
// is shown the alert without them, a pipe gets the alert as stored.
func TestAlertShowIsTerminalSafe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	added, _, _ := clitest.Run(t, dir, "{\"Title\": \"invoice\u202efdp.exe\"}", "alert", "add", "-f", "-")
	id := strings.TrimSpace(added)
	for _, tty := range []bool{true, false} {
		out, errOut, code := clitest.RunWith(t, dir, "", tty, cmd.RunOptions{}, "alert", "show", id)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if strings.Contains(out, "\u202e") == tty || !strings.Contains(out, "fdp.exe") {
			t.Errorf("terminal %v: %q", tty, out)
		}
	}
}

// TestAlertAddSeveralFiles: "alert add -f a b c" (what a shell glob gives) prints one ID a
// line, in order; one bad file stores nothing at all.
func TestAlertAddSeveralFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := clitest.WriteFile(t, "a.json", `{"Title": "a"}`)
	b := clitest.WriteFile(t, "b.json", `{"Title": "b"}`)
	c := clitest.WriteFile(t, "c.json", `[1, 2]`)
	bad := clitest.WriteFile(t, "bad.json", `{"Title": `)
	out, errOut, code := clitest.Run(t, dir, "", "alert", "add", "-f", a, bad, b)
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "bad.json") {
		t.Fatalf("with a bad file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if list, _, _ := clitest.Run(t, dir, "", "alert", "list"); list != "" {
		t.Fatalf("a failed add stored something: %q", list)
	}
	out, errOut, code = clitest.Run(t, dir, "", "alert", "add", "-f", a, b, c)
	ids := strings.Fields(out)
	if code != 0 || len(ids) != 3 || strings.Count(out, "\n") != 3 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for i, f := range []string{a, b, c} {
		one, _, _ := clitest.Run(t, dir, "", "alert", "add", "-f", f)
		if strings.TrimSpace(one) != ids[i] {
			t.Errorf("line %d is %s, but %s alone gives %s", i+1, ids[i], f, one)
		}
	}
}

// TestAlertIDPrefix: alert IDs, like history IDs, may be given as a unique prefix of 8 or more
// characters.
func TestAlertIDPrefix(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, _, _ := clitest.Run(t, dir, `{"Title": "prefixed"}`, "alert", "add", "-f", "-")
	id := strings.TrimSpace(out)
	for _, tc := range []struct {
		arg  string
		code int
	}{
		{id, 0}, {id[:8], 0}, {id[:13], 0}, {id[:5], cmdutil.ExitUsage}, {"ffffffff", cmdutil.ExitNotFound},
	} {
		out, errOut, code := clitest.Run(t, dir, "", "alert", "show", tc.arg, "-o", "json")
		if code != tc.code {
			t.Errorf("alert show %s: exit %d, want %d (%s)", tc.arg, code, tc.code, errOut)
			continue
		}
		if code == 0 && !strings.Contains(out, id) {
			t.Errorf("alert show %s: %s", tc.arg, out)
		}
		if code == cmdutil.ExitNotFound && errOut != "Error: no alert \"ffffffff\"\n" {
			t.Errorf("not found says %q", errOut)
		}
	}
}

// alert search finds an alert by a raw indicator and by a word of its fields, in text and in
// the contract's JSON.
func TestAlertSearch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	guardduty, err := os.ReadFile("../../testdata/alerts/guardduty.json")
	if err != nil {
		t.Fatal(err)
	}
	id, _, code := clitest.Run(t, dir, string(guardduty), "alert", "add", "-f", "-")
	if code != 0 {
		t.Fatalf("add: exit %d", code)
	}
	id = strings.TrimSpace(id)
	out, stderr, code := clitest.Run(t, dir, "", "alert", "search", "3322.org", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var hits []map[string]any
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	keys := make([]string, 0, len(hits[0]))
	for k := range hits[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if hits[0]["id"] != id || !slices.Equal(keys, []string{"created_at", "id", "score", "snippet", "title"}) || !strings.Contains(hits[0]["snippet"].(string), "3322") {
		t.Fatalf("hit %v", hits[0])
	}
	out, _, code = clitest.Run(t, dir, "", "alert", "search", "nothing-like-this")
	if code != 0 || out != "" {
		t.Fatalf("no match: exit %d, %q", code, out)
	}
	if _, _, code := clitest.Run(t, dir, "", "alert", "search"); code != cmdutil.ExitUsage {
		t.Fatalf("no query: exit %d", code)
	}
}
