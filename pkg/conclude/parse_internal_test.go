package conclude

import (
	"strings"
	"testing"
	"unicode"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/record"
)

// FuzzParse: whatever the model answers, parse never panics, and what it accepts is one of the
// verdicts with a conclusion that is short, not empty, and safe to print.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"verdict":"benign","conclusion":"A scheduled job."}`,
		`{"verdict":"BENIGN","conclusion":"x"}`,
		`{"verdict":"benign","conclusion":"\u001b[2Jx"}`,
		`{"verdict":"benign"}`, `{"verdict":"benign","conclusion":"x","confidence":7}`, `{"verdict":"benign","conclusion":"x","confidence":-0.5}`, `[]`, `null`, `{"verdict":1}`, "```json\n{}\n```", `{"verdict":"escalated","conclusion":"a"} {}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		resp := &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(text, genai.RoleModel)}}}
		s, err := parse(resp)
		if err != nil {
			return
		}
		if v, ok := record.ParseVerdict(string(s.Verdict)); !ok || v != s.Verdict {
			t.Fatalf("accepted verdict %q", s.Verdict)
		}
		if s.Confidence < 0 || s.Confidence > 1 {
			t.Fatalf("accepted confidence %v", s.Confidence)
		}
		if s.Conclusion == "" || len(s.Conclusion) > maxConclusion || strings.TrimSpace(s.Conclusion) != s.Conclusion {
			t.Fatalf("accepted conclusion %q", s.Conclusion)
		}
		for _, r := range s.Conclusion {
			if r != '\n' && r != '\t' && unicode.IsControl(r) {
				t.Fatalf("conclusion holds %U", r)
			}
		}
	})
}
