package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
