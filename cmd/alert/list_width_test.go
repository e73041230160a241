package alert

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/pkg/format"
	"github.com/alertchat/alertchat/pkg/record"
	"github.com/alertchat/alertchat/pkg/store/local"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestListTableFitsTheTerminal: alert list on a terminal of 80 and 100 columns cuts
// mixed-width titles to fit, by display width.
func TestListTableFitsTheTerminal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	base := time.Now().Add(-5 * time.Hour)
	for i, title := range []string{
		"UnauthorizedAccess:EC2/SSHBruteForce: 198.51.100.7 is performing SSH brute force attacks against i-99999999",
		"管理者アカウントへの不審なログイン (Security Command Center: 権限昇格の疑い)",
		"Backdoor:EC2/C&CActivity.B!DNS ドロップポイントへの問い合わせ",
		"🚨 Crypto mining détecté sur la instance",
		"短い",
	} {
		a := &record.Alert{ID: record.AlertID(fmt.Sprintf("%08d-2222-5222-8222-222222222222", i+1)), Title: title,
			Data: []byte(`{}`), CreatedAt: base.Add(time.Duration(i) * time.Minute),
			Severity: []string{"high", "medium", "critical", "", "info"}[i], Source: []string{"guardduty", "scc", "guardduty", "", "securityhub"}[i],
			Status: []string{"", "inactive", "", "", "resolved"}[i]}
		if _, err := s.PutAlert(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, width := range []int{80, 100} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ios, stdout, _ := cmdutil.TestIO("", true)
			ios.TermWidth = width
			if err := listRun(ctx, &ListOptions{IO: ios, Limit: 50, Output: "text"}, s); err != nil {
				t.Fatal(err)
			}
			got := stdout.String()
			for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if w := format.Width(l); w > width {
					t.Errorf("row %q is %d columns, wider than %d", l, w, width)
				}
			}
			path := filepath.Join("testdata", fmt.Sprintf("list_%d.golden", width))
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
		})
	}
}
