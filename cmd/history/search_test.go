package history

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/searchtest"
	"github.com/alertchat/alertchat/internal/storetest"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/search"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

func TestSearchFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		want     SearchOptions
		wantCode int
	}{
		{"query words joined", []string{"lateral", "movement"}, SearchOptions{Query: "lateral movement", Limit: 20, Output: "text"}, 0},
		{"filters", []string{"-a", "0f1e2d3c", "--limit", "5", "-o", "json", "smb"}, SearchOptions{Query: "smb", AlertID: "0f1e2d3c", Limit: 5, Output: "json"}, 0},
		{"no query", nil, SearchOptions{}, cmdutil.ExitUsage},
		{"blank query", []string{"  "}, SearchOptions{}, cmdutil.ExitUsage},
		{"bad limit", []string{"--limit", "0", "x"}, SearchOptions{}, cmdutil.ExitUsage},
		{"bad format", []string{"-o", "yaml", "x"}, SearchOptions{}, cmdutil.ExitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _ := cmdutil.TestIO("", false)
			var got *SearchOptions
			cmd := NewCmdSearch(&factory.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(_ context.Context, o *SearchOptions) error { got = o; return nil })
			err := cmd.Run(context.Background(), append([]string{"search"}, tc.args...))
			if tc.wantCode != 0 {
				if err == nil || cmdutil.ExitCode(err) != tc.wantCode {
					t.Fatalf("err = %v (exit %d), want exit %d", err, cmdutil.ExitCode(err), tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Query != tc.want.Query || got.AlertID != tc.want.AlertID || got.Limit != tc.want.Limit || got.Output != tc.want.Output {
				t.Fatalf("options = %+v, want %+v", *got, tc.want)
			}
		})
	}
}

// searchFixture is a local store stack with two histories of two alerts.
func searchFixture(t *testing.T) (func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error), *record.History, *record.History) {
	t.Helper()
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
	a := storetest.NewHistory("0f1e2d3c-aaaa-5000-8000-000000000001", []*genai.Content{
		genai.NewContentFromText("Is the SMB traffic from this host lateral movement?", genai.RoleUser),
		genai.NewContentFromText("Likely: five peers in two minutes.", genai.RoleModel)})
	a.Title = "Lateral movement over SMB"
	b := storetest.NewHistory("0f1e2d3c-bbbb-5000-8000-000000000002", []*genai.Content{
		genai.NewContentFromText("A mailbox rule forwards to an outside address; movement of mail?", genai.RoleUser)})
	b.Title = "Mail forwarding rule"
	for _, h := range []*record.History{a, b} {
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutAlert(ctx, &record.Alert{ID: h.AlertID, Title: "t", Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	return open, a, b
}

func TestSearchRunOutputs(t *testing.T) {
	t.Parallel()
	open, a, b := searchFixture(t)
	run := func(t *testing.T, tty bool, o SearchOptions) (string, string) {
		t.Helper()
		ios, stdout, stderr := cmdutil.TestIO("", tty)
		o.IO, o.OpenStore, o.Searcher = ios, open, wordSearcher
		if o.Limit == 0 {
			o.Limit = 20
		}
		if o.Output == "" {
			o.Output = "text"
		}
		s, err := open(context.Background(), factory.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := searchRun(context.Background(), &o, s); err != nil {
			t.Fatal(err)
		}
		return stdout.String(), stderr.String()
	}

	t.Run("json", func(t *testing.T) {
		out, _ := run(t, false, SearchOptions{Query: "lateral movement", Output: "json"})
		var got []map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(got) != 2 || got[0]["id"] != string(a.ID) || got[1]["id"] != string(b.ID) {
			t.Fatalf("json = %s, want %s then %s", out, a.ID, b.ID)
		}
		for _, k := range []string{"id", "alert_id", "title", "updated_at", "score", "snippet"} {
			if _, ok := got[0][k]; !ok {
				t.Errorf("json lacks %q: %s", k, out)
			}
		}
		if s := got[0]["snippet"].(string); strings.ContainsAny(s, store.SnippetOpen+store.SnippetClose) || !strings.Contains(strings.ToLower(s), "movement") {
			t.Errorf("snippet = %q", s)
		}
		if got[0]["score"].(float64) < got[1]["score"].(float64) {
			t.Errorf("scores not best first: %s", out)
		}
	})
	t.Run("pipe is TSV", func(t *testing.T) {
		out, _ := run(t, false, SearchOptions{Query: "smb"})
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 1 {
			t.Fatalf("tsv = %q, want one line", out)
		}
		f := strings.Split(lines[0], "\t")
		if len(f) != 6 || f[0] != string(a.ID) || f[1] != string(a.AlertID) || f[2] != a.Title {
			t.Fatalf("tsv fields = %q", f)
		}
	})
	t.Run("terminal table highlights", func(t *testing.T) {
		out, _ := run(t, true, SearchOptions{Query: "smb"})
		if !strings.HasPrefix(out, "ID") || !strings.Contains(out, "«SMB»") || strings.Contains(out, string(a.ID)) {
			t.Fatalf("table = %q, want a header, short IDs and «SMB» marked", out)
		}
	})
	t.Run("alert filter by prefix", func(t *testing.T) {
		out, _ := run(t, false, SearchOptions{Query: "movement", AlertID: "0f1e2d3c-bbbb", Output: "json"})
		if !strings.Contains(out, string(b.ID)) || strings.Contains(out, string(a.ID)) {
			t.Fatalf("-a: %s", out)
		}
	})
	t.Run("nothing found says so on a terminal", func(t *testing.T) {
		out, errOut := run(t, true, SearchOptions{Query: "kerberoasting"})
		if out != "" || !strings.Contains(errOut, "No histories match") {
			t.Fatalf("stdout %q stderr %q", out, errOut)
		}
		out, _ = run(t, false, SearchOptions{Query: "kerberoasting", Output: "json"})
		if strings.TrimSpace(out) != "[]" {
			t.Fatalf("json of nothing = %q, want []", out)
		}
	})
	t.Run("indicator through an injected tokenizer", func(t *testing.T) {
		ios, stdout, _ := cmdutil.TestIO("", false)
		o := SearchOptions{IO: ios, Query: "forwards", Limit: 5, Output: "json",
			Searcher: func(context.Context, *factory.Store) (*search.Searcher, error) {
				return search.New(search.Options{IndicatorTokens: searchtest.FakeTokens(nil)}), nil
			}}
		s, err := open(context.Background(), factory.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := searchRun(context.Background(), &o, s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stdout.String(), string(b.ID)) {
			t.Fatalf("json = %s", stdout)
		}
	})
}

// wordSearcher searches by words only: no keyed tokens, no embeddings.
func wordSearcher(context.Context, *factory.Store) (*search.Searcher, error) {
	return search.New(search.Options{}), nil
}
