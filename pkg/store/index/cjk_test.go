package index_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alertchat/alertchat/pkg/store/index"
)

func TestSegmented(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain English, 203.0.113.7", "plain English, 203.0.113.7"},
		{"不審なログイン", "\x1e不審\x1f審な\x1fなロ\x1fログ\x1fグイ\x1fイン\x1fン\x1e"},
		{"鍵 on host", "\x1e鍵\x1e on host"},
		{"Windowsログオン.", "Windows\x1eログ\x1fグオ\x1fオン\x1fン\x1e."},
	}
	for _, tc := range tests {
		if got := index.Segmented(tc.in); got != tc.want {
			t.Errorf("Segmented(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := index.Unsegment(index.Segmented(tc.in)); got != tc.in {
			t.Errorf("Unsegment(Segmented(%q)) = %q", tc.in, got)
		}
	}
}

func FuzzSegmented(f *testing.F) {
	for _, s := range []string{"", "不審なログインが発生", "a鍵b", "権限昇格 privilege escalation", "\x1e\x1f", "한국어 로그인이"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want := strings.NewReplacer("\x1e", " ", "\x1f", " ").Replace(s)
		if got := index.Unsegment(index.Segmented(s)); got != want {
			t.Fatalf("Unsegment(Segmented(%q)) = %q", s, got)
		}
	})
}

func TestSnippetCJK(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, w := range index.Words("ログイン") {
		want[w] = true
	}
	match := func(term string) bool { return want[term] }
	got := index.Snippet("昨夜 管理者アカウントへの不審なログインが発生しました。", match, 12, "[", "]")
	if got != "…ウントへの不審な[ログイン]が発生しました。" {
		t.Fatalf("Snippet = %q", got)
	}
	en := index.Snippet("one two three four five six seven eight nine ten eleven twelve thirteen", func(s string) bool { return s == "six" }, 6, "[", "]")
	if en != "…four five [six] seven eight nine…" {
		t.Fatalf("Snippet = %q", en)
	}
}
