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
