package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/testenv"
)

// alertSamples are the shapes of testdata/alerts and how many alerts each holds.
var alertSamples = map[string]int{
	"guardduty-findings.json": 3, "securityhub-findings.json": 2, "scc-findings-list.json": 2, "scc-notification.json": 1,
	"eventbridge-guardduty.json": 1, "eventbridge-securityhub.json": 2, "suricata-eve.json": 3, "falco-events.jsonl": 3,
}

// TestAlertShapesCloud adds every shape to the cloud store (Firestore emulator and
// fake-gcs-server) with the binary: one document per finding with its severity and source,
// the same IDs when added again, listed and searched by severity.
func TestAlertShapesCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	c := newCLI(t)
	c.env = append(c.env, cloud.Env()...)
	var files []string
	total := 0
	for f, n := range alertSamples {
		files = append(files, filepath.Join(repoDir(t), "testdata", "alerts", f))
		total += n
	}
	slices.Sort(files)
	ids := strings.Fields(c.mustRun("", append([]string{"alert", "add", "-f"}, files...)...))
	if len(ids) != total {
		t.Fatalf("%d IDs, want %d", len(ids), total)
	}
	again := strings.Fields(c.mustRun("", append([]string{"alert", "add", "-f"}, files...)...))
	if !slices.Equal(ids, again) {
		t.Fatalf("adding again gave other IDs")
	}
	docs, err := cloud.Firestore.Collection("alerts").Where("workspace", "==", "default").Documents(context.Background()).GetAll()
	if err != nil || len(docs) != total {
		t.Fatalf("%d alert documents, %v; want %d", len(docs), err, total)
	}
	for _, d := range docs {
		if sev, _ := d.Data()["severity"].(string); sev == "" {
			t.Errorf("document %s has no severity: %v", d.Ref.ID, d.Data()["title"])
		}
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "-o", "json", "--limit", "100")), &list); err != nil || len(list) != total {
		t.Fatalf("list: %v, %d", err, len(list))
	}
	if list[0]["source"] == nil || list[0]["severity"] == nil {
		t.Fatalf("list without severity or source: %v", list[0])
	}
	var hits []map[string]any
	if err := json.Unmarshal([]byte(c.mustRun("", "alert", "search", "123456789012", "--severity", "critical", "-o", "json")), &hits); err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 { // Inspector's CVE and the root MFA control
		t.Fatalf("critical hits: %v", hits)
	}
}

// TestAlertPullCloud pulls Security Command Center notifications into the cloud store.
func TestAlertPullCloud(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	ps := testenv.NewPubSub(t, 10)
	c := newCLI(t)
	c.env = append(c.env, cloud.Env()...)
	c.env = append(c.env, testenv.EnvPubSubHost+"="+testenv.PubSubHost(t))
	note, err := os.ReadFile(filepath.Join(repoDir(t), "testdata", "alerts", "scc-notification.json"))
	if err != nil {
		t.Fatal(err)
	}
	ps.Publish(t, note, note)
	out := c.mustRun("", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s")
	added := c.addAlert("scc-notification.json")
	if ids := strings.Fields(out); len(ids) != 1 || ids[0] != added {
		t.Fatalf("pulled %q, the file adds %s", out, added)
	}
	docs, err := cloud.Firestore.Collection("alerts").Documents(context.Background()).GetAll()
	if err != nil || len(docs) != 1 || docs[0].Data()["source"] != "scc" {
		t.Fatalf("%d documents, %v", len(docs), err)
	}
}

// buildPlain builds the binary without the race detector, for measurements.
func buildPlain(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "alertchat")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		b.Fatalf("build: %v: %s", err, out)
	}
	return bin
}

// measured is what runMeasured saw of a run.
type measured struct {
	rssMB     float64       // peak RSS (VmHWM)
	took, cpu time.Duration // wall time; user and system CPU time
	lines     int           // of stdout
}

// report reports n items' rates, by the wall clock and by CPU time (the machine is shared:
// the CPU rate is what an idle core would do), and the peak RSS.
func (m measured) report(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(n)/m.took.Seconds(), unit+"/s")
	b.ReportMetric(float64(n)/m.cpu.Seconds(), unit+"/cpu-s")
	b.ReportMetric(m.rssMB, "peak-RSS-MB")
}

// runMeasured runs bin with stdin from feed (nil: none) and measures it.
func runMeasured(b *testing.B, c *cli, bin string, feed func(io.Writer) error, args ...string) measured {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = c.env, c.dataDir
	var errOut strings.Builder
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	lines := 0
	var stdin io.WriteCloser
	if feed != nil {
		if stdin, err = cmd.StdinPipe(); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// The kernel's high-water mark of the process's own memory (VmHWM), read until it exits:
	// its rusage maxrss counts the forking test process as well.
	done := make(chan struct{})
	hwm := make(chan int, 1)
	go func() {
		last := 0
		defer func() { hwm <- last }()
		for {
			if kb := vmHWM(cmd.Process.Pid); kb > last {
				last = kb
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fed := make(chan error, 1)
	if feed != nil {
		go func() {
			w := bufio.NewWriterSize(stdin, 1<<20)
			err := feed(w)
			if err == nil {
				err = w.Flush()
			}
			_ = stdin.Close()
			fed <- err
		}()
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines++
	}
	err = cmd.Wait()
	close(done)
	if err != nil {
		b.Fatalf("%v: %v: %s", args, err, errOut.String())
	}
	if feed != nil {
		if err := <-fed; err != nil {
			b.Fatal(err)
		}
	}
	took := time.Since(start)
	return measured{rssMB: float64(<-hwm) / 1024, took: took, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), lines: lines}
}

// vmHWM is a live process's peak resident set in KiB (0 once it is gone).
func vmHWM(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int
			_, _ = fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}

// eveLine is a Suricata alert record of about size bytes, unique for i.
func eveLine(i, size int) string {
	head := fmt.Sprintf(`{"timestamp":"2025-06-09T10:%02d:%02d.%06d+0000","flow_id":%d,"in_iface":"eth0","event_type":"alert","src_ip":"10.%d.%d.%d","src_port":%d,"dest_ip":"198.51.100.%d","dest_port":443,"proto":"TCP","alert":{"action":"allowed","gid":1,"signature_id":%d,"rev":3,"signature":"ET POLICY sample signature %d","category":"Potentially Bad Traffic","severity":%d},"payload_printable":"`,
		i/60%60, i%60, i%1000000, 1000000000+i, i>>16&255, i>>8&255, i&255, 1024+i%60000, i%250, 2000000+i%5000, i%5000, 1+i%3)
	pad := size - len(head) - 3
	if pad < 0 {
		pad = 0
	}
	return head + strings.Repeat("x", pad) + `"}` + "\n"
}

// feedEve writes n eveLines of size bytes.
func feedEve(n, size int) func(io.Writer) error {
	return func(w io.Writer) error {
		for i := range n {
			if _, err := io.WriteString(w, eveLine(i, size)); err != nil {
				return err
			}
		}
		return nil
	}
}

// BenchmarkAlertAddNDJSON adds 100,000 Suricata alerts (about 600 bytes each, one a line) to
// the local store with a binary built without the race detector, fed through stdin. It reports
// the rate and the process's peak RSS (VmHWM).
//
//	go test -run '^$' -bench AlertAddNDJSON -benchtime 1x ./e2e
func BenchmarkAlertAddNDJSON(b *testing.B) {
	bin := buildPlain(b)
	const n = 100_000
	for b.Loop() {
		m := runMeasured(b, newCLI(b), bin, feedEve(n, 600), "alert", "add", "-f", "-")
		if m.lines != n {
			b.Fatalf("%d IDs printed, want %d", m.lines, n)
		}
		m.report(b, n, "alerts")
	}
}

// BenchmarkAlertAddStreamRSS streams ALERTCHAT_BENCH_STREAM_MB megabytes (default 1024) of
// NDJSON (1 KB lines) through alert add's stdin into the local store, and reports the peak
// RSS: it must not grow with the stream. A gigabyte takes minutes and some 3 GB of disk.
//
//	go test -run '^$' -bench AlertAddStreamRSS -benchtime 1x -timeout 60m ./e2e
func BenchmarkAlertAddStreamRSS(b *testing.B) {
	mb := 1024
	if v := os.Getenv("ALERTCHAT_BENCH_STREAM_MB"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &mb); err != nil {
			b.Fatal(err)
		}
	}
	bin := buildPlain(b)
	n := mb << 10 // 1 KB a line
	for b.Loop() {
		m := runMeasured(b, newCLI(b), bin, feedEve(n, 1024), "alert", "add", "-f", "-")
		if m.lines != n {
			b.Fatalf("%d IDs printed, want %d", m.lines, n)
		}
		b.ReportMetric(float64(mb), "input-MB")
		m.report(b, n, "alerts")
	}
}

// BenchmarkAlertPull publishes 20,000 Falco events to a subscription of the Pub/Sub emulator
// and pulls them into the local store with a binary built without the race detector.
//
//	go run ./internal/cmd/testrun -- go test -run '^$' -bench AlertPull -benchtime 1x ./e2e
func BenchmarkAlertPull(b *testing.B) {
	bin := buildPlain(b)
	const n = 20_000
	for b.Loop() {
		b.StopTimer()
		ps := testenv.NewPubSub(b, 60)
		msgs := make([][]byte, n)
		for i := range msgs {
			msgs[i] = fmt.Appendf(nil, `{"hostname":"node-%d","output":"shell in container %d","priority":"Notice","rule":"Terminal shell in container","source":"syscall","time":"2025-06-09T10:31:08.%09dZ","output_fields":{"container.id":"%012x"}}`, i%40, i, i, i)
		}
		ps.Publish(b, msgs...)
		c := newCLI(b)
		c.env = append(c.env, testenv.EnvPubSubHost+"="+testenv.PubSubHost(b))
		b.StartTimer()
		m := runMeasured(b, c, bin, nil, "alert", "pull", "--subscription", ps.Subscription, "--max", fmt.Sprint(n), "--wait", "5s")
		if m.lines != n {
			b.Fatalf("%d IDs printed, want %d", m.lines, n)
		}
		m.report(b, n, "alerts")
	}
}
