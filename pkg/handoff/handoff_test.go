package handoff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/handoff"
	"github.com/alertchat/alertchat/pkg/record"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// investigation is a resolved history with questions from two analysts, a built-in tool call,
// an evidence tool call and its result, and a note naming a next step; the transcript holds
// keyed tokens where storage redacted values.
func investigation() handoff.Input {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	a := &record.Alert{
		ID: "a1b2c3d4e5f6", Title: "Port probe on web-1", Source: "guardduty", Severity: "medium",
		Time: t0.Add(-time.Hour), CreatedAt: t0.Add(-50 * time.Minute),
		Data: json.RawMessage(`{"SchemaVersion":"2.0","Arn":"arn:aws:guardduty:us-east-1:123456789012:detector/d/finding/f",
"Type":"Recon:EC2/PortProbeUnprotectedPort","Severity":5,"Title":"Port probe on web-1",
"Resource":{"InstanceDetails":{"InstanceId":"i-0abcd1234ef567890"}},
"Service":{"Action":{"PortProbeAction":{"PortProbeDetails":[{"RemoteIpDetails":{"IpAddressV4":"198.51.100.23"}}]}},
"Evidence":{"Sha256":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","Host":"scan.example.net","Url":"http://evil.example.com/a'b\\c"}}}`),
	}
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "search_histories", Args: map[string]any{"query": "198.51.100.23", "limit": 5}}}
	grep := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "grep_evidence", Args: map[string]any{"pattern": `198\.51\.100\.23`, "path": "vpc/flows.log"}}}
	h := &record.History{
		ID: "6e6f461a-0000-4000-8000-000000000001", AlertID: a.ID, Title: "Port probe on web-1: our scanner?",
		CreatedAt: t0, UpdatedAt: t0.Add(30 * time.Minute),
		Contents: []*genai.Content{
			genai.NewContentFromText("Is 198.51.100.23 our scanner? The owner said [REDACTED_EMAIL_k3j2h1abcd] runs it.", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "thinking", Thought: true}, call}},
			{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "search_histories",
				Response: map[string]any{"output": []any{map[string]any{"id": "x", "verdict": "false_positive", "snippet": "scanner at [REDACTED_IP_aaaabbbbcc]"}}}}}}},
			genai.NewContentFromText("An earlier investigation found the same scanner.", genai.RoleModel),
			genai.NewContentFromText("Check the flow logs | what should we do?", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{grep}},
			{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "grep_evidence",
				Response: map[string]any{"output": "198.51.100.23 -> 10.0.0.5:22 REJECT; also seen from [REDACTED_IP_zzzzyyyyxx]"}}}}},
			genai.NewContentFromText("The probes were rejected.\n\n## Next steps\n\n1. Add 198.51.100.23 to the scanner allow-list.\n2. Close the finding.\n", genai.RoleModel),
		},
		Questions: []record.Question{
			{Content: 0, Analyst: "alice", At: t0.Add(time.Minute)},
			{Content: 4, Analyst: "bob", At: t0.Add(10 * time.Minute)},
		},
		Resolution: &record.Resolution{Verdict: record.VerdictFalsePositive, ResolvedBy: "bob", ResolvedAt: t0.Add(30 * time.Minute),
			Note: "Our external scanner (ops.example.org runs it).\nNext: tell [REDACTED_EMAIL_k3j2h1abcd] to register it."},
	}
	return handoff.Input{History: h, Alert: a, Workspace: "soc"}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestMarkdownGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := handoff.Build(investigation()).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.md", b.Bytes())
}

func TestJSONShape(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(handoff.Build(investigation()))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"title", "alert", "verdict", "triage", "analysts", "timeline", "indicators", "evidence", "knowledge", "next_steps"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	if string(got["triage"]) != "null" || string(got["knowledge"]) != "[]" {
		t.Errorf("triage %s, knowledge %s", got["triage"], got["knowledge"])
	}
	var steps []string
	_ = json.Unmarshal(got["next_steps"], &steps)
	want := []string{"tell [REDACTED_EMAIL_k3j2h1abcd] to register it.", "Add 198.51.100.23 to the scanner allow-list.", "Close the finding."}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("next steps %q, want %q", steps, want)
	}
}

func TestIOCsExportRawValuesOnly(t *testing.T) {
	t.Parallel()
	e := handoff.Build(investigation()).IOCs()
	var csv bytes.Buffer
	if err := e.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	want := "type,value,source\n" +
		"aws-arn,arn:aws:guardduty:us-east-1:123456789012:detector/d/finding/f,alert: Arn\n" +
		"aws-resource,i-0abcd1234ef567890,alert: Resource.InstanceDetails.InstanceId\n" +
		"ipv4,198.51.100.23,alert: Service.Action.PortProbeAction.PortProbeDetails[0].RemoteIpDetails.IpAddressV4\n" +
		"domain,scan.example.net,alert: Service.Evidence.Host\n" +
		"sha256,e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855,alert: Service.Evidence.Sha256\n" +
		"url,http://evil.example.com/a'b\\c,alert: Service.Evidence.Url\n" +
		"domain,ops.example.org,note\n"
	if csv.String() != want {
		t.Errorf("csv:\n%s\nwant\n%s", csv.String(), want)
	}
	// Two tokens of addresses and one of an e-mail: counted, never exported.
	if e.Redacted != 3 || strings.Contains(csv.String(), "REDACTED") {
		t.Errorf("redacted %d; csv %q", e.Redacted, csv.String())
	}
}

func TestStixString(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"203.0.113.7", `'203.0.113.7'`},
		{"it's", `'it\'s'`},
		{`C:\temp\x`, `'C:\\temp\\x'`},
		{`\'`, `'\\\''`},
	}
	for _, tt := range tests {
		if got := handoff.StixString(tt.in); got != tt.want {
			t.Errorf("StixString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// A triage proposal, when the caller has one, is on the timeline, in the verdict section and
// among the evidence.
func TestTriageProposal(t *testing.T) {
	t.Parallel()
	in := investigation()
	in.Triage = &handoff.Triage{Verdict: "false_positive", Confidence: 0.82, Evidence: []string{"198.51.100.23 is the scanner"},
		Model: "gemini-test", At: "2026-11-20T08:05:00Z"}
	r := handoff.Build(in)
	var b bytes.Buffer
	if err := r.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Triage proposal: **false positive**, confidence 0.82", "| 2026-11-20T08:05:00Z | triage | gemini-test | proposed false positive (confidence 0.82) |",
		"- `198.51.100.23 is the scanner` (triage)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
