package report_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/report"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/redact"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/spool"
)

// Opening the store uploads nothing and prints nothing: a command's turns kept locally during
// an outage are uploaded by UploadSpool, which says so.
func TestUploadSpoolIsAStepOfItsOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := cmdutil.Config{DataDir: dir, Workspace: "default", Redact: "all"}
	sp, err := spool.Open(spool.Options{Root: cfg.SpoolRoot(), Backend: cfg.BackendID(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	h := clitest.NewHist("alert-1", "Kept offline", store.Now(), genai.NewContentFromText("q", genai.RoleUser))
	if _, err := sp.Put("", h); err != nil {
		t.Fatal(err)
	}
	backend := clitest.OpenLocal(t, dir, "default")
	var errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}
	st := factory.Stack(ios, cfg, slog.New(slog.DiscardHandler), backend, redact.AllTypes(), factory.StoreOptions{})
	defer st.Close()
	if _, err := backend.GetHistoryMeta(ctx, h.ID); !errors.Is(err, store.ErrNotFound) || errOut.Len() != 0 {
		t.Fatalf("opening the store uploaded (%v) or printed %q", err, errOut.String())
	}
	report.UploadSpool(ctx, ios.ErrOut, st)
	if !strings.Contains(errOut.String(), "Uploaded turns kept locally to history "+string(h.ID)) {
		t.Fatalf("UploadSpool said %q", errOut.String())
	}
	if _, err := backend.GetHistoryMeta(ctx, h.ID); err != nil {
		t.Fatalf("not uploaded: %v", err)
	}
}

// The commands' door opens the store and uploads the spool's turns, saying so; a failed open
// is returned and nothing is uploaded.
func TestOpenAndUploadUploadsAndSays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	cfg := cmdutil.Config{DataDir: dir, Workspace: "default", Redact: "all"}
	sp, err := spool.Open(spool.Options{Root: cfg.SpoolRoot(), Backend: cfg.BackendID(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	h := clitest.NewHist("alert-1", "Kept offline", store.Now(), genai.NewContentFromText("q", genai.RoleUser))
	if _, err := sp.Put("", h); err != nil {
		t.Fatal(err)
	}
	backend := clitest.OpenLocal(t, dir, "default")
	var errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut}
	refused := errors.New("refused")
	for _, tc := range []struct {
		name    string
		openErr error
	}{
		{"open fails", refused},
		{"open succeeds", nil},
	} {
		open := func(context.Context, factory.StoreOptions) (*factory.Store, error) {
			if tc.openErr != nil {
				return nil, tc.openErr
			}
			return factory.Stack(ios, cfg, slog.New(slog.DiscardHandler), backend, redact.AllTypes(), factory.StoreOptions{}), nil
		}
		ran := false
		// Checked inside fn: closing the store closes the backend.
		getErr := errors.New("not checked")
		err := report.WithUploadedStore(ctx, ios.ErrOut, open, factory.StoreOptions{}, func(*factory.Store) error {
			ran = true
			_, getErr = backend.GetHistoryMeta(ctx, h.ID)
			return nil
		})
		if !ran {
			_, getErr = backend.GetHistoryMeta(ctx, h.ID)
		}
		if tc.openErr != nil {
			if !errors.Is(err, refused) || ran || !errors.Is(getErr, store.ErrNotFound) || errOut.Len() != 0 {
				t.Fatalf("%s: %v, ran %v, uploaded %v, said %q", tc.name, err, ran, getErr == nil, errOut.String())
			}
			continue
		}
		if err != nil || !ran || getErr != nil {
			t.Fatalf("%s: %v, ran %v, history %v", tc.name, err, ran, getErr)
		}
		if !strings.Contains(errOut.String(), "Uploaded turns kept locally to history "+string(h.ID)) {
			t.Fatalf("%s: said %q", tc.name, errOut.String())
		}
	}
}
