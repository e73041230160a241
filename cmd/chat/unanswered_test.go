package chat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/eventually"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/mcptest"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/pkg/llm"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/session"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// unansweredQuestion is asked by the tests below; its fallback title is its first line.
const unansweredQuestion = "Who ran the binary on i-99999999?\nAnd from which address?"

// storedHistories reads the histories of opts' store as the next command would.
func storedHistories(t *testing.T, opts *Options) []*record.History {
	t.Helper()
	cfg := opts.Config()
	s, err := local.Open(context.Background(), local.Options{Dir: cfg.DataDir, Workspace: cfg.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.ListHistories(context.Background(), store.HistoryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []*record.History
	for _, m := range page.Histories {
		h, err := s.GetHistory(context.Background(), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h)
	}
	return out
}

// texts are a transcript's contents as "role: text" (thoughts left out, a call by its name, a
// response by its error).
func texts(h *record.History) []string {
	var out []string
	for _, c := range h.Contents {
		var b strings.Builder
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				b.WriteString("call " + p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				msg, _ := p.FunctionResponse.Response["error"].(string)
				b.WriteString("response " + msg)
			case !p.Thought:
				b.WriteString(p.Text)
			}
		}
		out = append(out, c.Role+": "+b.String())
	}
	return out
}

// withRetry sets the model calls' retries: tries, and how long a try waits for a response.
func withRetry(opts *Options, srv *geminitest.Server, attempts int, callTimeout time.Duration) {
	cfg := opts.Config()
	cfg.Retry.MaxAttempts, cfg.Retry.CallTimeout, cfg.Retry.MaxWait = attempts, callTimeout, time.Millisecond
	opts.Config = func() cmdutil.Config { return cfg }
	opts.LLM = func(ctx context.Context, o factory.LLMOptions) (*llm.Client, error) {
		return factory.NewLLM(ctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: "test-key",
			HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL()}, HTTPClient: srv.Client()}, cfg.Retry, opts.Logger(), o)
	}
}

// A one-shot question whose answer never came, whatever stopped it, is saved: the question,
// its reply marked cut short, the fallback title (the title never came either). -o json points
// at it with its history_id, the error and "complete": false; on a terminal the resume hint
// names it; the exit status is 1 for a failure, 130 for Ctrl-C.
func TestOneShotUnansweredSaved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(cancel context.CancelFunc) geminitest.Reply
		says   string
		code   int
	}{
		{"rate limited after retries", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Status: 429, ErrorMessage: "quota exceeded", RetryDelay: time.Millisecond}
		}, "Gemini quota or rate limit reached (2 attempts)", cmdutil.ExitFailure},
		{"outage", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Status: 503, ErrorMessage: "overloaded"}
		}, "Gemini is unavailable right now (2 attempts)", cmdutil.ExitFailure},
		{"call timeout", func(context.CancelFunc) geminitest.Reply {
			return geminitest.Reply{Hang: true}
		}, "Gemini did not answer in time (2 attempts)", cmdutil.ExitFailure},
		{"ctrl-c before the first byte", func(cancel context.CancelFunc) geminitest.Reply {
			cancel()
			return geminitest.Reply{Hang: true}
		}, "interrupted before Gemini answered: the question was saved", cmdutil.ExitInterrupt},
	} {
		for _, output := range []string{"json", "text"} {
			t.Run(tc.name+"/"+output, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
					if r.Kind == geminitest.KindGenerateContent {
						return geminitest.Reply{Hang: true} // the title never comes
					}
					return tc.answer(cancel)
				}))
				// -o json asks with -q; text pipes the question in, with stderr on a terminal.
				ios, stdout, stderr := cmdutil.TestIO("", false)
				if output == "text" {
					ios.In, ios.StderrTTY = strings.NewReader(unansweredQuestion), true
				}
				opts := testOptions(t, srv, ios)
				opts.AlertID, opts.NoRelated, opts.Output = string(addAlert(t, opts)), true, output
				if output == "json" {
					opts.Query = unansweredQuestion
				}
				withRetry(opts, srv, 2, 300*time.Millisecond)

				err := chatRun(ctx, opts)
				if code := cmdutil.ExitCode(err); code != tc.code || !strings.Contains(cmdutil.Message(err), tc.says) {
					t.Fatalf("exit %d (want %d): %v", code, tc.code, err)
				}
				hs := storedHistories(t, opts)
				if len(hs) != 1 {
					t.Fatalf("%d histories stored, want the question's", len(hs))
				}
				h := hs[0]
				want := []string{"user: " + unansweredQuestion, "model: " + session.PartialMarker}
				if got := texts(h); strings.Join(got, "|") != strings.Join(want, "|") {
					t.Fatalf("stored %q, want %q", got, want)
				}
				if h.Title != "Who ran the binary on i-99999999?" || h.TitleSource != record.TitleFallback {
					t.Fatalf("title %q (%s)", h.Title, h.TitleSource)
				}
				if output == "text" {
					if !strings.Contains(stderr.String(), "Saved as "+string(h.ID)+". Continue with: alertchat chat --history "+string(h.ID)) {
						t.Fatalf("no resume hint for the saved question; stderr:\n%s", stderr)
					}
					return
				}
				var got chatJSON
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("stdout %q: %v", stdout, err)
				}
				if got.HistoryID != h.ID || got.Error == nil || !strings.Contains(*got.Error, tc.says) || got.Complete || got.Answer != "" ||
					got.Title != h.Title {
					t.Fatalf("object %+v", got)
				}
			})
		}
	}
}

// downStore is a local store whose saves fail with err.
type downStore struct {
	*local.Store
	err error
}

func (d downStore) SaveHistory(context.Context, *record.History) error { return d.err }

// When the store fails too, a failed one-shot's question goes to the local spool as any turn
// does, and -o json names it; when the spool cannot take it either (a full disk), nothing
// points at a history that does not exist: no history_id, no resume hint, and the error says
// the question was not saved.
func TestOneShotUnansweredStorageFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		err     error
		spooled bool
	}{
		{"store down: spooled", errors.New("the store is down"), true},
		{"disk full: lost", goerr.Wrap(store.ErrNoSpace, "no space left on device"), false},
	} {
		for _, output := range []string{"json", "text"} {
			t.Run(tc.name+"/"+output, func(t *testing.T) {
				t.Parallel()
				srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
					return geminitest.Reply{Status: 503, ErrorMessage: "overloaded"}
				}))
				ios, stdout, stderr := cmdutil.TestIO("", false)
				ios.StderrTTY = true
				opts := testOptions(t, srv, ios)
				opts.AlertID, opts.NoRelated, opts.Output, opts.Query = string(addAlert(t, opts)), true, output, unansweredQuestion
				cfg := opts.Config()
				opts.OpenStore = func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error) {
					s, err := local.Open(ctx, local.Options{Dir: cfg.DataDir, Workspace: cfg.Workspace})
					if err != nil {
						return nil, err
					}
					return factory.Stack(ios, cfg, opts.Logger(), downStore{s, tc.err}, redact.AllTypes(), o), nil
				}
				err := chatRun(context.Background(), opts)
				if cmdutil.ExitCode(err) != cmdutil.ExitFailure || !strings.Contains(cmdutil.Message(err), "Gemini is unavailable right now") {
					t.Fatalf("err %v", err)
				}
				if strings.Contains(stderr.String(), "Continue with") {
					t.Fatalf("a resume hint for a question that is not in the store:\n%s", stderr)
				}
				spoolWarning := regexp.MustCompile(`this turn of history (\S+) is kept locally`).FindStringSubmatch(stderr.String())
				if (spoolWarning != nil) != tc.spooled {
					t.Fatalf("spooled %v, want %v; stderr:\n%s", spoolWarning != nil, tc.spooled, stderr)
				}
				if tc.spooled {
					entries, _ := filepath.Glob(filepath.Join(cfg.SpoolRoot(), "*", "*.json"))
					if len(entries) == 0 {
						t.Fatalf("nothing in the spool %s", cfg.SpoolRoot())
					}
				} else if !strings.Contains(cmdutil.Message(err), "the question could not be saved either") {
					t.Fatalf("the error does not say the question was lost: %v", err)
				}
				if output == "text" {
					return
				}
				var got chatJSON
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("stdout %q: %v", stdout, err)
				}
				if tc.spooled && string(got.HistoryID) != spoolWarning[1] || !tc.spooled && got.HistoryID != "" || got.Complete || got.Error == nil {
					t.Fatalf("object %+v", got)
				}
			})
		}
	}
}

// An interactive question that failed is in the conversation; /retry asks it again as a new
// turn, and the transcript keeps both, the first marked cut short.
func TestInteractiveRetryAfterFailure(t *testing.T) {
	t.Parallel()
	var failed atomic.Bool
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if !failed.Swap(true) {
			return geminitest.Reply{Status: 503, ErrorMessage: "overloaded"}
		}
		return geminitest.Reply{Text: "answer to " + r.LastUserText()}
	}))
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	ios := &cmdutil.IOStreams{In: strings.NewReader("Is it bad?\n/retry\n"), Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
	opts := testOptions(t, srv, ios)
	opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
	if err := chatRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "(your question is saved in the conversation; /retry sends it again)") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	hs := storedHistories(t, opts)
	if len(hs) != 1 {
		t.Fatalf("%d histories", len(hs))
	}
	want := []string{"user: Is it bad?", "model: " + session.PartialMarker, "user: Is it bad?", "model: answer to Is it bad?"}
	if got := texts(hs[0]); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stored %q, want %q", got, want)
	}
	if !strings.Contains(stderr.String(), "Resume with: alertchat chat -a "+opts.AlertID+" --history "+string(hs[0].ID)) {
		t.Fatalf("no resume hint:\n%s", stderr)
	}
}

// Ctrl-C at a one-shot's approval question: the call is answered "cancelled", the turn ends
// after the responses with a reply marked cut short, and it is saved; -o json says so, and the
// exit status is 130.
func TestOneShotApprovalCtrlC(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Lookup of an address"}
		}
		return geminitest.Reply{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "mcp_intel_lookup", Args: map[string]any{"ip": "203.0.113.7"}}}}}
	}))
	in, typed := io.Pipe() // nobody answers the question
	t.Cleanup(func() { _ = typed.Close() })
	stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	ios := &cmdutil.IOStreams{In: in, Out: stdout, ErrOut: stderr, StdinTTY: true, StdoutTTY: true, StderrTTY: true, NoColor: true}
	opts := testOptions(t, srv, ios)
	opts.AlertID, opts.NoRelated, opts.Output, opts.Query = string(addAlert(t, opts)), true, "json", "who owns the host?"
	opts.MCPConfig = filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(opts.MCPConfig, []byte(`{"mcpServers": {"intel": {"command": "unused"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.mcpHooks = &mcpHooks{transports: map[string]sdk.Transport{"intel": mcptest.Server(t, "lookup")}, wait: 20 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if eventually.Within(20*time.Second, func() bool { return strings.Contains(stderr.String(), "[y] once") }) {
			cancel() // Ctrl-C at the question
		}
	}()
	err := chatRun(ctx, opts)
	if cmdutil.ExitCode(err) != cmdutil.ExitInterrupt {
		t.Fatalf("err %v; stderr:\n%s", err, stderr)
	}
	hs := storedHistories(t, opts)
	if len(hs) != 1 {
		t.Fatalf("%d histories", len(hs))
	}
	want := []string{"user: who owns the host?", "model: call mcp_intel_lookup", "user: response cancelled", "model: " + session.PartialMarker}
	if got := texts(hs[0]); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("stored %q, want %q", got, want)
	}
	var got chatJSON
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	if got.HistoryID != hs[0].ID || got.Complete || got.Error == nil || !strings.HasPrefix(*got.Error, "interrupted") ||
		len(got.ToolCalls) != 1 || got.ToolCalls[0].Error == nil || *got.ToolCalls[0].Error != "cancelled" {
		t.Fatalf("object %+v", got)
	}
}
