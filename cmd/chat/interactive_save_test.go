package chat

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/m-mizutani/goerr/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// failingSaves is the local store whose next saves fail as a full disk does (an error the
// spool does not take).
type failingSaves struct {
	*local.Store
	fails *atomic.Int32
}

func (f failingSaves) SaveHistory(ctx context.Context, h *record.History) error {
	if f.fails.Add(-1) >= 0 {
		return goerr.Wrap(store.ErrNoSpace, "no space left on device")
	}
	return f.Store.SaveHistory(ctx, h)
}

// A turn whose save failed is saved once more when the chat ends; what happened is said, and
// the resume hint is printed only for a history that is stored.
func TestInteractiveUnsavedTurnAtExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fails  int32
		says   []string
		hint   bool
		stored int // contents stored
	}{
		{"saved at exit", 1, []string{"Warning: not saved yet", "The last turns are saved now."}, true, 2},
		{"never saved", 100, []string{"Warning: not saved yet", "Error: the last turns of this conversation could not be saved", "Nothing of it is stored."}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
				return geminitest.Reply{Text: "answer to " + r.LastUserText()}
			}))
			in, typed := io.Pipe()
			stdout, stderr := &syncbuf.Buffer{}, &syncbuf.Buffer{}
			ios := &cmdutil.IOStreams{In: in, Out: stdout, ErrOut: stderr, StdinTTY: true, NoColor: true}
			opts := testOptions(t, srv, ios)
			opts.AlertID, opts.NoTitles, opts.NoRelated = string(addAlert(t, opts)), true, true
			fails := &atomic.Int32{}
			fails.Store(tc.fails)
			cfg := opts.Config()
			opts.OpenStore = func(ctx context.Context, o factory.StoreOptions) (*factory.Store, error) {
				s, err := local.Open(ctx, local.Options{Dir: cfg.DataDir, Workspace: cfg.Workspace})
				if err != nil {
					return nil, err
				}
				return factory.Stack(ios, cfg, opts.Logger(), failingSaves{s, fails}, redact.AllTypes(), o), nil
			}
			done := make(chan error, 1)
			go func() { done <- chatRun(context.Background(), opts) }()
			if _, err := io.WriteString(typed, "what happened?\n"); err != nil {
				t.Fatal(err)
			}
			_ = typed.Close() // Ctrl-D after the question
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("chat ended with %v; stderr:\n%s", err, stderr)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("the chat did not end; stderr:\n%s", stderr)
			}
			errText := stderr.String()
			if !strings.Contains(stdout.String(), "answer to what happened?") {
				t.Fatalf("not answered: %q", stdout.String())
			}
			for _, s := range tc.says {
				if !strings.Contains(errText, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errText)
				}
			}
			m := regexp.MustCompile(`Resume with: alertchat chat -a \S+ --history ([0-9a-f-]{36})`).FindStringSubmatch(errText)
			if (m != nil) != tc.hint {
				t.Fatalf("resume hint %v, want %v:\n%s", m != nil, tc.hint, errText)
			}
			backend, err := local.Open(context.Background(), local.Options{Dir: cfg.DataDir, Workspace: cfg.Workspace})
			if err != nil {
				t.Fatal(err)
			}
			defer backend.Close()
			page, err := backend.ListHistories(context.Background(), store.HistoryQuery{AlertID: record.AlertID(opts.AlertID), Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if tc.stored == 0 {
				if len(page.Histories) != 0 {
					t.Fatalf("stored %+v", page.Histories)
				}
				return
			}
			if len(page.Histories) != 1 || string(page.Histories[0].ID) != m[1] || page.Histories[0].MessageCount != tc.stored {
				t.Fatalf("stored %+v, the hint names %s", page.Histories, m[1])
			}
		})
	}
}
