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

// FuzzSnippet: a snippet is valid text made of s's own pieces, whatever s and the match.
func FuzzSnippet(f *testing.F) {
	for _, s := range []string{"不審なログインが発生", "one two three", "a鍵b 鍵", "로그인이 실패", "x\u0301 ログ"} {
		f.Add(s, "ログ", 6)
	}
	f.Fuzz(func(t *testing.T, s, term string, n int) {
		if !utf8.ValidString(s) || n < 0 || n > 50 {
			return
		}
		got := index.Snippet(s, func(x string) bool { return x == term }, n, "[", "]")
		if !utf8.ValidString(got) {
			t.Fatalf("Snippet(%q) = %q, not UTF-8", s, got)
		}
		if got == "" {
			return
		}
		plain := strings.NewReplacer("[", "", "]", "", "…", "").Replace(got)
		for _, piece := range strings.Fields(plain) {
			if !strings.Contains(strings.NewReplacer("[", "", "]", "", "…", "").Replace(s), piece) {
				t.Fatalf("Snippet(%q) = %q: %q is not from s", s, got, piece)
			}
		}
	})
}
