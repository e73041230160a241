package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/cmd/factory"
	"github.com/alertchat/alertchat/cmd/history"
	"github.com/alertchat/alertchat/internal/clitest"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/spool"
)

// TestHistoryListMarksPending: histories with turns kept locally are marked (a "*" on a
// terminal, "pending": true in JSON, absent otherwise), histories that exist only in the spool
// are listed too, and sync uploads them.
func TestHistoryListMarksPending(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := store.Now()
	stored := clitest.NewHist("alert-1", "Stored", now.Add(-time.Hour), genai.NewContentFromText("q", genai.RoleUser))
	quiet := clitest.NewHist("alert-1", "Quiet", now.Add(-2*time.Hour), genai.NewContentFromText("q", genai.RoleUser))
	clitest.SeedHistories(t, dir, "default", stored, quiet)

	cfg := cmdutil.Config{DataDir: dir, Workspace: "default"}
	sp, err := spool.Open(spool.Options{Root: cfg.SpoolRoot(), Backend: cfg.BackendID(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	next := *stored
	next.Contents = append(append([]*genai.Content(nil), stored.Contents...), genai.NewContentFromText("a", genai.RoleModel))
	next.MessageCount, next.UpdatedAt = 2, now
	if _, err := sp.Put("", &next); err != nil {
		t.Fatal(err)
	}
	created := clitest.NewHist("alert-2", "Created offline", now.Add(-time.Minute), genai.NewContentFromText("q", genai.RoleUser))
	if _, err := sp.Put("", created); err != nil {
		t.Fatal(err)
	}

	// Listed without the flush (which the local store would pass at once), through the
	// workspace's store: its stack, and the spool beside it.
	s := clitest.OpenLocal(t, dir, "default")
	defer s.Close()
	var out, errOut bytes.Buffer
	ios := &cmdutil.IOStreams{Out: &out, ErrOut: &errOut}
	st := factory.Stack(ios, cfg, nil, s, nil, factory.StoreOptions{})
	if err := history.ListRun(context.Background(), &history.ListOptions{IO: ios, Limit: 50, Output: "json"}, st); err != nil {
		t.Fatal(err)
	}
	var hs []map[string]any
	if err := json.Unmarshal(out.Bytes(), &hs); err != nil || len(hs) != 3 {
		t.Fatalf("list: %v %s", err, out.String())
	}
	pending := map[string]any{}
	for _, h := range hs {
		pending[h["title"].(string)] = h["pending"]
	}
	if pending["Stored"] != true || pending["Created offline"] != true || pending["Quiet"] != nil {
		t.Fatalf("pending fields: %v", pending)
	}
	out.Reset()
	ios.StdoutTTY = true
	if err := history.ListRun(context.Background(), &history.ListOptions{IO: ios, Limit: 50, Output: "text", AlertID: "alert-1"}, st); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), format.ShortID(string(stored.ID))+"*") || strings.Contains(out.String(), format.ShortID(string(quiet.ID))+"*") ||
		strings.Contains(out.String(), "Created offline") || !strings.Contains(errOut.String(), "not uploaded yet") {
		t.Fatalf("terminal listing:\n%s%s", out.String(), errOut.String())
	}

	_, stderr, code := clitest.Run(t, dir, "", "history", "sync")
	if code != 0 || strings.Count(stderr, "Uploaded turns kept locally") != 2 {
		t.Fatalf("sync: exit %d, %q", code, stderr)
	}
	stdout, _, _ := clitest.Run(t, dir, "", "history", "list", "-o", "json")
	if strings.Contains(stdout, "pending") || strings.Count(stdout, `"id"`) != 3 {
		t.Fatalf("after sync: %s", stdout)
	}
	if h, err := clitest.GetMeta(t, dir, stored.ID); err != nil || len(h.Contents) != 2 {
		t.Fatalf("stored after sync: %v", err)
	}
}
