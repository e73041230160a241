package history

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// TestSearchJapanese: history search finds Japanese words inside unspaced text, marks them
// in the table's snippet, and leaves the English history alone.
func TestSearchJapanese(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := cmdutil.Config{DataDir: dir, Workspace: "default", Redact: "all"}
	open := func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error) {
		s, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
		if err != nil {
			return nil, err
		}
		ios, _, _ := cmdutil.TestIO("", false)
		return factory.Stack(ios, cfg, slog.New(slog.DiscardHandler), s, redact.AllTypes(), o), nil
	}
	s, err := open(ctx, factory.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ja := storetest.NewHistory("0f1e2d3c-aaaa-5000-8000-000000000001", []*genai.Content{
		genai.NewContentFromText("昨夜、管理者アカウントへの不審なログインが発生しました。侵害されたか調べてください。", genai.RoleUser),
		genai.NewContentFromText("ログイン元は既知のVPSです。EC2インスタンスは侵害されている可能性が高いです。", genai.RoleModel)})
	ja.Title = "管理者アカウントへの不審なログインと侵害の調査"
	en := storetest.NewHistory("0f1e2d3c-bbbb-5000-8000-000000000002", []*genai.Content{
		genai.NewContentFromText("Was the log shipping agent restarted?", genai.RoleUser)})
	en.Title = "Log shipping"
	for _, h := range []*record.History{ja, en} {
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"侵害", "ログイン", "不審な通信 不審なログイン"} {
		// 120 columns leave the snippet room for the whole match (at 80 the table is cut to fit,
		// keeping the match's start in sight: TestSearchTableFits).
		ios, stdout, _ := cmdutil.TestIO("", true)
		ios.TermWidth = 120
		o := SearchOptions{IO: ios, OpenStore: open, Searcher: wordSearcher, Query: q, Limit: 20, Output: "text"}
		if err := searchRun(ctx, &o, s); err != nil {
			t.Fatal(err)
		}
		out := stdout.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], string(ja.ID)[:8]) {
			t.Fatalf("search %q = %q, want the Japanese history only", q, out)
		}
		word := strings.Fields(q)[len(strings.Fields(q))-1]
		if !strings.Contains(out, "«"+word+"»") {
			t.Errorf("search %q: snippet does not mark %q: %q", q, word, out)
		}
		// At 80 columns the row fits (widths counted with CJK as two) and the match still shows.
		ios, stdout, _ = cmdutil.TestIO("", true)
		ios.TermWidth = 80
		o = SearchOptions{IO: ios, OpenStore: open, Searcher: wordSearcher, Query: q, Limit: 20, Output: "text"}
		if err := searchRun(ctx, &o, s); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
			if format.Width(l) > 80 {
				t.Errorf("search %q at 80 columns: a row of %d columns: %q", q, format.Width(l), l)
			}
		}
		if first := []rune(word)[0]; !strings.Contains(stdout.String(), "«"+string(first)) {
			t.Errorf("search %q at 80 columns: the match went out of sight: %q", q, stdout.String())
		}
	}
}
