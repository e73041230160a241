package redacthist_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/redacthist"

	"google.golang.org/genai"
)

type toolArgs struct {
	Host   string
	Emails []string
	inner  string
}

func TestContentsCoversEveryPartKind(t *testing.T) {
	t.Parallel()
	sig := []byte{0x0a, 0x40, 'a', '@', 'b', '.', 'c', 'o', 'm', 0xff, 0x00}
	sigCopy := append([]byte(nil), sig...)
	binary := []byte("\x89PNG\r\n\x1a\n mail a@b.example 10.0.0.1")
	binaryCopy := append([]byte(nil), binary...)
	typed := &toolArgs{Host: "10.9.8.7", Emails: []string{"x@y.example"}, inner: "z@w.example"}
	contents := []*genai.Content{
		{Role: "user", Parts: []*genai.Part{
			{Text: "my mail is alice@example.com"},
			nil,
		}},
		nil,
		{Role: "model", Parts: []*genai.Part{
			{Text: "thinking about 10.0.0.1", Thought: true, ThoughtSignature: sig},
			{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{
				"ip":  "192.168.1.1",
				"n":   42.0,
				"ok":  true,
				"nil": nil,
				"nested": map[string]any{
					"list":   []any{"a@b.example", map[string]any{"deep": []any{"AKIAIOSFODNN7EXAMPLE"}}},
					"a@b.co": "the value of a key that is an address",
				},
				"strings": []string{"10.0.0.2", "plain"},
				"typed":   typed,
				"smap":    map[string]string{"k": "090-1234-5678"},
			}, PartialArgs: []*genai.PartialArg{{JsonPath: "$.x", StringValue: "call 090-1234-5678"}}}},
			{ExecutableCode: &genai.ExecutableCode{Code: `requests.get(url, headers={"Authorization": "Bearer 7fa2c9e1b04d4e8fa3c6d5e2f1a0b9c8"})`}},
			{CodeExecutionResult: &genai.CodeExecutionResult{Output: "connected to 8.8.8.8"}},
			{InlineData: &genai.Blob{MIMEType: "text/plain; charset=utf-8", Data: []byte("card 4111111111111111")}},
			{InlineData: &genai.Blob{MIMEType: "application/json", Data: []byte(`{"password":"hunter22!"}`)}},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: binary}},
			{FileData: &genai.FileData{FileURI: "gs://bucket/a@b.example.txt", MIMEType: "text/plain"}},
		}},
		{Role: "user", Parts: []*genai.Part{
			{FunctionResponse: &genai.FunctionResponse{Name: "lookup", Response: map[string]any{
				"output": "owner bob@example.org",
				"rows":   []any{[]any{"10.1.1.1", 1.0}},
			}, Parts: []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "text/csv", Data: []byte("ip\n10.2.2.2\n")}}}}},
			{ToolResponse: &genai.ToolResponse{Response: map[string]any{"r": "from 10.3.3.3"}}},
		}},
	}
	counts := redacthist.Contents(all, contents)

	p := contents[0].Parts
	check := func(name, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %q want %q", name, got, want)
		}
	}
	check("text", p[0].Text, "my mail is [REDACTED_EMAIL]")
	m := contents[2].Parts
	check("thought", m[0].Text, "thinking about [REDACTED_IP]")
	if !bytes.Equal(m[0].ThoughtSignature, sigCopy) {
		t.Error("thought signature changed")
	}
	args := m[1].FunctionCall.Args
	check("arg", args["ip"].(string), "[REDACTED_IP]")
	nested := args["nested"].(map[string]any)
	list := nested["list"].([]any)
	check("nested list", list[0].(string), "[REDACTED_EMAIL]")
	check("deep", list[1].(map[string]any)["deep"].([]any)[0].(string), "[REDACTED_API_KEY]")
	if _, ok := nested["a@b.co"]; ok || nested["[REDACTED_EMAIL]"] != "the value of a key that is an address" {
		t.Errorf("map key not redacted: %v", nested)
	}
	check("[]string", args["strings"].([]string)[0], "[REDACTED_IP]")
	check("typed struct", typed.Host, "[REDACTED_IP]")
	check("typed slice", typed.Emails[0], "[REDACTED_EMAIL]")
	check("unexported field", typed.inner, "z@w.example")
	check("map[string]string", args["smap"].(map[string]string)["k"], "[REDACTED_PHONE]")
	if args["n"].(float64) != 42 || args["ok"].(bool) != true {
		t.Error("non-string args changed")
	}
	check("partial arg", m[1].FunctionCall.PartialArgs[0].StringValue, "call [REDACTED_PHONE]")
	check("code", m[2].ExecutableCode.Code, `requests.get(url, headers={"Authorization": "Bearer [REDACTED_API_KEY]"})`)
	check("result", m[3].CodeExecutionResult.Output, "connected to [REDACTED_IP]")
	check("inline text", string(m[4].InlineData.Data), "card [REDACTED_CC]")
	check("inline json", string(m[5].InlineData.Data), `{"password":"[REDACTED_SECRET]"}`)
	if !bytes.Equal(m[6].InlineData.Data, binaryCopy) {
		t.Error("binary inline data changed")
	}
	check("file uri", m[7].FileData.FileURI, "gs://bucket/a@b.example.txt")
	u := contents[3].Parts
	fr := u[0].FunctionResponse
	check("response", fr.Response["output"].(string), "owner [REDACTED_EMAIL]")
	check("response rows", fr.Response["rows"].([]any)[0].([]any)[0].(string), "[REDACTED_IP]")
	check("response inline", string(fr.Parts[0].InlineData.Data), "ip\n[REDACTED_IP]\n")
	check("tool response", u[1].ToolResponse.Response["r"].(string), "from [REDACTED_IP]")

	want := redact.Counts{redact.Email: 5, redact.IP: 8, redact.APIKey: 2, redact.Phone: 2, redact.CreditCard: 1, redact.Secret: 1}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("counts[%s] = %d want %d (all %v)", k, counts[k], v, counts)
		}
	}
	if counts.Total() != want.Total() {
		t.Errorf("counts %v want %v", counts, want)
	}
	// the whole thing must still serialise (no value of a foreign type was put in)
	if _, err := json.Marshal(contents); err != nil {
		t.Fatal(err)
	}
}

func TestContentsDisabled(t *testing.T) {
	t.Parallel()
	c := []*genai.Content{{Parts: []*genai.Part{{Text: "a@b.example"}}}}
	if n := redacthist.Contents(redact.New(), c); n == nil || n.Total() != 0 || c[0].Parts[0].Text != "a@b.example" {
		t.Fatalf("disabled redactor changed contents: %v", n)
	}
}

func TestIsTextualMIME(t *testing.T) {
	t.Parallel()
	for mt, want := range map[string]bool{
		"text/plain":                      true,
		"text/csv; charset=UTF-8":         true,
		"text/plain; charset=shift_jis":   false,
		"application/json":                true,
		"application/vnd.api+json":        true,
		"application/x-ndjson":            true,
		"application/xml":                 true,
		"application/yaml":                true,
		"image/png":                       false,
		"application/pdf":                 false,
		"application/octet-stream":        false,
		"audio/wav":                       false,
		"not a mime type":                 false,
		"APPLICATION/JSON; charset=utf-8": true,
	} {
		if got := redact.IsTextualMIME(mt); got != want {
			t.Errorf("redact.IsTextualMIME(%q) = %v want %v", mt, got, want)
		}
	}
}

func TestContentsLargeTranscript(t *testing.T) {
	t.Parallel()
	c := transcript(200_000)
	counts := redacthist.Contents(all, c)
	if counts[redact.Email] == 0 || counts[redact.IP] == 0 || counts[redact.APIKey] == 0 {
		t.Fatalf("counts %v", counts)
	}
	for _, x := range c {
		for _, p := range x.Parts {
			if strings.Contains(p.Text, "alice@example.com") {
				t.Fatal("value survived")
			}
		}
	}
}

var all = redact.New(redact.AllTypes()...)
