package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/geminitest"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/eval"
)

// evalAnswers: questions get an answer naming the alert's first IP-looking word, verdict
// requests false_positive with that evidence; "slow" alerts take long to answer.
func evalAnswers(slow time.Duration) geminitest.Option {
	return geminitest.WithHandler(func(r *geminitest.Request) geminitest.Reply {
		if r.GenerationConfig != nil && r.GenerationConfig.ResponseMIMEType == "application/json" {
			return geminitest.Reply{Text: `{"verdict":"false_positive","conclusion":"Our scanner.","evidence":[{"value":"198.51.100.23","claim":"the scanner"}]}`}
		}
		if r.Kind == geminitest.KindGenerateContent {
			return geminitest.Reply{Text: "A title"}
		}
		if slow > 0 && strings.Contains(r.SystemText(), "slow") {
			return geminitest.Reply{Text: "thinking long", Latency: slow}
		}
		return geminitest.Reply{Text: "The probe came from 198.51.100.23, our scanner."}
	})
}

// The resolved investigations of a workspace are the cases of --from-history, on the local
// store and on the cloud store (Firestore and fake-gcs); nothing is saved by the evaluation.
func TestEvalFromHistoryBothStores(t *testing.T) {
	t.Parallel()
	for _, cloud := range []bool{false, true} {
		t.Run(fmt.Sprint("cloud=", cloud), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, evalAnswers(0))
			c.env = append(c.env, "ALERTCHAT_MODEL=gemini-3.8-flash")
			if cloud {
				c.env = append(c.env, testenv.CloudEnv(t).Env()...)
				c.env = append(c.env, "ALERTCHAT_STORE_TIMEOUT=60s") // the emulator on a loaded machine
			}
			alertID := c.addAlert("guardduty.json")
			first := c.askJSON("", "-a", alertID, "-q", "Who probed us?")
			c.askJSON("", "-a", alertID, "-q", "Anything else?")
			c.mustRun("", "history", "resolve", first.HistoryID, "--verdict", "false_positive")
			before := len(c.listHistories())

			out := c.mustRun("", "eval", "--from-history", "--repeat", "2", "-o", "json")
			var rep eval.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			m := rep.Models[0]
			if len(rep.Cases) != 1 || rep.Cases[0].ID != first.HistoryID || m.Runs != 2 || m.Accuracy != 1 || m.Consistency != 1 ||
				m.Cited != 2 || m.Unsupported != 2 {
				// 198.51.100.23 is in neither the GuardDuty sample nor a tool result: unsupported.
				t.Fatalf("report: %s", out)
			}
			if after := len(c.listHistories()); after != before {
				t.Fatalf("eval saved histories: %d then %d", before, after)
			}
		})
	}
}

// Ctrl-C keeps the finished cases' results: the partial report is printed, marked incomplete,
// and the exit is 130.
func TestEvalInterrupted(t *testing.T) {
	t.Parallel()
	c := newCLI(t, evalAnswers(time.Minute))
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"id":"fast-%d","alert":{"Title":"fast %d"},"verdict":"false_positive"}`, i, i))
	}
	lines = append(lines, `{"id":"slow","alert":{"Title":"slow one"},"verdict":"benign"}`)
	file := filepath.Join(c.dataDir, "cases.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--model", "gemini-3.8-flash", "eval", "-f", file, "--concurrency", "1", "-o", "json")
	cmd.Env, cmd.Dir = c.env, c.dataDir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for countStreams(c.srv) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	var rep eval.Report
	if code != 130 || json.Unmarshal(out.Bytes(), &rep) != nil || rep.Complete || rep.Models[0].Runs != 3 || rep.Models[0].Accuracy != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

// eval --remote on the binary: the job is submitted and recorded, a SIGINT while waiting
// leaves it running (exit 130), and the same command run again reports from it without
// submitting again.
func TestEvalRemote(t *testing.T) {
	t.Parallel()
	c := newCLI(t, evalAnswers(0), geminitest.WithBatchHandler(func(r *geminitest.BatchRequest) geminitest.Reply {
		return geminitest.Reply{Text: "From the batch: the probe came from 198.51.100.23, our scanner."}
	}))
	var lines []string
	for i := range 3 {
		lines = append(lines, fmt.Sprintf(`{"id":"case-%d","alert":{"Title":"probe %d","src":"198.51.100.23"},"verdict":"false_positive","must_mention":["198.51.100.23"]}`, i, i))
	}
	file := filepath.Join(c.dataDir, "cases.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--model", "gemini-3.8-flash", "eval", "-f", file, "--no-tools", "--remote", "--repeat", "2", "--poll-interval", "1s", "-o", "json"}
	cmd := exec.Command(binary, args...)
	cmd.Env, cmd.Dir = c.env, c.dataDir
	var out, errOut bytes.Buffer
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
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(errOut.String(), "run the same command again") || out.Len() != 0 {
		t.Fatalf("interrupted wait: %v\n%s\n%s", err, out.String(), errOut.String())
	}

	c.srv.AdvanceBatches()
	c.srv.AdvanceBatches()
	got := c.mustRun("", args...)
	var rep eval.Report
	if err := json.Unmarshal([]byte(got), &rep); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	m := rep.Models[0]
	if !rep.Complete || m.Runs != 6 || m.Errors != 0 || m.Accuracy != 1 || m.MentionRecall == nil || *m.MentionRecall != 1 || m.Unsupported != 0 {
		t.Fatalf("report: %s", got)
	}
	if st := c.srv.BatchStats(); st.Created != 1 {
		t.Fatalf("%d jobs created", st.Created)
	}
	if n := countStreams(c.srv); n != 0 {
		t.Fatalf("%d investigations asked outside the job", n)
	}
}

func countStreams(srv *geminitest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Kind == geminitest.KindStreamGenerateContent {
			n++
		}
	}
	return n
}
