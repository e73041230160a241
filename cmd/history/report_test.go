package history_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store"
)

// reportFixture stores an alert (through alert add) and a resolved history of it whose
// transcript holds a tool call and a keyed token; it returns the history.
func reportFixture(t *testing.T, dir string) *record.History {
	t.Helper()
	f := clitest.WriteFile(t, "alert.json", `{"rule":"Outbound connection to C2","priority":"Critical","time":"2026-11-20T08:00:00Z",
"output":"curl connected to 203.0.113.7","output_fields":{"fd.sip":"203.0.113.7","fd.sip.name":"c2.example.net"}}`)
	out, errOut, code := clitest.Run(t, dir, "", "alert", "add", "-f", f)
	if code != 0 {
		t.Fatalf("alert add: exit %d: %s", code, errOut)
	}
	now := store.Now()
	h := clitest.NewHist(record.AlertID(strings.TrimSpace(out)), "C2 beacon", now,
		genai.NewContentFromText("Who else talked to 203.0.113.7? Owner: [REDACTED_EMAIL_abcdef1234]", genai.RoleUser),
		&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_histories", Args: map[string]any{"query": "203.0.113.7"}}}}},
		&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "search_histories", Response: map[string]any{"output": "none; [REDACTED_IP_qqqqwwwwee] seen"}}}}},
		genai.NewContentFromText("No one else. Next steps:\n- Block 203.0.113.7 at the egress proxy.", genai.RoleModel),
	)
	h.Questions = []record.Question{{Content: 0, Analyst: "alice", At: now.Add(-time.Minute)}}
	h.Resolution = &record.Resolution{Verdict: record.VerdictTruePositive, ResolvedBy: "alice", ResolvedAt: now,
		Note: "Confirmed beacon; also to bad.example.org."}
	clitest.SeedHistories(t, dir, "default", h)
	return h
}

func TestHistoryReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := reportFixture(t, dir)
	id := string(h.ID)[:8]

	md, errOut, code := clitest.Run(t, dir, "", "history", "report", id)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"# C2 beacon", "| Type | Outbound connection to C2 |", "**true positive**, by alice",
		"| ipv4 | `203.0.113.7` | alert: output_fields.fd.sip", "`[REDACTED_IP_qqqqwwwwee]`", "→ search_histories query=\"203.0.113.7\"",
		"- Block 203.0.113.7 at the egress proxy."} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}

	js, errOut, code := clitest.Run(t, dir, "", "history", "report", id, "-o", "json")
	if code != 0 {
		t.Fatalf("report -o json: exit %d: %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	if r["verdict"].(map[string]any)["verdict"] != "true_positive" || r["triage"] != nil {
		t.Errorf("json: %s", js)
	}

	csv, errOut, code := clitest.Run(t, dir, "", "history", "report", id, "--iocs", "csv")
	if code != 0 {
		t.Fatalf("--iocs csv: exit %d: %s", code, errOut)
	}
	want := "type,value,source\nipv4,203.0.113.7,alert: output_fields.fd.sip\ndomain,c2.example.net,alert: output_fields.fd.sip.name\ndomain,bad.example.org,note\n"
	if csv != want {
		t.Errorf("csv:\n%s\nwant\n%s", csv, want)
	}
	if !strings.Contains(errOut, "2 more indicators are redacted in storage") {
		t.Errorf("stderr %q", errOut)
	}

	stix, _, code := clitest.Run(t, dir, "", "history", "report", id, "--iocs", "stix")
	again, _, _ := clitest.Run(t, dir, "", "history", "report", id, "--iocs", "stix")
	if code != 0 || stix != again || !strings.Contains(stix, `"pattern": "[ipv4-addr:value = '203.0.113.7']"`) ||
		!strings.Contains(stix, `"malicious-activity"`) || strings.Contains(stix, "REDACTED") {
		t.Errorf("stix (exit %d):\n%s", code, stix)
	}
}

func TestHistoryReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := reportFixture(t, dir)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown history", []string{"history", "report", "00000000-dead"}, 3, "no history"},
		{"other workspace", []string{"--workspace", "other", "history", "report", string(h.ID)}, 3, "no history"},
		{"unknown format", []string{"history", "report", string(h.ID), "-o", "pdf"}, 2, "md, json"},
		{"unknown iocs", []string{"history", "report", string(h.ID), "--iocs", "misp"}, 2, "csv, json, stix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := clitest.Run(t, dir, "", tt.args...)
			if code != tt.code || out != "" || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.stderr)
			}
		})
	}
}
