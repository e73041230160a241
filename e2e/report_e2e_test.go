package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
)

// reportAnswers scripts an investigation that calls a tool on its question, then answers with
// next steps; titles get a title.
func reportAnswers() geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Drop point triage"}
		}
		last := r.Contents[len(r.Contents)-1]
		if len(last.Parts) > 0 && last.Parts[0].FunctionResponse != nil {
			return geminitest.Reply{Text: "No earlier investigation of 3322.org.\n\nNext steps:\n- Isolate i-99999999.\n- Block 3322.org at the resolver."}
		}
		return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_histories", Args: map[string]any{"query": "3322.org"}}}}}
	})
}

// investigate runs one investigation on the binary: a question naming an e-mail address
// (redacted in storage) with a tool call, then a verdict with a note; it returns the history.
func investigate(t *testing.T, c *cli) string {
	t.Helper()
	alertID := c.addAlert("guardduty.json")
	got := c.askJSON("", "--analyst", "alice", "-a", alertID, "-q", "Who else resolved 3322.org? The owner is soc-lead@example.com.")
	c.mustRun("", "--analyst", "bob", "history", "resolve", got.HistoryID, "--verdict", "true_positive",
		"--note", "Malware beacon; told owner@example.com.\nNext: rotate the instance profile's keys.")
	return got.HistoryID
}

// checkReport runs history report and its exports on the binary and checks what they hold.
func checkReport(t *testing.T, c *cli, id string) {
	t.Helper()
	md := c.mustRun("", "history", "report", id[:8])
	for _, want := range []string{"# Drop point triage", "| Source | guardduty |", "**true positive**, by bob", "- alice: 1 question",
		"`→ search_histories query=\"3322.org\"`", "| domain | `3322.org` | alert: Service.Action.DnsRequestAction.Domain",
		"`[REDACTED_EMAIL_", "- rotate the instance profile's keys.", "- Isolate i-99999999."} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "soc-lead@example.com") || strings.Contains(md, "owner@example.com") {
		t.Errorf("a value storage redacted is in the report:\n%s", md)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "report", id, "-o", "json")), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"title", "alert", "verdict", "triage", "analysts", "timeline", "indicators", "evidence", "knowledge", "next_steps"} {
		if _, ok := r[k]; !ok {
			t.Errorf("report -o json lacks %q", k)
		}
	}

	csv := c.run("", "history", "report", id, "--iocs", "csv")
	if csv.code != 0 || !strings.HasPrefix(csv.stdout, "type,value,source\n") || !strings.Contains(csv.stdout, "domain,3322.org,alert: Service.Action.DnsRequestAction.Domain\n") ||
		strings.Contains(csv.stdout, "REDACTED") || !strings.Contains(csv.stderr, "more indicators are redacted in storage") {
		t.Errorf("--iocs csv: exit %d\n%s\n%s", csv.code, csv.stdout, csv.stderr)
	}
	stix := c.mustRun("", "history", "report", id, "--iocs", "stix")
	if again := c.mustRun("", "history", "report", id, "--iocs", "stix"); again != stix {
		t.Error("a second STIX export differs")
	}
	var bundle struct {
		Type    string           `json:"type"`
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal([]byte(stix), &bundle); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, o := range bundle.Objects {
		kinds[o["type"].(string)]++
	}
	if bundle.Type != "bundle" || kinds["identity"] != 1 || kinds["report"] != 1 || kinds["indicator"] == 0 ||
		!strings.Contains(stix, `"pattern": "[domain-name:value = '3322.org']"`) || strings.Contains(stix, "REDACTED") {
		t.Errorf("stix: %v\n%s", kinds, stix)
	}

	if r := c.run("", "history", "report", "00000000-0000"); r.code != 3 {
		t.Errorf("unknown history: exit %d, %q", r.code, r.stderr)
	}
	if r := c.run("", "history", "report", id, "--iocs", "misp"); r.code != 2 || !strings.Contains(r.stderr, "csv, json, stix") {
		t.Errorf("unknown format: exit %d, %q", r.code, r.stderr)
	}
}

func TestHistoryReportEndToEnd(t *testing.T) {
	t.Parallel()
	c := newCLI(t, reportAnswers())
	checkReport(t, c, investigate(t, c))
}

func TestHistoryReportOnCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t, reportAnswers())
	c.env = append(c.env, cloud.Env()...)
	checkReport(t, c, investigate(t, c))
}

// /report in an interactive chat writes the live conversation's report: raw values as the
// screen showed them, mode 0600, and asks before replacing a file.
func TestChatReportCommand(t *testing.T) {
	t.Parallel()
	c := newCLI(t, reportAnswers())
	alertID := c.addAlert("guardduty.json")
	path := filepath.Join(t.TempDir(), "case.md")

	term := startTerminal(t, c, 160, "--analyst", "alice", "chat", "-a", alertID)
	term.waitFor("/help for commands")
	term.typeLine("Who else resolved 3322.org? The owner is soc-lead@example.com.")
	term.waitFor("Block 3322.org at the resolver")
	term.typeLine("/report " + path)
	term.waitFor("holds what the screen showed")
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	for _, want := range []string{"soc-lead@example.com", "`→ search_histories query=\"3322.org\"`", "- Isolate i-99999999.", "| alice | Who else resolved 3322.org?"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("report lacks %q:\n%s", want, first)
		}
	}
	term.typeLine("/report " + path)
	term.waitFor("exists. Overwrite it? [y/N]")
	term.typeLine("n")
	term.waitFor("Not written.")
	term.typeLine("/exit")
	term.wait()
}

// A triaged investigation's report on both stores: the team's note it was given (matched by the
// raw address in the alert), the triage proposal beside the analyst's verdict, and the lesson
// the analyst kept, in Markdown and JSON; the alert's address exported as a STIX indicator.
func TestHistoryReportOfATriagedInvestigation(t *testing.T) {
	t.Parallel()
	for _, cloud := range []bool{false, true} {
		t.Run(fmt.Sprint("cloud=", cloud), func(t *testing.T) {
			t.Parallel()
			c := triageCLI(t, cloud)
			note := strings.TrimSpace(c.mustRun("", "--analyst", "carol", "knowledge", "add", "198.51.100.23 is our external scanner, Qualys, Sundays"))
			unrelated := strings.TrimSpace(c.mustRun("", "knowledge", "add", "The nightly backup job trips the Falco rule on tar", "--alert-type", "Falco backup"))
			ids := c.addAlerts(`{"title":"Port scan from 198.51.100.23","src_ip":"198.51.100.23"}`)
			r := c.run("", "triage", ids[0], "-o", "json")
			line := triageLines(t, r.stdout)[ids[0]]
			if r.code != 0 || line.HistoryID == "" {
				t.Fatalf("triage: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			c.mustRun("", "--analyst", "bob", "history", "resolve", line.HistoryID, "--verdict", "false_positive",
				"--note", "Qualys scan.\nNext: add the scanner to the allow-list.", "--lesson", "Qualys scans from 198.51.100.23 every Sunday")

			md := c.mustRun("", "history", "report", line.HistoryID)
			for _, want := range []string{"**false positive**, by bob", "Triage proposal: **false positive**, confidence 0.82",
				"## Knowledge", "K-" + note[:8], "is our external scanner, Qualys, Sundays", "Lessons recorded:", "Qualys scans from",
				"- add the scanner to the allow-list."} {
				if !strings.Contains(md, want) {
					t.Errorf("report lacks %q:\n%s", want, md)
				}
			}
			if strings.Contains(md, "K-"+unrelated[:8]) {
				t.Errorf("the report names a note the investigation was not given:\n%s", md)
			}
			var rep struct {
				Triage *struct {
					Verdict    string  `json:"verdict"`
					Confidence float64 `json:"confidence"`
				} `json:"triage"`
				Knowledge []struct {
					ID string `json:"id"`
				} `json:"knowledge"`
				Lessons []string `json:"lessons"`
			}
			if err := json.Unmarshal([]byte(c.mustRun("", "history", "report", line.HistoryID, "-o", "json")), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Triage == nil || rep.Triage.Verdict != "false_positive" || rep.Triage.Confidence != 0.82 ||
				len(rep.Knowledge) != 1 || rep.Knowledge[0].ID != "K-"+note[:8] || len(rep.Lessons) != 1 {
				t.Errorf("report -o json: %+v", rep)
			}
			stix := c.mustRun("", "history", "report", line.HistoryID, "--iocs", "stix")
			if !strings.Contains(stix, `[ipv4-addr:value = '198.51.100.23']`) {
				t.Errorf("stix lacks the alert's address:\n%s", stix)
			}
		})
	}
}
