// Command testrun runs the project's tests against a Firestore emulator and a Pub/Sub emulator
// it starts and stops itself:
//
//	go run ./internal/cmd/testrun [flags] [-- command args...]
//
// It finds the emulators and java, starts both at once (the Pub/Sub emulator takes some 8 s to
// come up: started side by side, the run waits for the slower one only), each on a free
// loopback port in its own process group (its output goes to a log file, shown only if it
// fails to start), waits until both answer, then runs the command (default: go test -race
// -count=1 ./...) with FIRESTORE_EMULATOR_HOST, PUBSUB_EMULATOR_HOST and
// ALERTCHAT_TEST_REQUIRE_EMULATOR=1 set, streaming its output. SIGINT and SIGTERM are forwarded
// to the command; the emulators are always stopped.
//
// A `go test` command runs with -json, and its output is shown as plain `go test` shows it,
// ending with what failed (each failed test, each package that did not build, each test
// binary that exited abnormally, with the tests it was running) and a line of counts: a red
// run says why in its last lines.
//
// Exit status: the command's own (128+N when it was killed by signal N), or 125 when the
// runner itself failed (java or an emulator missing, an emulator not starting, the command
// not startable).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	emufind "github.com/alertchat/alertchat/internal/emulator"
	"github.com/alertchat/alertchat/pkg/procgroup"
)

const (
	exitRunner = 125
)

var defaultCommand = []string{"go", "test", "-race", "-count=1", "./..."}

func main() { os.Exit(run()) }

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "testrun: "+format+"\n", args...) }

func run() int {
	fl := flag.NewFlagSet("testrun", flag.ContinueOnError)
	startTimeout := fl.Duration("start-timeout", 60*time.Second, "how long to wait for the emulators to answer")
	heap := fl.String("java-heap", "512m", "maximum Java heap of each emulator (-Xmx)")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), "usage: go run ./internal/cmd/testrun [flags] [-- command args...]\n"+
			"Starts the Firestore and Pub/Sub emulators, runs the command (default %q) against them, stops them.\nflags:\n",
			strings.Join(defaultCommand, " "))
		fl.PrintDefaults()
	}
	if err := fl.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	command := fl.Args()
	if len(command) == 0 {
		command = defaultCommand
	}

	// Catch signals from now on, so that no emulator is ever left behind.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	java, err := emufind.FindJava()
	if err != nil {
		logf("%v", err)
		return exitRunner
	}
	jar, err := emufind.FindJar()
	if err != nil {
		logf("%v", err)
		return exitRunner
	}
	pubsub, err := emufind.FindPubSub()
	if err != nil {
		logf("%v", err)
		return exitRunner
	}
	tmp, err := os.MkdirTemp("", "alertchat-testrun-")
	if err != nil {
		logf("temp dir: %v", err)
		return exitRunner
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	start := time.Now()
	emus, err := startAll(sigs, *startTimeout, tmp, firestoreSpec(java, jar, *heap), pubsubSpec(java, pubsub, *heap))
	defer func() {
		for _, e := range emus {
			e.stop()
		}
	}()
	if err != nil {
		logf("%v", err)
		if errors.Is(err, errInterrupted) {
			return 130
		}
		return exitRunner
	}
	logf("Firestore emulator at %s, Pub/Sub emulator at %s, ready in %.1fs; running: %s",
		emus[0].host, emus[1].host, time.Since(start).Seconds(), strings.Join(command, " "))

	code := runCommand(command, emus, sigs)
	if code != 0 {
		logf("%s: exit status %d", command[0], code)
	}
	return code
}

// spec says how to start one emulator.
type spec struct {
	name string
	// command is the emulator's command line listening on port.
	command func(port int) []string
	env     []string
}

func firestoreSpec(java, jar, heap string) spec {
	return spec{name: "Firestore emulator", command: func(port int) []string {
		return []string{java, "-Xmx" + heap, "-cp", jar, emufind.Main, "start", "--host=127.0.0.1", "--port=" + strconv.Itoa(port)}
	}}
}

// pubsubSpec starts the Pub/Sub emulator's own script, with the java found for Firestore.
func pubsubSpec(java, script, heap string) spec {
	return spec{name: "Pub/Sub emulator", command: func(port int) []string {
		return []string{script, "--host=127.0.0.1", "--port=" + strconv.Itoa(port)}
	}, env: []string{"JAVA_HOME=" + filepath.Dir(filepath.Dir(realPath(java))), "JAVA_OPTS=-Xmx" + heap}}
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// startAll starts the emulators side by side and waits until every one answers; on failure
// it returns the ones started, for the caller to stop.
func startAll(sigs <-chan os.Signal, timeout time.Duration, dir string, specs ...spec) ([]*emulator, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var interrupted atomic.Bool
	go func() {
		select {
		case <-sigs:
			interrupted.Store(true)
			cancel()
		case <-ctx.Done():
		}
	}()
	emus := make([]*emulator, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, sp := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emus[i], errs[i] = startEmulator(ctx, sp, dir, timeout)
			if errs[i] != nil {
				cancel() // no use waiting for the others
			}
		}()
	}
	wg.Wait()
	started := slices.DeleteFunc(slices.Clone(emus), func(e *emulator) bool { return e == nil })
	if interrupted.Load() {
		return started, errInterrupted
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return started, err
		}
	}
	return emus, nil
}

var errInterrupted = errors.New("interrupted while starting the emulators")

type emulator struct {
	name  string
	cmd   *exec.Cmd
	group *procgroup.Group
	host  string
	done  chan struct{} // closed when the process has exited
}

// startEmulator starts an emulator and waits until it answers. A port taken between
// choosing and binding it (other users of the machine) gets a few retries.
func startEmulator(ctx context.Context, sp spec, dir string, timeout time.Duration) (*emulator, error) {
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		logPath := filepath.Join(dir, fmt.Sprintf("%s-%d.log", strings.Fields(sp.name)[0][:3], attempt))
		emu, err := launch(sp, port, logPath)
		if err != nil {
			return nil, err
		}
		err = emu.waitReady(ctx, timeout)
		if err == nil {
			return emu, nil
		}
		emu.stop()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log := readLog(logPath)
		lastErr = fmt.Errorf("%w\n--- %s log ---\n%s--- end of %s log ---", err, sp.name, log, sp.name)
		if !errors.Is(err, errExited) || !(strings.Contains(log, "BindException") || strings.Contains(log, "already in use")) {
			break // only a port taken meanwhile is worth another try
		}
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func launch(sp spec, port int, logPath string) (*emulator, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s log: %w", sp.name, err)
	}
	args := sp.command(port)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), sp.env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	procgroup.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start the %s (%s): %w", sp.name, args[0], err)
	}
	group, err := procgroup.Join(cmd)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = logFile.Close()
		return nil, fmt.Errorf("the %s's process group: %w", sp.name, err)
	}
	emu := &emulator{name: sp.name, cmd: cmd, group: group, host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(emu.done)
	}()
	return emu, nil
}

var errExited = errors.New("the emulator exited before it was ready")

func (e *emulator) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second}
	for {
		if e.answers(client) {
			return nil
		}
		select {
		case <-e.done:
			return fmt.Errorf("%w: %s (%s)", errExited, e.name, e.cmd.ProcessState)
		case <-deadline.C:
			return fmt.Errorf("the %s did not answer on %s within %s", e.name, e.host, timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (e *emulator) answers(client *http.Client) bool {
	resp, err := client.Get("http://" + e.host + "/")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	return resp.StatusCode == http.StatusOK && strings.TrimSpace(string(body)) == "Ok"
}

// stop ends the emulator's whole process group: SIGTERM, then SIGKILL after 5 s.
func (e *emulator) stop() {
	_ = e.group.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(5 * time.Second):
		_ = e.group.Kill()
		<-e.done
	}
	// Anything the java process left in its group.
	_ = e.group.Kill()
}

func readLog(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	const max = 16 << 10
	if len(data) > max {
		data = append([]byte("...\n"), data[len(data)-max:]...)
	}
	return string(data)
}

// runCommand runs the test command in its own process group, forwarding SIGINT and SIGTERM to
// the group (a second signal kills it), and returns its exit status.
func runCommand(command []string, emus []*emulator, sigs <-chan os.Signal) int {
	command, summarise := withJSON(command)
	cmd := exec.CommandContext(context.Background(), command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var rep *report
	var reported chan struct{}
	var events *os.File // the read end of the events' pipe
	if summarise {
		// A pipe of our own, not cmd.StdoutPipe: Wait would close that one before the last
		// events are read.
		r, w, err := os.Pipe()
		if err != nil {
			logf("pipe: %v", err)
			return exitRunner
		}
		defer func() { _ = r.Close() }()
		cmd.Stdout, events = w, r
		rep, reported = newReport(os.Stdout), make(chan struct{})
	}
	cmd.Env = append(os.Environ(),
		"FIRESTORE_EMULATOR_HOST="+emus[0].host,
		"PUBSUB_EMULATOR_HOST="+emus[1].host,
		"ALERTCHAT_TEST_REQUIRE_EMULATOR=1",
	)
	procgroup.Prepare(cmd)
	err := cmd.Start()
	if events != nil {
		_ = cmd.Stdout.(*os.File).Close() // the command holds its own copy of the write end
	}
	if err != nil {
		logf("start %s: %v", command[0], err)
		return exitRunner
	}
	if events != nil {
		go func() {
			defer close(reported)
			rep.copyJSON(events)
		}()
	}
	group, err := procgroup.Join(cmd)
	if err != nil {
		_ = cmd.Process.Kill()
		logf("%v", err)
		return exitRunner
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	signalled := false
	exited := make(chan *emulator, len(emus))
	for _, e := range emus {
		go func() {
			<-e.done
			exited <- e
		}()
	}
	for {
		select {
		case s := <-sigs:
			if signalled {
				_ = group.Kill()
			} else {
				_ = group.Signal(s)
			}
			signalled = true
		case e := <-exited:
			logf("the %s exited while the tests were running", e.name) // the tests will fail on their own
		case err := <-waited:
			if rep != nil {
				// A process the tests left behind may hold the pipe open: read what is
				// written, but do not wait for it forever.
				select {
				case <-reported:
				case <-time.After(10 * time.Second):
					_ = events.Close()
					<-reported
				}
				rep.finish()
			}
			return exitStatus(err)
		}
	}
}

// withJSON turns `go test ...` into `go test -json ...`, whose events the report summarises;
// any other command, or one asking for -json itself, runs as given.
func withJSON(command []string) ([]string, bool) {
	if len(command) < 2 || filepath.Base(command[0]) != "go" || command[1] != "test" {
		return command, false
	}
	for _, a := range command[2:] {
		if a == "-json" || a == "--json" || a == "-json=true" {
			return command, false
		}
	}
	return append([]string{command[0], "test", "-json"}, command[2:]...), true
}

func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	logf("%v", err)
	return exitRunner
}
