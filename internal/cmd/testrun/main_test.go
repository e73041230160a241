package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	emufind "github.com/alertchat/alertchat/internal/emulator"
)

func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 7", 7},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
	} {
		if got := exitStatus(exec.Command("sh", "-c", c.script).Run()); got != c.want {
			t.Errorf("%q: exit status %d, want %d", c.script, got, c.want)
		}
	}
	if got := exitStatus(exec.Command("/nonexistent/command").Run()); got != exitRunner {
		t.Errorf("command not startable: %d, want %d", got, exitRunner)
	}
}

// Both emulators start side by side, answer, and stop with their whole process groups.
func TestEmulatorStartStop(t *testing.T) {
	java, err := emufind.FindJava()
	if err == nil {
		var jar, pubsub string
		if jar, err = emufind.FindJar(); err == nil {
			if pubsub, err = emufind.FindPubSub(); err == nil {
				startStop(t, firestoreSpec(java, jar, "256m"), pubsubSpec(java, pubsub, "256m"))
				return
			}
		}
	}
	if os.Getenv("ALERTCHAT_TEST_REQUIRE_EMULATOR") == "1" || os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	t.Skip(err)
}

func startStop(t *testing.T, specs ...spec) {
	emus, err := startAll(make(chan os.Signal), 60*time.Second, t.TempDir(), specs...)
	if err != nil {
		for _, e := range emus {
			e.stop()
		}
		t.Fatal(err)
	}
	if len(emus) != len(specs) {
		t.Fatalf("%d emulators started, want %d", len(emus), len(specs))
	}
	for _, emu := range emus {
		pgid := emu.cmd.Process.Pid
		emu.stop()
		select {
		case <-emu.done:
		default:
			t.Fatalf("%s still running after stop", emu.name)
		}
		if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Fatalf("%s process group still there: %v", emu.name, err)
		}
	}
}

// A signal while the emulators start stops the wait, and the runner says it was interrupted.
func TestStartInterrupted(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT
	sh := spec{name: "Slow emulator", command: func(int) []string { return []string{"sleep", "30"} }}
	emus, err := startAll(sigs, time.Minute, t.TempDir(), sh, sh)
	for _, e := range emus {
		e.stop()
	}
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("err %v, want errInterrupted", err)
	}
}

// The report of a real `go test -json` run: a passing package is one line; a failed test's
// output is shown and the test named at the end; a package that does not build and a test
// binary that exits in the middle of a test are named too, with the test it was running.
func TestReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":             "module example\n\ngo 1.22\n",
		"ok/ok_test.go":      "package ok\nimport \"testing\"\nfunc TestOK(t *testing.T) { t.Log(\"quiet when it passes\") }\n",
		"bad/bad_test.go":    "package bad\nimport \"testing\"\nfunc TestBad(t *testing.T) { t.Error(\"the reason it failed\") }\n",
		"dies/dies_test.go":  "package dies\nimport (\"os\"; \"testing\")\nfunc TestDies(t *testing.T) { println(\"about to exit\"); os.Exit(3) }\n",
		"nobuild/nb_test.go": "package nobuild\nimport \"testing\"\nfunc TestX(t *testing.T) { undefined() }\n",
		"nobuild/nobuild.go": "package nobuild\n",
		"dies/dies.go":       "package dies\n",
		"bad/bad.go":         "package bad\n",
		"ok/ok.go":           "package ok\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, _ := cmd.Output()
	var b strings.Builder
	rep := newReport(&b)
	rep.copyJSON(strings.NewReader(string(out)))
	rep.finish()
	got := b.String()
	for _, want := range []string{
		"ok  \texample/ok",
		"the reason it failed",
		"--- FAIL: TestBad",
		"  BUILD FAILED example/nobuild",
		"  ABNORMAL EXIT example/dies: the test binary exited abnormally (panic, os.Exit or timeout); running: TestDies; its last lines:",
		"about to exit",
		"  FAIL example/bad TestBad (",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "quiet when it passes") {
		t.Errorf("a passing test's output is shown:\n%s", got)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if last := lines[len(lines)-1]; last != "summary: 1 passed, 3 failed, 0 skipped" {
		t.Errorf("last line %q:\n%s", last, got)
	}
	if cmd, ok := withJSON([]string{"go", "test", "-race", "./..."}); !ok || strings.Join(cmd, " ") != "go test -json -race ./..." {
		t.Errorf("withJSON: %v %v", cmd, ok)
	}
	if _, ok := withJSON([]string{"go", "vet", "./..."}); ok {
		t.Error("withJSON changed go vet")
	}
}

// A `go test` command runs through the events' pipe and its exit status is the command's.
func TestRunCommandGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	for _, c := range []struct {
		fail string
		want int
	}{{"0", 0}, {"1", 1}} {
		t.Setenv("TESTRUN_SAMPLE_FAIL", c.fail)
		emus := []*emulator{{name: "Firestore emulator", host: "127.0.0.1:1", done: make(chan struct{})},
			{name: "Pub/Sub emulator", host: "127.0.0.1:2", done: make(chan struct{})}}
		got := runCommand([]string{"go", "test", "-count=1", "./testdata/sample"}, emus, make(chan os.Signal))
		if got != c.want {
			t.Errorf("TESTRUN_SAMPLE_FAIL=%s: exit status %d, want %d", c.fail, got, c.want)
		}
	}
}

// A benchmark's result lines reach the output (go test -json reports them as a test's output).
func TestReportShowsBenchmarks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	out, err := exec.Command("go", "test", "-json", "-run", "^$", "-bench", "Sample", "-benchtime", "10x", "./testdata/sample").Output()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep := newReport(&b)
	rep.copyJSON(strings.NewReader(string(out)))
	rep.finish()
	if !strings.Contains(b.String(), "BenchmarkSample") || !strings.Contains(b.String(), "ns/op") {
		t.Fatalf("no benchmark result in:\n%s", b.String())
	}
}

// Skipped tests are named at the end, with their reason.
func TestReportNamesSkips(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "./testdata/sample")
	cmd.Env = append(os.Environ(), "TESTRUN_SAMPLE_FAIL=1")
	out, _ := cmd.Output()
	var b strings.Builder
	rep := newReport(&b)
	rep.copyJSON(strings.NewReader(string(out)))
	rep.finish()
	if !strings.Contains(b.String(), "SKIP github.com/alertchat/alertchat/internal/cmd/testrun/testdata/sample TestSkipsWhenAsked: sample_test.go") ||
		!strings.Contains(b.String(), "asked to skip") {
		t.Fatalf("the skip is not named:\n%s", b.String())
	}
}
