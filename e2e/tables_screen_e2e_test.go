package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/pkg/format"
)

// TestTablesFitTheScreen reads alert list and mcp tools on an 80-column terminal: every row on
// one line, the long cells cut with "…"; piped, the same commands print every cell whole.
func TestTablesFitTheScreen(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	long := "Unusual sign-in to the administrator console from an address never seen before in this tenant, followed by mass download of mailbox exports"
	alertFile := filepath.Join(t.TempDir(), "alert.json")
	if err := os.WriteFile(alertFile, []byte(`{"title": "`+long+`", "severity": "HIGH", "source": "idp"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.mustRun("", "alert", "add", "-f", alertFile)
	cfg := mcpConfig(t, false, filepath.Join(t.TempDir(), "pid"))

	for _, tc := range []struct {
		name string
		args []string
		cut  string // text of a cell that is too long for 80 columns
	}{
		// The stored title is already cut at 60 columns, at a word (see docs/alert-shapes.md);
		// piped, it is printed as stored.
		{"alert list", []string{"alert", "list"}, "Unusual sign-in to the administrator console from an…"},
		{"mcp tools", []string{"mcp", "tools", "intel", "--mcp-config", cfg}, "Threat intel on an IP."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.startScreen(t, 80, tc.args...)
			if code := p.Wait(t, 60*time.Second); code != 0 {
				t.Fatalf("exit %d:\n%s", code, p.Dump())
			}
			piped := c.mustRun("", tc.args...)
			lines := p.Lines()
			// A header and a line a row: a row that ran past the edge would take two.
			if rows := strings.Count(piped, "\n"); len(lines) != rows+1 {
				t.Errorf("%d lines on the screen for %d rows and a header:\n%s", len(lines), rows, p.Dump())
			}
			for i, l := range lines {
				if w := format.Width(l); w > 80 {
					t.Errorf("line %d takes %d columns:\n%s", i, w, p.Dump())
				}
			}
			if !strings.Contains(p.Text(), "…") {
				t.Errorf("no cell was cut:\n%s", p.Dump())
			}
			if !strings.Contains(piped, "\t") || !strings.Contains(piped, tc.cut) {
				t.Errorf("piped output is not tab-separated and whole: %q", piped)
			}
		})
	}
}
