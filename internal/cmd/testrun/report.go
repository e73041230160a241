package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// The test command runs with -json; report turns its events back into the readable output of
// a plain `go test` (package lines as they come; a failed test's output when it fails, and
// nothing of the tests that pass), and ends with what failed: each failed test by package and
// name, each package that failed to build, and each test binary that exited abnormally (a
// panic, os.Exit, a timeout) with the tests it was running and its last lines. A red run says
// why in its last lines, however many packages ran in between.

// event is one line of `go test -json` (test2json's TestEvent, with the build events).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
	Elapsed    float64
}

// tailLines is how many of a package's last output lines are kept for a binary that exited
// abnormally.
const tailLines = 30

type pkgState struct {
	failedTests int
	running     map[string]bool
	tail        []string
}

type report struct {
	w     io.Writer
	pkgs  map[string]*pkgState
	tests map[string]*strings.Builder // output of the tests running, by package and name

	passed, failed, skipped int
	failures                []string // "package TestName (1.2s)"
	skips                   []string // "package TestName: the reason's last line"
	buildFailed             []string
	abnormal                []string // what to say of each binary that exited abnormally
}

func newReport(w io.Writer) *report {
	return &report{w: w, pkgs: map[string]*pkgState{}, tests: map[string]*strings.Builder{}}
}

// copyJSON reads the events from r until it ends, writing the readable output as it goes.
// A line that is not an event is written as it is.
func (r *report) copyJSON(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.add(e)
	}
}

func (r *report) pkg(name string) *pkgState {
	p := r.pkgs[name]
	if p == nil {
		p = &pkgState{running: map[string]bool{}}
		r.pkgs[name] = p
	}
	return p
}

func (r *report) add(e event) {
	switch e.Action {
	case "build-output":
		io.WriteString(r.w, e.Output)
		return
	case "build-fail":
		r.buildFailed = append(r.buildFailed, e.ImportPath)
		return
	}
	p := r.pkg(e.Package)
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "output":
		p.tail = append(p.tail, strings.TrimRight(e.Output, "\n"))
		if len(p.tail) > tailLines {
			p.tail = p.tail[len(p.tail)-tailLines:]
		}
		if strings.HasPrefix(e.Test, "Benchmark") {
			// A benchmark's lines are its results: shown as they come, as go test shows them.
			io.WriteString(r.w, e.Output)
			return
		}
		if e.Test == "" {
			if e.Output != "PASS\n" {
				io.WriteString(r.w, e.Output)
			}
			return
		}
		b := r.tests[key]
		if b == nil {
			b = &strings.Builder{}
			r.tests[key] = b
		}
		if b.Len() < 1<<20 {
			b.WriteString(e.Output)
		}
	case e.Test != "" && e.Action == "run":
		p.running[e.Test] = true
	case e.Test != "" && (e.Action == "pass" || e.Action == "skip" || e.Action == "fail"):
		delete(p.running, e.Test)
		out := r.tests[key]
		delete(r.tests, key)
		switch e.Action {
		case "pass":
			r.passed++
		case "skip":
			r.skipped++
			r.skips = append(r.skips, e.Package+" "+e.Test+skipReason(out))
		case "fail":
			r.failed++
			p.failedTests++
			r.failures = append(r.failures, fmt.Sprintf("%s %s (%.2fs)", e.Package, e.Test, e.Elapsed))
			if out != nil {
				io.WriteString(r.w, out.String())
			}
		}
	case e.Test == "" && e.Action == "fail" && p.failedTests == 0 && !r.isBuildFailure(e.Package):
		// The package failed and no test did: its binary exited abnormally.
		running := make([]string, 0, len(p.running))
		for t := range p.running {
			running = append(running, t)
		}
		sort.Strings(running)
		say := e.Package + ": the test binary exited abnormally (panic, os.Exit or timeout)"
		if len(running) > 0 {
			say += "; running: " + strings.Join(running, ", ")
		}
		if len(p.tail) > 0 {
			say += "; its last lines:\n      " + strings.Join(p.tail, "\n      ")
		}
		r.abnormal = append(r.abnormal, say)
	}
}

func (r *report) isBuildFailure(pkg string) bool {
	for _, b := range r.buildFailed {
		if b == pkg || strings.HasPrefix(b, pkg+" ") || strings.HasPrefix(b, pkg+".test") {
			return true
		}
	}
	return false
}

// finish writes the closing lines: what failed, then the counts.
func (r *report) finish() {
	if n := len(r.failures) + len(r.buildFailed) + len(r.abnormal); n > 0 {
		fmt.Fprintf(r.w, "\ntestrun: what failed:\n")
		for _, b := range r.buildFailed {
			fmt.Fprintf(r.w, "  BUILD FAILED %s\n", b)
		}
		for _, a := range r.abnormal {
			fmt.Fprintf(r.w, "  ABNORMAL EXIT %s\n", a)
		}
		for _, f := range r.failures {
			fmt.Fprintf(r.w, "  FAIL %s\n", f)
		}
	}
	if len(r.skips) > 0 {
		// A skip under CI is a test that did not run: say which, so it is seen.
		fmt.Fprintf(r.w, "\ntestrun: skipped:\n")
		for _, s := range r.skips {
			fmt.Fprintf(r.w, "  SKIP %s\n", s)
		}
	}
	// A package that did not build or whose binary died counts as one failure.
	failed := r.failed + len(r.buildFailed) + len(r.abnormal)
	fmt.Fprintf(r.w, "summary: %d passed, %d failed, %d skipped\n", r.passed, failed, r.skipped)
}

// skipReason is the last line a skipped test wrote (its t.Skip message), or nothing.
func skipReason(out *strings.Builder) string {
	if out == nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--- SKIP") && !strings.HasPrefix(l, "=== ") {
			return ": " + l
		}
	}
	return ""
}
