package alert_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
)

func sample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/alerts/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

type listed struct {
	ID       string  `json:"id"`
	Title    string  `json:"title"`
	Severity *string `json:"severity"`
	Source   *string `json:"source"`
	Time     *string `json:"time"`
}

func listJSON(t *testing.T, dir string) []listed {
	t.Helper()
	out, errOut, code := clitest.Run(t, dir, "", "alert", "list", "-o", "json", "--limit", "1000")
	if code != 0 {
		t.Fatalf("list: exit %d: %s", code, errOut)
	}
	var l []listed
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("list -o json: %v: %s", err, out)
	}
	return l
}

// Every shape the tools print: each finding its own alert, one ID a line in order, adding
// again gives the same IDs, and alert list shows each alert's severity and source.
func TestAlertAddShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file       string
		severities []string
		source     string
	}{
		{"guardduty-findings.json", []string{"medium", "high", "low"}, "guardduty"},
		{"securityhub-findings.json", []string{"high", "critical"}, "securityhub"},
		{"scc-findings-list.json", []string{"high", "high"}, "scc"},
		{"scc-notification.json", []string{"high"}, "scc"},
		{"eventbridge-guardduty.json", []string{"high"}, "guardduty"},
		{"eventbridge-securityhub.json", []string{"critical", "medium"}, "securityhub"},
		{"suricata-eve.json", []string{"medium", "high", "low"}, "suricata"},
		{"falco-events.jsonl", []string{"low", "medium", "critical"}, "falco"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := "../../testdata/alerts/" + tc.file
			out, errOut, code := clitest.Run(t, dir, "", "alert", "add", "-f", path)
			ids := strings.Fields(out)
			if code != 0 || len(ids) != len(tc.severities) || strings.Count(out, "\n") != len(ids) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			again, _, _ := clitest.Run(t, dir, sample(t, tc.file), "alert", "add", "-f", "-")
			if !slices.Equal(strings.Fields(again), ids) {
				t.Fatalf("adding again from stdin: %q, want %q", again, ids)
			}
			l := listJSON(t, dir)
			if len(l) != len(ids) {
				t.Fatalf("%d alerts listed, want %d", len(l), len(ids))
			}
			for i, id := range ids {
				// Newest first: the input's last finding is listed first.
				got := l[len(l)-1-i]
				if got.ID != id || got.Severity == nil || *got.Severity != tc.severities[i] || got.Source == nil || *got.Source != tc.source || got.Time == nil || got.Title == "" {
					t.Errorf("alert %d listed as %+v", i, got)
				}
			}
		})
	}
}

// The same finding alone, in an AWS envelope or in an EventBridge event is one alert.
func TestAlertAddSameFindingAnyEnvelope(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var gd map[string]any
	if err := json.Unmarshal([]byte(sample(t, "eventbridge-guardduty.json")), &gd); err != nil {
		t.Fatal(err)
	}
	finding, _ := json.Marshal(gd["detail"])
	alone, _, _ := clitest.Run(t, dir, string(finding), "alert", "add", "-f", "-")
	event, _, _ := clitest.Run(t, dir, sample(t, "eventbridge-guardduty.json"), "alert", "add", "-f", "-")
	envelope, _, _ := clitest.Run(t, dir, `{"Findings": [`+string(finding)+`]}`, "alert", "add", "-f", "-")
	if alone == "" || alone != event || alone != envelope {
		t.Fatalf("alone %q, in its event %q, in an envelope %q", alone, event, envelope)
	}
	if l := listJSON(t, dir); len(l) != 1 {
		t.Fatalf("%d alerts", len(l))
	}
}

// Newline-delimited JSON: a repeated finding is one alert, printed once where it first came,
// and said on stderr.
func TestAlertAddNDJSONDuplicates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := "{\"rule\": \"a\"}\n{\"rule\": \"b\"}\n{\"rule\": \"a\"}\n\n{\"rule\": \"c\"}\n{\"rule\":\"b\"}\n"
	out, errOut, code := clitest.Run(t, dir, in, "alert", "add", "-f", "-")
	ids := strings.Fields(out)
	if code != 0 || len(ids) != 3 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "stdin: 2 findings are the same as an earlier one, stored once (line 3 repeats line 1)") {
		t.Errorf("stderr %q", errOut)
	}
	if l := listJSON(t, dir); len(l) != 3 {
		t.Fatalf("%d alerts stored, want 3", len(l))
	}
}

// Bad input stores nothing of the whole command, exits 2 and names the place.
func TestAlertAddBadInput(t *testing.T) {
	t.Parallel()
	good := clitest.WriteFile(t, "good.json", `{"Title": "good"}`)
	tests := []struct {
		name  string
		stdin string
		files []string
		want  string
	}{
		{"line not JSON", "{\"a\": 1}\n{\"a\": 2}\nnot json\n{\"a\": 3}\n", nil, "cannot add stdin: line 3: not JSON"},
		{"broken line", "{\"a\": 1}\n{\"a\": \n", nil, "cannot add stdin: line 2: not valid JSON"},
		{"empty envelope", `{"Findings": []}`, nil, "cannot add stdin: line 1: the Findings list is empty: no findings to add"},
		{"empty scc list", "[]\n", nil, "cannot add stdin: line 1: the list is empty"},
		{"empty security hub event", `{"detail-type": "Security Hub Findings - Imported", "detail": {"findings": []}}`, nil, "detail.findings: the list is empty"},
		{"element not an object", "{\"Findings\": [\n  {\"Title\": \"x\"},\n  7\n]}", nil, "line 3, Findings[1]: not a JSON object"},
		{"bad second file", "", []string{good, clitest.WriteFile(t, "bad.ndjson", "{\"a\": 1}\n[")}, "bad.ndjson: line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := []string{"alert", "add", "-f", "-"}
			if tc.files != nil {
				args = append([]string{"alert", "add", "-f"}, tc.files...)
			}
			out, errOut, code := clitest.Run(t, dir, tc.stdin, args...)
			if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q (want %q)", code, out, errOut, tc.want)
			}
			if l := listJSON(t, dir); len(l) != 0 {
				t.Fatalf("a failed add stored %d alerts", len(l))
			}
		})
	}
}

// A stream longer than the stage's memory is staged on disk and stored all the same; a fault
// at its end stores nothing of it.
func TestAlertAddLargeStream(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, `{"timestamp":"2025-06-09T10:23:45.123456+0000","flow_id":%d,"event_type":"alert","src_ip":"10.0.0.1","alert":{"signature":"sig %d","severity":2}}`+"\n", i, i%7)
	}
	dir := t.TempDir()
	out, errOut, code := clitest.Run(t, dir, b.String()+"oops\n", "alert", "add", "-f", "-")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "line 3001: not JSON") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if l := listJSON(t, dir); len(l) != 0 {
		t.Fatalf("a failed add stored %d alerts", len(l))
	}
	out, errOut, code = clitest.Run(t, dir, b.String(), "alert", "add", "-f", "-")
	if ids := strings.Fields(out); code != 0 || len(ids) != 3000 {
		t.Fatalf("exit %d, %d IDs, stderr %q", code, len(ids), errOut)
	}
	if l := listJSON(t, dir); len(l) != 1000 || *l[0].Source != "suricata" || l[0].Title != "sig 3" {
		t.Fatalf("listed %d, first %+v", len(l), l[0])
	}
}

// chat -f takes one finding: a file of several is refused, with the way to add them.
func TestChatFileOfSeveralFindings(t *testing.T) {
	t.Parallel()
	_, errOut, code := clitest.Run(t, t.TempDir(), "", "chat", "-f", "../../testdata/alerts/guardduty-findings.json", "-q", "what is this?")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "holds several findings") || !strings.Contains(errOut, "alert add") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// alert search keeps one severity or source when asked; a severity off the scale is refused.
func TestAlertSearchFilters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"guardduty-findings.json", "suricata-eve.json"} {
		if _, errOut, code := clitest.Run(t, dir, "", "alert", "add", "-f", "../../testdata/alerts/"+f); code != 0 {
			t.Fatalf("add %s: %s", f, errOut)
		}
	}
	count := func(args ...string) int {
		t.Helper()
		out, errOut, code := clitest.Run(t, dir, "", append([]string{"alert", "search", "198.51.100.23", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var hits []map[string]any
		if err := json.Unmarshal([]byte(out), &hits); err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{nil, 2},
		{[]string{"--source", "suricata"}, 1},
		{[]string{"--source", "GuardDuty"}, 1},
		{[]string{"--severity", "medium"}, 2},
		{[]string{"--severity", "high"}, 0},
		{[]string{"--severity", "medium", "--source", "scc"}, 0},
	} {
		if got := count(tc.args...); got != tc.want {
			t.Errorf("search %v: %d hits, want %d", tc.args, got, tc.want)
		}
	}
	if _, errOut, code := clitest.Run(t, dir, "", "alert", "search", "x", "--severity", "urgent"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "critical, high, medium, low, info") {
		t.Fatalf("bad severity: exit %d, %q", code, errOut)
	}
}
