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
		{"broken element of the API's envelope", "{\"findings\": [\n  {\"title\": \"x\"},\n  {\"title\": }\n]}", nil, "line 3, findings[1]: not valid JSON"},
		{"broken SCC REST result", "{\"listFindingsResults\": [\n  {\"finding\": {\"name\": \"organizations/1/sources/2/findings/3\"}},\n  \"x\"\n], \"totalSize\": 2}", nil, "line 3, listFindingsResults[1]: not a JSON object"},
		{"broken event among skipped ones", "{\"event_type\": \"flow\", \"flow_id\": 1}\n{\"event_type\": \"flow\", \"flow_id\": 2,}\n", nil, "cannot add stdin: line 2: not valid JSON"},
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

// An envelope that holds no finding stores nothing and is no fault: a notice, exit 0.
func TestAlertAddEmptyEnvelopes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, notice string }{
		{`{"findings": []}`, "stdin: no findings to add (its findings list is empty)."},
		{`{"Findings": []}`, "stdin: no findings to add (its Findings list is empty)."},
		{`{"listFindingsResults": [], "readTime": "2024-05-02T00:00:00Z", "totalSize": 0}`, "stdin: no findings to add (its listFindingsResults list is empty)."},
		{`{"readTime": "2024-05-02T00:00:00Z"}`, "stdin: no findings to add (its listFindingsResults list is empty)."},
		{"[]\n", "stdin: no findings to add (the list is empty)."},
		{`{"detail-type": "Security Hub Findings - Imported", "detail": {"findings": []}}`, "stdin: no findings to add (its detail.findings list is empty)."},
		{"{\"Findings\": []}\n{\"findings\": []}\n", "stdin: no findings to add (2 envelopes hold no finding)."},
	} {
		dir := t.TempDir()
		out, errOut, code := clitest.Run(t, dir, tc.in, "alert", "add", "-f", "-")
		if code != 0 || out != "" || strings.TrimSpace(errOut) != tc.notice {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.in, code, out, errOut)
		}
		if l := listJSON(t, dir); len(l) != 0 {
			t.Errorf("%s: stored %d alerts", tc.in, len(l))
		}
	}
}

// The raw APIs' responses: every finding its own alert, with its facts.
func TestAlertAddRawAPIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file       string
		severities []string
		source     string
	}{
		{"guardduty-getfindings-api.json", []string{"high", "critical", "low"}, "guardduty"},
		{"scc-rest-list.json", []string{"high", "critical", "medium"}, "scc"},
	} {
		dir := t.TempDir()
		out, errOut, code := clitest.Run(t, dir, sample(t, tc.file), "alert", "add", "-f", "-")
		if code != 0 || len(strings.Fields(out)) != len(tc.severities) {
			t.Fatalf("%s: exit %d, %q, %s", tc.file, code, out, errOut)
		}
		var sev []string
		for _, a := range slices.Backward(listJSON(t, dir)) {
			sev = append(sev, *a.Severity)
			if *a.Source != tc.source || a.Title == "" || a.Time == nil {
				t.Errorf("%s: %+v", tc.file, a)
			}
		}
		if !slices.Equal(sev, tc.severities) {
			t.Errorf("%s: severities %v, want %v", tc.file, sev, tc.severities)
		}
	}
}

// A Suricata eve.json keeps its alerts; the other events are counted on stderr, and kept with
// --all-events, each titled after its kind.
func TestAlertAddEventStream(t *testing.T) {
	t.Parallel()
	eve := sample(t, "suricata-eve-mixed.json")
	dir := t.TempDir()
	out, errOut, code := clitest.Run(t, dir, eve, "alert", "add", "-f", "-")
	if ids := strings.Fields(out); code != 0 || len(ids) != 1 {
		t.Fatalf("exit %d, %d IDs, stderr %q", code, len(ids), errOut)
	}
	want := "stdin: skipped 11 events that are not alerts: flow 4, dns 2, fileinfo 1, http 1, ssh 1, stats 1, tls 1 (--all-events keeps them).\n"
	if errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	l := listJSON(t, dir)
	if len(l) != 1 || *l[0].Source != "suricata" || l[0].Title != "ET MALWARE Observed Suspicious UA (curl/8.1)" {
		t.Fatalf("listed %+v", l)
	}
	dir = t.TempDir()
	out, errOut, code = clitest.Run(t, dir, eve, "alert", "add", "--all-events", "-f", "-")
	if ids := strings.Fields(out); code != 0 || len(ids) != 12 || errOut != "" {
		t.Fatalf("--all-events: exit %d, %d IDs, stderr %q", code, len(ids), errOut)
	}
	titles := map[string]bool{}
	for _, a := range listJSON(t, dir) {
		titles[a.Title] = true
	}
	if !titles["Suricata stats"] || !titles["ET MALWARE Observed Suspicious UA (curl/8.1)"] {
		t.Fatalf("titles %v", titles)
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
