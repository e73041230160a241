package chat

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// testOptions are chat's options on a local store in a temporary directory and a fake Gemini
// server driving the real SDK: the factory's parts, given directly, no environment involved.
func testOptions(t testing.TB, srv *geminitest.Server, ios *cmdutil.IOStreams) *Options {
	t.Helper()
	cfg := cmdutil.Config{DataDir: t.TempDir(), Workspace: "default", Model: "gemini-test", Redact: "all",
		MaxContextTokens: session.DefaultMaxContextTokens, StoreTimeout: 0,
		Retry: cmdutil.RetryConfig{MaxAttempts: 1, MaxWait: 1, CallTimeout: 1 << 40}}
	logger := slog.New(slog.DiscardHandler)
	return &Options{SessionDeps: factory.SessionDeps{
		IO:     ios,
		Config: func() cmdutil.Config { return cfg },
		Logger: func() *slog.Logger { return logger },
		OpenStore: func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error) {
			s, err := local.Open(ctx, local.Options{Dir: cfg.DataDir, Workspace: cfg.Workspace})
			if err != nil {
				return nil, err
			}
			return factory.Stack(ios, cfg, logger, s, redact.AllTypes(), o), nil
		},
		LLM: func(ctx context.Context, o factory.LLMOptions) (*llm.Client, error) {
			return factory.NewLLM(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "test-key",
				HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()}, cfg.Retry, logger, o)
		},
	}, Output: "text"}
}

func addAlert(t testing.TB, opts *Options) record.AlertID {
	t.Helper()
	s, err := opts.OpenStore(context.Background(), factory.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := &record.Alert{ID: "0f1e2d3c-aaaa-5000-8000-000000000001", Title: "t", Data: []byte(`{"Title": "t"}`)}
	if _, err := s.PutAlert(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func TestOneShotJSON(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		switch {
		case r.Kind == geminitest.KindGenerateContent:
			return geminitest.Reply{Text: "Title"}
		case strings.Contains(r.LastUserText(), "cut"):
			return geminitest.Reply{Chunks: []string{"part one, ", "part two"}, Status: 500}
		}
		return geminitest.Reply{Text: "whole answer"}
	}))
	tests := []struct {
		question     string
		wantErr      bool
		wantAnswer   string
		wantComplete bool
	}{
		{"a question", false, "whole answer", true},
		{"cut short", true, "part one, part two", false},
	}
	for _, tc := range tests {
		ios, stdout, _ := cmdutil.TestIO("", false)
		opts := testOptions(t, srv, ios)
		opts.AlertID = string(addAlert(t, opts))[:8]
		opts.Query, opts.Output = tc.question, "json"
		err := chatRun(context.Background(), opts)
		var got chatJSON
		if jerr := json.Unmarshal(stdout.Bytes(), &got); jerr != nil {
			t.Fatalf("%s: stdout %q: %v", tc.question, stdout.String(), jerr)
		}
		if (err != nil) != tc.wantErr || (got.Error != nil) != tc.wantErr || got.Answer != tc.wantAnswer || got.Complete != tc.wantComplete {
			t.Errorf("%s: err %v, object %+v", tc.question, err, got)
		}
		if got.HistoryID == "" || got.AlertID != "0f1e2d3c-aaaa-5000-8000-000000000001" {
			t.Errorf("%s: ids %q %q", tc.question, got.HistoryID, got.AlertID)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		msg  string
	}{
		{"no alert", func(o *Options) {}, "say which alert"},
		{"alert and file", func(o *Options) { o.AlertID, o.File = "a", "f" }, "not both"},
		{"history and continue", func(o *Options) { o.HistoryID, o.Continue = "h", true }, "not both"},
		{"stdin alert without -q", func(o *Options) { o.File = "-" }, "-q"},
		{"bad output", func(o *Options) { o.AlertID, o.Output = "a", "xml" }, "output format"},
	} {
		ios, _, _ := cmdutil.TestIO("", false)
		opts := testOptions(t, nil, ios)
		tc.set(opts)
		err := opts.validate()
		if cmdutil.ExitCode(err) != cmdutil.ExitUsage || !strings.Contains(cmdutil.Message(err), tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
