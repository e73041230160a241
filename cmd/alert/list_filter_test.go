package alert_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/clitest"
)

// alert list finds the high-severity open findings among the others: --open, --severity (at
// least), --source; the closed ones say their status; past --limit it says how many more.
func TestAlertListFilters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, `{"rule": "Rule %d", "priority": "%s", "output": "o %d", "time": "2025-06-09T10:23:45.123456789Z"}`+"\n",
			i, []string{"Critical", "Error", "Warning", "Notice"}[i%4], i)
	}
	for _, in := range []string{b.String(), sample(t, "guardduty-getfindings-api.json"), sample(t, "scc-rest-list.json"),
		sample(t, "securityhub-findings-workflow.json")} {
		if _, errOut, code := clitest.Run(t, dir, in, "alert", "add", "-f", "-"); code != 0 {
			t.Fatalf("add: exit %d: %s", code, errOut)
		}
	}
	type row struct {
		Title    string  `json:"title"`
		Severity *string `json:"severity"`
		Source   *string `json:"source"`
		Status   *string `json:"status"`
	}
	list := func(args ...string) ([]row, string) {
		t.Helper()
		out, errOut, code := clitest.Run(t, dir, "", append([]string{"alert", "list", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var rows []row
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
		return rows, errOut
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	rows, errOut := list("--open", "--severity", "HIGH", "--source", "guardduty")
	if len(rows) != 2 || errOut != "" {
		t.Fatalf("open high guardduty: %+v, stderr %q", rows, errOut)
	}
	for _, r := range rows {
		if s := str(r.Severity); (s != "high" && s != "critical") || str(r.Status) != "null" {
			t.Errorf("%+v", r)
		}
	}
	rows, _ = list("--source", "guardduty")
	if len(rows) != 3 || str(rows[0].Status) != "archived" {
		t.Fatalf("guardduty: %+v", rows)
	}
	rows, _ = list("--source", "securityhub")
	statuses := map[string]int{}
	for _, r := range rows {
		statuses[str(r.Status)]++
	}
	if statuses["resolved"] != 1 || statuses["archived"] != 1 || statuses["null"] != 1 {
		t.Fatalf("security hub statuses %v", statuses)
	}
	if rows, _ := list("--source", "securityhub", "--open"); len(rows) != 1 || str(rows[0].Status) != "null" {
		t.Fatalf("open security hub: %+v", rows)
	}
	if rows, _ := list("--severity", "critical", "--source", "scc"); len(rows) != 1 || rows[0].Title != "Exfiltration: BigQuery Data Exfiltration" {
		t.Fatalf("critical scc: %+v", rows)
	}
	// 120 Falco events, of which 30 critical: past --limit, how many more (stderr), JSON as it is.
	rows, errOut = list("--source", "falco", "--severity", "critical", "--limit", "10")
	if len(rows) != 10 || errOut != "20 more alerts past --limit 10 (30 in all; --limit N shows more).\n" {
		t.Fatalf("%d rows, stderr %q", len(rows), errOut)
	}
	out, errOut, code := clitest.Run(t, dir, "", "alert", "list", "--limit", "5")
	if code != 0 || !strings.Contains(out, "\tresolved\t") || !strings.Contains(errOut, "124 more alerts past --limit 5") {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	if _, errOut, code := clitest.Run(t, dir, "", "alert", "list", "--severity", "urgent"); code != cmdutil.ExitUsage || !strings.Contains(errOut, "critical, high, medium, low, info") {
		t.Fatalf("bad severity: exit %d, %q", code, errOut)
	}
	if out, errOut, code := clitest.Run(t, dir, "", "alert", "list", "--source", "nothing-here"); code != 0 || out != "" || errOut != "" {
		t.Fatalf("no match piped: exit %d, %q, %q", code, out, errOut)
	}
}
