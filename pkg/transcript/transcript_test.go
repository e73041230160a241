package transcript

import (
	"bytes"
	"strings"
	"testing"

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
