package workspace

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/cloud"
	"github.com/alertchat/alertchat/pkg/store/local"
	"github.com/alertchat/alertchat/pkg/store/resilient"
	"github.com/alertchat/alertchat/pkg/tokenkey"
)

// A batch job recorded through the stack reaches the backend, with the cloud settings' extra
// layer (the alert cache) too.
func TestStackFindsBatchJobs(t *testing.T) {
	t.Parallel()
	for _, project := range []string{"", "some-project"} {
		t.Run("project="+project, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			backend, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Settings{DataDir: dir, Workspace: "default", FirestoreProject: project, BackendID: "local:" + dir,
				SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
			st := Stack(backend, cfg, redact.AllTypes(), Options{})
			t.Cleanup(func() { _ = st.Close() })
			if err := st.PutBatchJob(ctx, &record.BatchJob{ID: "batches/stack1", Model: "m", InputSHA256: "sha"}); err != nil {
				t.Fatal(err)
			}
			if j, err := backend.GetBatchJob(ctx, "stack1"); err != nil || j.Workspace != "default" {
				t.Fatalf("the job did not reach the backend: %v, %v", j, err)
			}
		})
	}
}

// hangingKeys is a key store that never answers.
type hangingKeys struct{}

func (hangingKeys) WorkspaceKey(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestKeyedRedactorWithoutAKey: when the workspace's key cannot be had in time, redaction goes
// on with plain placeholders, and the caller is told.
func TestKeyedRedactorWithoutAKey(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	k := NewKeyedRedactor(redact.AllTypes(), hangingKeys{}, "", func(err error) { warn.WriteString(err.Error()) }, slog.New(slog.DiscardHandler), 50*time.Millisecond)
	out, _ := k.RedactString("mail jane@example.com")
	if out != "mail [REDACTED_EMAIL]" || !strings.Contains(warn.String(), "deadline") {
		t.Fatalf("redacted %q, told %q", out, warn.String())
	}
}

// The stack's redaction gets the workspace's key through the stack's retries and breaker, not
// from the backend around them: with the backend up the tokens are those of the backend's key;
// with an outage recorded for reads the key is not asked of the backend at all, and redaction
// goes on with plain placeholders.
func TestStackKeyThroughResilience(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		outage      bool
		wantRefused bool
	}{
		{name: "backend up"},
		{name: "outage recorded", outage: true, wantRefused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			backend, err := local.Open(ctx, local.Options{Dir: dir, Workspace: "default"})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Settings{DataDir: dir, Workspace: "default", BackendID: "local:" + dir,
				SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
			if tc.outage {
				resilient.NewFileMemory(cfg.BreakerReads, cfg.BackendID).Opened(time.Now())
			}
			var missing error
			st := Stack(backend, cfg, redact.AllTypes(), Options{OnKeyMissing: func(err error) { missing = err }})
			t.Cleanup(func() { _ = st.Close() })
			got, _ := st.Redactor.RedactString("mail jane@example.com")
			if tc.wantRefused {
				if !errors.Is(missing, resilient.ErrUnavailable) || got != "mail [REDACTED_EMAIL]" {
					t.Fatalf("with the outage recorded: %q, told %v; want plain placeholders and the breaker's refusal", got, missing)
				}
				return
			}
			want, err := tokenkey.Redactor(ctx, backend, "", redact.AllTypes()...)
			if err != nil {
				t.Fatal(err)
			}
			if w, _ := want.String("mail jane@example.com"); missing != nil || got != w || got == "mail [REDACTED_EMAIL]" {
				t.Fatalf("redacted %q (told %v), want %q, keyed with the backend's key", got, missing, w)
			}
		})
	}
}

// The largest alert the stack takes is a property of the backend the settings select: the
// cloud store's document limit, none of its own for the local store.
func TestStackMaxAlertSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		project string
		want    int
	}{{"", 0}, {"some-project", cloud.MaxAlertSize}} {
		dir := t.TempDir()
		backend, err := local.Open(context.Background(), local.Options{Dir: dir, Workspace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		cfg := Settings{DataDir: dir, Workspace: "default", FirestoreProject: tc.project, BackendID: "local:" + dir,
			SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
		st := Stack(backend, cfg, redact.AllTypes(), Options{})
		if st.MaxAlertSize != tc.want {
			t.Errorf("project %q: MaxAlertSize %d, want %d", tc.project, st.MaxAlertSize, tc.want)
		}
		_ = st.Close()
	}
}

// The alert cache sits above the retries: with an outage recorded for reads, an alert read by
// an earlier command still answers from its copy, while an alert never read is refused by the
// breaker without a request, and the breaker stays open (a copy says nothing of the backend).
func TestCachedAlertAnswersDuringAnOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	calls := &store.CallCounter{}
	backend, err := local.Open(ctx, local.Options{Dir: filepath.Join(dir, "db"), Workspace: "default", Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backend.Close() })
	for _, id := range []record.AlertID{"alert-read", "alert-unread"} {
		if _, err := backend.PutAlert(ctx, &record.Alert{ID: id, Title: string(id), Data: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Settings{DataDir: dir, Workspace: "default", FirestoreProject: "some-project", BackendID: "local:" + dir,
		SpoolRoot: filepath.Join(dir, "spool"), BreakerReads: filepath.Join(dir, "r.json"), BreakerWrites: filepath.Join(dir, "w.json")}
	if _, err := Stack(backend, cfg, redact.AllTypes(), Options{}).GetAlert(ctx, "alert-read"); err != nil {
		t.Fatal(err)
	}

	resilient.NewFileMemory(cfg.BreakerReads, cfg.BackendID).Opened(time.Now())
	st := Stack(backend, cfg, redact.AllTypes(), Options{}) // the next command
	calls.Reset()
	for range 2 {
		if a, err := st.GetAlert(ctx, "alert-read"); err != nil || a.Title != "alert-read" {
			t.Fatalf("the copied alert during the outage: %v, %v", a, err)
		}
		if _, err := st.GetAlert(ctx, "alert-unread"); !errors.Is(err, resilient.ErrUnavailable) {
			t.Fatalf("an alert never read during the outage: %v, want the breaker's refusal", err)
		}
	}
	if n := calls.Total(); n != 0 {
		t.Fatalf("%s reached the backend during the outage", calls)
	}
}
