package cmdutil

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/termtest"
	"github.com/alertchat/alertchat/pkg/format"
)

var tableRows = [][]string{
	{"514c60ac", "GuardDuty: EC2 instance i-0abc123 is querying a domain associated with crypto-mining", "3h ago",
		"…instance profile credentials were used from 203.0.113.7 outside the corporate ranges during the window in question…"},
	{"9f0e1d2c", "不審なログイン: 管理者アカウントへの海外からのログイン試行が多数検出されました（要確認）", "2d ago",
		"…パスワードスプレー攻撃の可能性が高く、影響を受けたアカウントのパスワードをただちに変更してください…"},
	{"0badc0de", "short", "just now", "short match"},
}

// TestTableFitsTheTerminal prints a table of long titles and snippets on terminals of 80, 100
// and 120 columns and reads the screen: no row runs past the edge (a row that wraps would
// take two lines), the cut cells end with "…", CJK counted two columns, and the short
// columns (IDs, times) are whole.
func TestTableFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{80, 100, 120} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			t.Parallel()
			term := termtest.Open(t, cols, 10)
			tab := NewTable(term.TTY, true, "ID", "TITLE", "UPDATED", "MATCH").Fit(cols)
			for _, r := range tableRows {
				// Highlighting, as history search styles a match: it must survive the cut.
				tab.RowStyled(r[0], CleanCell(r[1]), r[2], strings.Replace(r[3], "instance", "\x1b[1minstance\x1b[0m", 1))
			}
			tab.Flush()
			term.Flush(t)
			rows := term.Lines()
			if len(rows) != 1+len(tableRows) {
				t.Fatalf("%d lines for %d rows and a header (a row wrapped):\n%s", len(rows), len(tableRows), term.Dump())
			}
			for i, r := range rows {
				if w := format.Width(r); w > cols {
					t.Errorf("row %d is %d columns wide on a %d-column terminal:\n%s", i, w, cols, term.Dump())
				}
			}
			for _, want := range []string{"514c60ac", "9f0e1d2c", "just now", "2d ago", "short match"} {
				if !strings.Contains(term.Text(), want) {
					t.Errorf("%q is not whole:\n%s", want, term.Dump())
				}
			}
			if !strings.HasSuffix(rows[1], "…") || !strings.HasSuffix(rows[2], "…") {
				t.Errorf("the cut cells do not end with …:\n%s", term.Dump())
			}
			if !strings.Contains(term.Raw(), "\x1b[1minstance\x1b[0m") {
				t.Errorf("the match lost its highlighting")
			}
		})
	}
}

func TestTableCutsTheWidestColumn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		width int
		only  []string
		want  []string
	}{
		{"fits: untouched", 200, nil, []string{"A  BBBBBBBBBBBBBBBBBBBB  CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}},
		{"widest first", 50, nil, []string{"A  BBBBBBBBBBBBBBBBBBBB  CCCCCCCCCCCCCCCCCCCCCCCC…"}},
		{"then the next widest", 40, nil, []string{"A  BBBBBBBBBBBBBBBB…  CCCCCCCCCCCCCCCCC…"}},
		{"only the named column", 40, []string{"B"}, []string{"A  BBBBBBBBBBB…  CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"}},
		{"never below the floor", 10, nil, []string{"A  BBBBBBBBBBB…  CCCCCCCCCCC…"}},
		{"CJK counts two", 30, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			tab := NewTable(&out, true, "A", "B", "C").Fit(tc.width, tc.only...)
			tab.Row("A", strings.Repeat("B", 20), strings.Repeat("C", 30))
			if tc.name == "CJK counts two" {
				tab = NewTable(&out, true, "A", "B").Fit(tc.width)
				out.Reset()
				tab.Row("A", strings.Repeat("日本語", 5))
				tab.Flush()
				// 1 + 2 + 30 columns is 33: the cell is cut to 27 columns, 13 characters and "…".
				if got := strings.Split(out.String(), "\n")[1]; got != "A  日本語日本語日本語日本語日…" {
					t.Errorf("got %q", got)
				}
				return
			}
			tab.Flush()
			if got := strings.Split(out.String(), "\n")[1]; got != tc.want[0] {
				t.Errorf("got  %q\nwant %q", got, tc.want[0])
			}
		})
	}
}

func TestTablePipedIsUncut(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	tab := NewTable(&out, false, "ID", "TITLE").Fit(20)
	long := strings.Repeat("word ", 30)
	tab.Row("1", long)
	tab.Flush()
	if out.String() != "1\t"+long+"\n" {
		t.Errorf("piped table changed: %q", out.String())
	}
}
