package e2e_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/syncbuf"
	"github.com/alertchat/alertchat/internal/testenv"
)

// triageAnswers: the verdict request (structured output) proposes true_positive for a brute
// force alert and false_positive for the others, citing one value of the alert and, for the
// false positives, one value seen nowhere; questions get a short answer; an alert whose text
// says "broken" makes the model fail, one that says "slow" answers after slow.
func triageAnswers(slow time.Duration) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			if strings.Contains(r.LastUserText(), "brute") {
				return geminitest.Reply{Text: `{"verdict":"true_positive","conclusion":"A real attack.","confidence":0.9,"evidence":[{"value":"203.0.113.9","claim":"the attacker"}]}`}
			}
			return geminitest.Reply{Text: `{"verdict":"false_positive","conclusion":"Our scanner.","confidence":0.82,` +
				`"evidence":[{"value":"198.51.100.23","claim":"our scanner"},{"value":"192.0.2.250","claim":"seen nowhere"}]}`}
		}
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "Triaged alert"}
		}
		switch sys := r.SystemText(); {
		case strings.Contains(sys, "broken"):
			return geminitest.Reply{Status: 400, ErrorMessage: "the request is broken"}
		case slow > 0 && strings.Contains(sys, "slow"):
			return geminitest.Reply{Text: "thinking long", Latency: slow}
		}
		return geminitest.Reply{Text: "The probe came from 198.51.100.23, our scanner."}
	})
}

// triageLine is one line of triage -o json.
type triageLine struct {
	AlertID    string   `json:"alert_id"`
	HistoryID  string   `json:"history_id"`
	Verdict    *string  `json:"verdict"`
	Confidence *float64 `json:"confidence"`
	Evidence   []struct {
		Value       string `json:"value"`
		Claim       string `json:"claim"`
		Unsupported bool   `json:"unsupported"`
	} `json:"evidence"`
	Error *string `json:"error"`
	Usage struct {
		InputTokens int64 `json:"input_tokens"`
	} `json:"usage"`
}

func triageLines(t *testing.T, out string) map[string]triageLine {
	t.Helper()
	got := map[string]triageLine{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var l triageLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("a line that is not JSON: %q: %v", line, err)
		}
		got[l.AlertID] = l
	}
	return got
}

// addAlerts stores one alert a line and returns their IDs in order.
func (c *cli) addAlerts(lines ...string) []string {
	c.t.Helper()
	return strings.Fields(c.mustRun(strings.Join(lines, "\n")+"\n", "alert", "add", "-f", "-"))
}

type alertOut struct {
	ID     string `json:"id"`
	Triage *struct {
		Verdict    string  `json:"verdict"`
		Confidence float64 `json:"confidence"`
		HistoryID  string  `json:"history_id"`
	} `json:"triage"`
}

type historyOut struct {
	ID      string  `json:"id"`
	AlertID string  `json:"alert_id"`
	Verdict *string `json:"verdict"`
	Triage  *struct {
		Verdict  string `json:"verdict"`
		Evidence []struct {
			Value       string `json:"value"`
			Unsupported bool   `json:"unsupported"`
		} `json:"evidence"`
	} `json:"triage"`
	TriageAgreed *bool `json:"triage_agreed"`
}

// triageCLI is a CLI whose fake model triages, on the local store or on the cloud one.
func triageCLI(t *testing.T, cloud bool) *cli {
	t.Helper()
	c := newCLI(t, triageAnswers(0))
	c.env = append(c.env, "ALERTCHAT_MODEL=gemini-3.8-flash")
	if cloud {
		c.env = append(c.env, testenv.CloudEnv(t).Env()...)
		c.env = append(c.env, "ALERTCHAT_STORE_TIMEOUT=60s")
	}
	return c
}

// The queue triaged end to end on both stores: the open alerts without a triage are each
// investigated, proposed a verdict with evidence (unsupported where the investigation never saw
// it) and saved as an open history carrying the proposal; alert list shows and filters it, a
// second run finds nothing left, a named alert is skipped unless --retriage, and resolving the
// history records whether the analyst agreed.
func TestTriageQueueBothStores(t *testing.T) {
	t.Parallel()
	for _, cloud := range []bool{false, true} {
		t.Run(fmt.Sprint("cloud=", cloud), func(t *testing.T) {
			t.Parallel()
			c := triageCLI(t, cloud)
			ids := c.addAlerts(
				`{"title":"Port scan from 198.51.100.23","src_ip":"198.51.100.23"}`,
				`{"title":"SSH brute force from 203.0.113.9","src_ip":"203.0.113.9"}`,
				`{"title":"Another scan from 198.51.100.23","src_ip":"198.51.100.23","n":3}`,
			)
			if len(ids) != 3 {
				t.Fatalf("alert IDs %v", ids)
			}
			r := c.run("", "triage", "-o", "json", "--concurrency", "2")
			if r.code != 0 {
				t.Fatalf("triage: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			lines := triageLines(t, r.stdout)
			if len(lines) != 3 || !strings.Contains(r.stderr, "3 triaged: 2 false_positive, 1 true_positive; 0 skipped; 0 failed;") {
				t.Fatalf("lines %v\nstderr: %s", lines, r.stderr)
			}
			fp, tp := lines[ids[0]], lines[ids[1]]
			if fp.Verdict == nil || *fp.Verdict != "false_positive" || *fp.Confidence != 0.82 || fp.Error != nil || fp.HistoryID == "" ||
				len(fp.Evidence) != 2 || fp.Evidence[0].Unsupported || !fp.Evidence[1].Unsupported || fp.Usage.InputTokens == 0 {
				t.Fatalf("false positive line: %+v", fp)
			}
			if tp.Verdict == nil || *tp.Verdict != "true_positive" || *tp.Confidence != 0.9 {
				t.Fatalf("true positive line: %+v", tp)
			}

			// A proposal is never a resolution: the history and the alert stay open.
			var hs []historyOut
			if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json", "--open")), &hs); err != nil || len(hs) != 3 {
				t.Fatalf("open histories: %v %v", hs, err)
			}
			for _, h := range hs {
				if h.Triage == nil || h.Verdict != nil || h.TriageAgreed != nil {
					t.Fatalf("history %+v", h)
				}
			}
			var open []alertOut
			if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "--open", "-o", "json")), &open); err != nil || len(open) != 3 {
				t.Fatalf("open alerts: %v %v", open, err)
			}
			for _, a := range open {
				if a.Triage == nil || a.Triage.HistoryID != lines[a.ID].HistoryID {
					t.Fatalf("alert %+v, line %+v", a, lines[a.ID])
				}
			}
			var fps []alertOut
			if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "--triage", "false_positive", "-o", "json")), &fps); err != nil ||
				len(fps) != 2 || !slices.ContainsFunc(fps, func(a alertOut) bool { return a.ID == ids[0] }) {
				t.Fatalf("--triage false_positive: %v %v", fps, err)
			}
			if table := c.mustRun("", "alert", "list"); !strings.Contains(table, "true_positive 0.90") {
				t.Fatalf("alert list: %s", table)
			}
			var shown alertOut
			if err := json.Unmarshal([]byte(c.mustRun("", "alert", "show", ids[1], "-o", "json")), &shown); err != nil || shown.Triage == nil ||
				shown.Triage.Verdict != "true_positive" {
				t.Fatalf("alert show: %+v %v", shown, err)
			}

			// Nothing is left to triage; a named alert is skipped, unless --retriage.
			r = c.run("", "triage", "-o", "json")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "" || !strings.Contains(r.stderr, "0 triaged; 0 skipped; 0 failed") {
				t.Fatalf("second run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = c.run("", "triage", ids[0][:8], "-o", "json")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "" || !strings.Contains(r.stderr, "0 triaged; 1 skipped; 0 failed") {
				t.Fatalf("named, triaged: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			r = c.run("", "triage", ids[0], "--retriage", "-o", "json")
			again := triageLines(t, r.stdout)[ids[0]]
			if r.code != 0 || again.HistoryID == "" || again.HistoryID == fp.HistoryID {
				t.Fatalf("retriage: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if err := json.Unmarshal([]byte(c.mustRun("", "alert", "show", ids[0], "-o", "json")), &shown); err != nil || shown.Triage.HistoryID != again.HistoryID {
				t.Fatalf("after retriage: %+v %v", shown.Triage, err)
			}

			// The analyst decides: resolving records whether the proposal was right.
			c.mustRun("", "history", "resolve", tp.HistoryID, "--verdict", "benign")
			c.mustRun("", "history", "resolve", again.HistoryID, "--verdict", "false_positive")
			if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &hs); err != nil {
				t.Fatal(err)
			}
			agreed := map[string]*bool{}
			for _, h := range hs {
				agreed[h.ID] = h.TriageAgreed
			}
			if a := agreed[tp.HistoryID]; a == nil || *a {
				t.Fatalf("disagreed: %v", a)
			}
			if a := agreed[again.HistoryID]; a == nil || !*a {
				t.Fatalf("agreed: %v", a)
			}
		})
	}
}

// Bad input and failures: an unknown alert ID is exit 3 before anything runs; a model error for
// one alert is that alert's error line while the others are triaged, exit 1; the table on a pipe
// has a line per alert.
func TestTriageFailures(t *testing.T) {
	t.Parallel()
	c := newCLI(t, triageAnswers(0))
	ids := c.addAlerts(`{"title":"Port scan from 198.51.100.23","src_ip":"198.51.100.23"}`, `{"title":"broken alert","x":1}`)
	r := c.run("", "triage", ids[0], "deadbeefdeadbeef")
	if r.code != 3 || len(c.srv.Requests()) != 0 {
		t.Fatalf("unknown ID: exit %d, %d requests\n%s", r.code, len(c.srv.Requests()), r.stderr)
	}
	r = c.run("", "triage")
	if r.code != 1 || !strings.Contains(r.stderr, "1 triaged: 1 false_positive; 0 skipped; 1 failed") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 2 || !slices.ContainsFunc(rows, func(l string) bool {
		return strings.HasPrefix(l, ids[1]+"\terror\t") && strings.Contains(l, "broken")
	}) || !slices.ContainsFunc(rows, func(l string) bool { return strings.HasPrefix(l, ids[0]+"\tfalse_positive\t0.82\t2 (1 unsupported)\t") }) {
		t.Fatalf("rows: %q", rows)
	}
	var open []alertOut
	if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "-o", "json")), &open); err != nil {
		t.Fatal(err)
	}
	for _, a := range open {
		if (a.ID == ids[1]) != (a.Triage == nil) {
			t.Fatalf("alert %+v", a)
		}
	}
}

// Ctrl-C keeps the alerts that finished, reported, and exits 130; two runs on one alert at once
// leave one triage, and the other run says so and keeps its investigation.
func TestTriageInterruptedAndRaced(t *testing.T) {
	t.Parallel()
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t, triageAnswers(time.Minute))
		ids := c.addAlerts(`{"title":"scan one","src_ip":"198.51.100.23"}`, `{"title":"slow one"}`)
		cmd := exec.Command(binary, "triage", "--concurrency", "2", "-o", "json")
		cmd.Env, cmd.Dir = c.env, c.dataDir
		var out, errOut syncbuf.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(out.String(), ids[0]) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		lines := triageLines(t, out.String())
		if code != 130 || len(lines) != 1 || lines[ids[0]].Verdict == nil || !strings.Contains(errOut.String(), "1 triaged: 1 false_positive") {
			t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
		}
	})
	t.Run("raced", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t, triageAnswers(0), geminitest.WithLatency(300*time.Millisecond))
		ids := c.addAlerts(`{"title":"scan","src_ip":"198.51.100.23"}`)
		results := make([]result, 2)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() { results[i] = c.run("", "triage", ids[0], "-o", "json") })
		}
		wg.Wait()
		won, lost := 0, 0
		for _, r := range results {
			switch {
			case r.code != 0:
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			case strings.Contains(r.stderr, "was triaged by another run meanwhile"):
				lost++
			case len(triageLines(t, r.stdout)) == 1:
				won++
			}
		}
		var hs []historyOut
		if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &hs); err != nil {
			t.Fatal(err)
		}
		withTriage := 0
		for _, h := range hs {
			if h.Triage != nil {
				withTriage++
			}
		}
		// A run that starts after the other's triage is recorded skips the alert instead.
		if won != 1 || withTriage != 1 || lost != len(hs)-1 {
			t.Fatalf("won %d, lost %d, %d histories, %d with a triage\n%+v", won, lost, len(hs), withTriage, results)
		}
	})
}

// --max-cost-tokens stops starting investigations once the tokens spent pass it: the finished
// ones are kept and the rest are counted as not started.
func TestTriageMaxCost(t *testing.T) {
	t.Parallel()
	c := newCLI(t, triageAnswers(0))
	c.addAlerts(`{"title":"scan 1","src_ip":"198.51.100.23"}`, `{"title":"scan 2","src_ip":"198.51.100.23"}`, `{"title":"scan 3","src_ip":"198.51.100.23"}`)
	r := c.run("", "triage", "--concurrency", "1", "--max-cost-tokens", "1", "-o", "json")
	if r.code != 0 || len(triageLines(t, r.stdout)) != 1 || !strings.Contains(r.stderr, "; 2 not started (--max-cost-tokens 1 reached)") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// alert pull --triage on the cloud store: every pulled alert is stored and acknowledged, then
// triaged; one whose investigation fails is an error line and exit 1, and is neither lost nor
// delivered again (a second pull finds nothing).
func TestAlertPullTriage(t *testing.T) {
	t.Parallel()
	cloud := testenv.CloudEnv(t)
	ps := testenv.NewPubSub(t, 10)
	c := newCLI(t, triageAnswers(0))
	c.env = append(c.env, cloud.Env()...)
	c.env = append(c.env, testenv.EnvPubSubHost+"="+testenv.PubSubHost(t), "ALERTCHAT_STORE_TIMEOUT=60s")
	ps.Publish(t, []byte(`{"title":"Port scan from 198.51.100.23","src_ip":"198.51.100.23"}`), []byte(`{"title":"broken alert","x":1}`))
	r := c.run("", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s", "--triage", "--concurrency", "2")
	ids := strings.Fields(r.stdout)
	if r.code != 1 || len(ids) != 2 || !strings.Contains(r.stderr, "1 triaged: 1 false_positive; 0 skipped; 1 failed") ||
		!strings.Contains(r.stderr, ": false_positive 0.82 (history ") || !strings.Contains(r.stderr, ": error: ") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var alerts []alertOut
	if err := json.Unmarshal([]byte(c.mustRun("", "alert", "list", "-o", "json")), &alerts); err != nil || len(alerts) != 2 {
		t.Fatalf("alerts %v %v", alerts, err)
	}
	triaged := 0
	for _, a := range alerts {
		if a.Triage != nil {
			triaged++
		}
	}
	if triaged != 1 {
		t.Fatalf("%d alerts triaged: %+v", triaged, alerts)
	}
	if again := c.run("", "alert", "pull", "--subscription", ps.Subscription, "--wait", "2s", "--triage"); again.code != 0 || strings.TrimSpace(again.stdout) != "" {
		t.Fatalf("second pull: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

// triage --remote --no-tools: the alerts' investigations (and their titles) are one Batch API
// job; a SIGINT while waiting leaves it running (exit 130), and the same command run again
// triages from it, verdicts asked directly, without submitting again or asking any
// investigation outside the job.
func TestTriageRemote(t *testing.T) {
	t.Parallel()
	c := newCLI(t, triageAnswers(0), geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		if r.SystemInstruction == nil {
			return geminitest.Reply{Text: "Batch title"} // the title's request
		}
		return geminitest.Reply{Text: "From the batch: the probe came from 198.51.100.23, our scanner."}
	}))
	ids := c.addAlerts(`{"title":"Port scan from 198.51.100.23","src_ip":"198.51.100.23"}`, `{"title":"Another scan","src_ip":"198.51.100.23"}`)
	args := []string{"--model", "gemini-3.8-flash", "triage", "--no-tools", "--remote", "--poll-interval", "1s", "-o", "json"}
	if r := c.run("", "triage", "--remote"); r.code != 2 {
		t.Fatalf("--remote with tools: exit %d\n%s", r.code, r.stderr)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = c.env, c.dataDir
	var out, errOut syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for c.srv.BatchStats().Gets < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(errOut.String(), "run the same command again") || out.String() != "" {
		t.Fatalf("interrupted wait: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()
	r := c.run("", args...)
	lines := triageLines(t, r.stdout)
	if r.code != 0 || len(lines) != 2 || lines[ids[0]].Verdict == nil || *lines[ids[0]].Verdict != "false_positive" {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if st := c.srv.BatchStats(); st.Created != 1 {
		t.Fatalf("%d jobs created", st.Created)
	}
	if n := countStreams(c.srv); n != 0 {
		t.Fatalf("%d investigations asked outside the job", n)
	}
	var hs []struct {
		Title  string          `json:"title"`
		Triage json.RawMessage `json:"triage"`
	}
	if err := json.Unmarshal([]byte(c.mustRun("", "history", "list", "-o", "json")), &hs); err != nil || len(hs) != 2 {
		t.Fatalf("histories %v %v", hs, err)
	}
	for _, h := range hs {
		if h.Title != "Batch title" || string(h.Triage) == "null" {
			t.Fatalf("history %+v", h)
		}
	}
}
