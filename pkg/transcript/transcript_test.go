package transcript

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

func TestRenderMarkdownFences(t *testing.T) {
	t.Parallel()
	h := &record.History{ID: "h", AlertID: "a", Contents: []*genai.Content{{Role: genai.RoleModel, Parts: []*genai.Part{
		{ExecutableCode: &genai.ExecutableCode{Language: genai.LanguagePython, Code: "s = '```'\nprint(s)"}},
	}}}}
	var b bytes.Buffer
	if err := Markdown(&b, h); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "# (untitled)\n") || !strings.Contains(b.String(), "\n````python\ns = '```'\nprint(s)\n````\n") {
		t.Fatalf("code holding a fence is not fenced longer:\n%s", b.String())
	}
}

func TestRenderMarkdownDemotesAnswerHeadings(t *testing.T) {
	t.Parallel()
	h := &record.History{ID: "h", AlertID: "a", Contents: []*genai.Content{{Role: genai.RoleModel, Parts: []*genai.Part{
		{Text: "## Assessment\nBad.\n### Evidence\n```sh\n# comment\n```\n"},
	}}}}
	var b bytes.Buffer
	if err := Markdown(&b, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n## Gemini\n\n### Assessment\nBad.\n#### Evidence\n```sh\n# comment\n```\n") {
		t.Fatalf("the answer's headings are not one level below its section:\n%s", b.String())
	}
}

// A call the egress guard held is shown as decided there, with what would have left by kind.
func TestRenderEgressHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    record.ToolApproval
		want string
	}{
		{"nobody to ask", record.ToolApproval{Decision: record.ApprovalDenied, Egress: &record.EgressHold{Kinds: []string{"internal address", "e-mail address"}}},
			"[denied: nobody could be asked; held back: it would have sent internal data (internal address, e-mail address) to a public-only server]"},
		{"asked, no", record.ToolApproval{Decision: record.ApprovalDenied, Asked: true, Egress: &record.EgressHold{Kinds: []string{"internal host"}}},
			"[denied by the user; held back: it would have sent internal data (internal host) to a public-only server]"},
		{"asked, yes", record.ToolApproval{Decision: record.ApprovalApproved, Asked: true, Egress: &record.EgressHold{Kinds: []string{"internal address"}, Sent: true}},
			"[approved once by the user; it carried internal data (internal address) to a public-only server, sent on the user's yes]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := tc.a
			a.Tool, a.Server, a.Content = "mcp_intel_lookup", "intel", 1
			h := &record.History{ID: "h", AlertID: "a", Contents: []*genai.Content{
				genai.NewContentFromText("who is 10.0.3.7?", genai.RoleUser),
				{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "10.0.3.7"}}}}},
			}, ToolApprovals: []record.ToolApproval{a}}
			var b bytes.Buffer
			if err := Text(&b, h); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "   "+tc.want+"\n") {
				t.Errorf("missing %q in:\n%s", tc.want, b.String())
			}
		})
	}
}

// Each MCP call is shown with who allowed it, in every rendering; built-in calls have no note.
func TestRenderToolApprovals(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	h := &record.History{ID: "h", AlertID: "a", Contents: []*genai.Content{
		genai.NewContentFromText("who is 203.0.113.7?", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{FunctionCall: &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}},
			{FunctionCall: &genai.FunctionCall{Name: "get_alert", Args: map[string]any{"alert_id": "a"}}},
			{FunctionCall: &genai.FunctionCall{Name: "mcp_intel_env"}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{Name: "mcp_intel_lookup", Response: map[string]any{"content": "scanner"}}},
			{FunctionResponse: &genai.FunctionResponse{Name: "get_alert", Response: map[string]any{"id": "a"}}},
			{FunctionResponse: &genai.FunctionResponse{Name: "mcp_intel_env", Response: map[string]any{"error": "denied: the user did not allow this call"}}},
		}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "mcp_siem_query"}}}},
	}, ToolApprovals: []record.ToolApproval{
		{Tool: "mcp_intel_lookup", Server: "intel", Decision: record.ApprovalApproved, Asked: true, At: at, Content: 1, Call: 0},
		{Tool: "mcp_intel_env", Server: "intel", Decision: record.ApprovalDenied, Asked: true, At: at, Content: 1, Call: 2},
		{Tool: "mcp_siem_query", Server: "siem", Decision: record.ApprovalTrusted, At: at, Content: 3, Call: 0},
	}}
	for _, tc := range []struct {
		name   string
		render func(io.Writer, *record.History) error
		want   []string
	}{
		{"text", Text, []string{
			"-> call mcp_intel_lookup({\"ip\":\"203.0.113.7\"})\n   [approved once by the user]\n",
			"-> call get_alert({\"alert_id\":\"a\"})\n-> call mcp_intel_env(null)\n   [denied by the user]\n",
			"-> call mcp_siem_query(null)\n   [trusted: server siem is trusted in the MCP config]\n",
		}},
		{"markdown", Markdown, []string{
			"-> call `mcp_intel_lookup`\n\n*approved once by the user*\n",
			"-> call `mcp_intel_env`\n\n*denied by the user*\n",
			"-> call `mcp_siem_query`\n\n*trusted: server siem is trusted in the MCP config*\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := tc.render(&b, h); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
			if n := strings.Count(b.String(), "approved") + strings.Count(b.String(), "denied by") + strings.Count(b.String(), "trusted:"); n != 3 {
				t.Errorf("%d notes, want one per MCP call:\n%s", n, b.String())
			}
		})
	}
	js, err := json.Marshal(NewJSON(h))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"tool_approvals":[{"tool":"mcp_intel_lookup","server":"intel","decision":"approved","asked":true,"at":"2026-11-20T10:00:00Z","content":1,"call":0}`) {
		t.Fatalf("json: %s", js)
	}
	js, _ = json.Marshal(NewJSON(&record.History{ID: "h"}))
	if !strings.Contains(string(js), `"tool_approvals":[]`) {
		t.Fatalf("json without approvals: %s", js)
	}
}

func TestCallLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 100)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"search_histories", map[string]any{"query": "203.0.113.7", "limit": 5}, `→ search_histories limit=5 query="203.0.113.7"`},
		{"grep_evidence", map[string]any{"pattern": `203\.0\.113\.7`}, `→ grep_evidence pattern="203\.0\.113\.7"`},
		{"q", map[string]any{"s": `say "hi"`}, `→ q s="say \"hi\""`},
		{"q", map[string]any{"s": long}, `→ q s="` + strings.Repeat("a", 76) + `...`},
		{"q", map[string]any{"bad": func() {}, "ok": true}, `→ q ok=true`},
		{"q", map[string]any{"s": "line\nbreak\x1b[31m"}, `→ q s="line break"`},
		{"q\x1b]0;title\x07", nil, `→ q`},
	} {
		if got := CallLine(tc.name, tc.args); got != tc.want {
			t.Errorf("CallLine(%q, %v) = %q, want %q", tc.name, tc.args, got, tc.want)
		}
	}
}
