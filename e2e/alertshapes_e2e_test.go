package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alertchat/alertchat/internal/testenv"
)

// rawShapes are the raw APIs' responses and streams of testdata/alerts, and how many alerts
// alert add stores of each.
var rawShapes = map[string]int{
	"guardduty-getfindings-api.json": 3, "scc-rest-list.json": 3, "securityhub-findings-workflow.json": 3,
	"suricata-eve-mixed.json": 1, "gcp-audit-entries.jsonl": 2,
}

// checkRawShapes adds the raw shapes through the binary of c, then finds the high-severity
// open findings among them and 300 Suricata alerts with alert list, as an analyst would.
func checkRawShapes(t *testing.T, c *cli) {
	t.Helper()
	total := 0
	for f, n := range rawShapes {
		path := filepath.Join(repoDir(t), "testdata", "alerts", f)
		r := c.run("", "alert", "add", "-f", path)
		if ids := strings.Fields(r.stdout); r.code != 0 || len(ids) != n {
			t.Fatalf("%s: exit %d, %d IDs, want %d: %s", f, r.code, len(ids), n, r.stderr)
		}
		if f == "suricata-eve-mixed.json" && !strings.Contains(r.stderr, "skipped 11 events that are not alerts: flow 4, dns 2") {
			t.Errorf("eve: stderr %q", r.stderr)
		}
		total += n
	}
	for _, empty := range []string{`{"findings": []}`, `{"listFindingsResults": [], "readTime": "2025-06-11T12:00:00Z"}`, `{"readTime": "2025-06-11T12:00:00Z", "totalSize": 0}`} {
		if r := c.run(empty, "alert", "add", "-f", "-"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no findings to add") {
			t.Fatalf("%s: exit %d, %q, %q", empty, r.code, r.stdout, r.stderr)
		}
	}
	var eve strings.Builder
	for i := range 300 {
		eve.WriteString(eveLine(i, 400))
		fmt.Fprintf(&eve, `{"timestamp":"2025-06-09T10:00:00.000000+0000","flow_id":%d,"event_type":"flow","src_ip":"10.0.0.1","dest_ip":"198.51.100.1","flow":{}}`+"\n", i)
	}
	if r := c.run(eve.String(), "alert", "add", "-f", "-"); r.code != 0 || len(strings.Fields(r.stdout)) != 300 ||
		!strings.Contains(r.stderr, "skipped 300 events that are not alerts: flow 300") {
		t.Fatalf("eve: exit %d, %d IDs, %q", r.code, len(strings.Fields(r.stdout)), r.stderr)
	}
	total += 300
	type row struct {
		Title    string  `json:"title"`
		Severity *string `json:"severity"`
		Source   *string `json:"source"`
		Status   *string `json:"status"`
	}
	list := func(args ...string) ([]row, string) {
		t.Helper()
		r := c.run("", append([]string{"alert", "list", "-o", "json"}, args...)...)
		var rows []row
		if err := json.Unmarshal([]byte(r.stdout), &rows); r.code != 0 || err != nil {
			t.Fatalf("%v: exit %d, %v: %s", args, r.code, err, r.stderr)
		}
		return rows, r.stderr
	}
	// The high-severity open findings of the cloud tools: GuardDuty's high and critical, Security
	// Hub's open critical, SCC's high and critical; not the resolved, archived or inactive ones.
	got := map[string]bool{}
	for _, src := range []string{"guardduty", "securityhub", "scc"} {
		rows, errOut := list("--open", "--severity", "high", "--source", src)
		for _, r := range rows {
			if r.Status != nil || (*r.Severity != "high" && *r.Severity != "critical") || *r.Source != src {
				t.Errorf("%s: %+v", src, r)
			}
			got[r.Title] = true
		}
		if errOut != "" {
			t.Errorf("%s: stderr %q", src, errOut)
		}
	}
	if len(got) != 5 || !got["Hardware MFA should be enabled for the root user"] || !got["Exfiltration: BigQuery Data Exfiltration"] {
		t.Fatalf("open high findings: %v", got)
	}
	rows, errOut := list("--source", "suricata", "--severity", "high", "--limit", "10")
	if len(rows) != 10 || !strings.Contains(errOut, "91 more alerts past --limit 10 (101 in all") {
		t.Fatalf("suricata high: %d rows, stderr %q", len(rows), errOut)
	}
	all, errOut := list("--limit", "1000")
	if len(all) != total || errOut != "" {
		t.Fatalf("%d alerts listed, want %d; stderr %q", len(all), total, errOut)
	}
	closed := 0
	for _, r := range all {
		if r.Title == "" || strings.Contains(r.Title, "...") {
			t.Errorf("title %q", r.Title)
		}
		if r.Status != nil {
			closed++
		}
	}
	if closed != 4 { // GuardDuty archived, Security Hub resolved and archived, SCC inactive
		t.Errorf("%d closed alerts, want 4", closed)
	}
}

// TestAlertRawShapesLocal: the raw API shapes, streams and filters on the local store.
func TestAlertRawShapesLocal(t *testing.T) {
	t.Parallel()
	checkRawShapes(t, newCLI(t))
}

// TestAlertRawShapesCloud: the same on the cloud store (Firestore emulator and
// fake-gcs-server), each closed finding's document holding its status.
func TestAlertRawShapesCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t)
	c.env = append(c.env, cloud.Env()...)
	checkRawShapes(t, c)
	docs, err := cloud.Firestore.Collection("alerts").Where("status", "==", "resolved").Documents(context.Background()).GetAll()
	if err != nil || len(docs) != 1 || docs[0].Data()["source"] != "securityhub" {
		t.Fatalf("%d resolved documents, %v", len(docs), err)
	}
}

// eveEvent is an eve.json record of about size bytes: every hundredth an alert, the others
// flow, dns, http, tls or stats events.
func eveEvent(i, size int) string {
	if i%100 == 0 {
		return eveLine(i, size)
	}
	kinds := []string{"flow", "dns", "http", "tls", "flow", "fileinfo", "flow", "ssh", "flow", "stats"}
	kind := kinds[i%len(kinds)]
	head := fmt.Sprintf(`{"timestamp":"2025-06-09T10:%02d:%02d.%06d+0000","flow_id":%d,"in_iface":"eth0","event_type":"%s","src_ip":"10.%d.%d.%d","src_port":%d,"dest_ip":"198.51.100.%d","dest_port":443,"proto":"TCP","%s":{"pkts_toserver":%d,"bytes_toserver":%d,"state":"closed","note":"`,
		i/60%60, i%60, i%1000000, 1000000000+i, kind, i>>16&255, i>>8&255, i&255, 1024+i%60000, i%250, kind, i%97, i%9973)
	pad := max(size-len(head)-4, 0)
	return head + strings.Repeat("x", pad) + `"}}` + "\n"
}

// BenchmarkAlertAddMixedEve adds an eve.json of ALERTCHAT_BENCH_EVENTS events (default
// 1,000,000, about 500 bytes each: some 500 MB) of which 1% are alerts to the local store,
// with a binary built without the race detector, fed through stdin. It reports the events
// skipped or stored a second and the process's peak RSS (VmHWM).
//
//	go test -run '^$' -bench AlertAddMixedEve -benchtime 1x -timeout 30m ./e2e
func BenchmarkAlertAddMixedEve(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("ALERTCHAT_BENCH_EVENTS"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &n); err != nil {
			b.Fatal(err)
		}
	}
	bin := buildPlain(b)
	feed := func(w io.Writer) error {
		for i := range n {
			if _, err := io.WriteString(w, eveEvent(i, 500)); err != nil {
				return err
			}
		}
		return nil
	}
	for b.Loop() {
		m := runMeasured(b, newCLI(b), bin, feed, "alert", "add", "-f", "-")
		if want := (n + 99) / 100; m.lines != want {
			b.Fatalf("%d IDs printed, want %d", m.lines, want)
		}
		m.report(b, n, "events")
	}
}
