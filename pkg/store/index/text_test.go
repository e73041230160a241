package index_test

import (
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/pkg/store/index"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"Lateral Movement over SMB", []string{"lateral", "movement", "over", "smb"}},
		{"from [REDACTED_IP_k3j2h1] to [REDACTED_EMAIL]", []string{"redacted_ip_k3j2h1", "redacted_email"}},
		{"see 203.0.113.7, and bob@example.com.", []string{"see", "203", "0", "113", "7", "bob", "example", "com", "203.0.113.7", "bob@example.com"}},
		{"the the THE", nil},
		{"日本語 テスト", []string{"日本", "本語", "テス", "スト"}},
		{"不審なログインが発生", []string{"不審", "審な", "なロ", "ログ", "グイ", "イン", "ンが", "が発", "発生"}},
		{"Windowsログオン 鍵", []string{"windows", "ログ", "グオ", "オン", "鍵"}},
		{"したがって、ます", nil},
		{"203.0.113.7からの通信", []string{"203", "0", "113", "7", "の通", "通信", "203.0.113.7"}},
	}
	for _, tc := range tests {
		if got := index.Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	t.Parallel()
	got := index.Phrases(`"203.0.113.7" ... beacon`)
	want := [][]string{{"203", "0", "113", "7"}, {"beacon"}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("Phrases = %q, want %q", got, want)
	}
	got = index.Phrases("203.0.113.7からの通信 ログオンfailure")
	want = [][]string{{"203", "0", "113", "7"}, {"から", "らの", "の通", "通信"}, {"ログ", "グオ", "オン"}, {"failure"}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Fatalf("Phrases = %q, want %q", got, want)
	}
}

func TestContentsSkipsThoughtsAndCalls(t *testing.T) {
	t.Parallel()
	cs := []*genai.Content{
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "hidden", Thought: true},
			{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{"q": "x"}}},
			{Text: "visible"},
		}},
		nil,
		genai.NewContentFromText("second", genai.RoleUser),
	}
	if got := index.Contents(cs); got != "visible\nsecond" {
		t.Fatalf("Contents = %q", got)
	}
	if !index.IsToken("redacted_ip_abc123") || index.IsToken("redaction") {
		t.Fatal("IsToken")
	}
}
