package history

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

var update = flag.Bool("update", false, "rewrite golden files")

// MixedWidthTitles are titles of every width class: ASCII, Japanese (two columns a character),
// emoji sequences, combining marks.
var mixedWidthTitles = []string{
	"Lateral movement over SMB from the build server to the domain controller",
	"管理者アカウントへの不審なログインと権限昇格の調査",
	"EC2インスタンスi-99999999が侵害された可能性 (GuardDuty)",
	"👨‍👩‍👧 family emoji, café résumé naïve",
	"短い",
}

// TestListTableFitsTheTerminal: history list on a terminal of 80 and 100 columns aligns
// mixed-width titles by display width and never prints a row wider than the terminal.
func TestListTableFitsTheTerminal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Now().Add(-3 * time.Hour)
	for i, title := range mixedWidthTitles {
		h := &record.History{
			ID:      record.HistoryID(fmt.Sprintf("%08d-1111-4111-8111-111111111111", i+1)),
			AlertID: "0f1e2d3c-aaaa-5000-8000-000000000001", Title: title,
			CreatedAt: base, UpdatedAt: base.Add(time.Duration(i) * time.Minute),
			Contents: []*genai.Content{genai.NewContentFromText("q", genai.RoleUser)}, MessageCount: 1,
		}
		if err := s.SaveHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	for _, width := range []int{80, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ios, stdout, _ := cmdutil.TestIO("", true)
			ios.TermWidth = width
			if err := listRun(ctx, &ListOptions{IO: ios, Limit: 50, Output: "text"}, nothingPending{s}); err != nil {
				t.Fatal(err)
			}
			checkTable(t, stdout.String(), width, fmt.Sprintf("list_%d.golden", width))
		})
	}
}

// nothingPending is a store without a spool beside it: no turn is kept locally.
type nothingPending struct{ *local.Store }

func (nothingPending) PendingHistories(context.Context) map[record.HistoryID]*record.History {
	return nil
}

// checkTable compares a printed table with its golden file and checks that no row is wider
// than width and that every row's columns start where the header's do.
func checkTable(t *testing.T, got string, width int, golden string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	for _, l := range lines {
		if w := format.Width(l); w > width {
			t.Errorf("row %q is %d columns, wider than %d", l, w, width)
		}
	}
	path := filepath.Join("testdata", golden)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("table differs from %s (go test -update rewrites it):\n%s\nwant:\n%s", path, got, want)
	}
}
