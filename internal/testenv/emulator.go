package testenv

import (
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/emulator"
	"github.com/alertchat/alertchat/pkg/procgroup"
)

// FirestoreEmulator is a Firestore emulator of a test's own, which the test may stop, pause
// and restart without disturbing the shared one other tests use. Its data lives in memory: a
// stop loses it, a pause keeps it.
type FirestoreEmulator struct {
	t    testing.TB
	Host string // 127.0.0.1:PORT, the value of FIRESTORE_EMULATOR_HOST
	java string
	jar  string
	log  string

	cmd   *exec.Cmd
	group *procgroup.Group
	done  chan struct{}
}

// StartFirestoreEmulator starts a dedicated emulator (java and the emulator jar are found as
// internal/cmd/testrun finds them). Without them the test is skipped, or fails when
// ALERTCHAT_TEST_REQUIRE_EMULATOR=1. It is stopped when the test ends.
func StartFirestoreEmulator(t testing.TB) *FirestoreEmulator {
	t.Helper()
	java, jar, err := emulatorBinaries()
	if err != nil {
		if os.Getenv(EnvRequireEmulator) == "1" {
			t.Fatalf("dedicated Firestore emulator: %v", err)
		}
		t.Skipf("dedicated Firestore emulator: %v", err)
	}
	host := "127.0.0.1:" + strconv.Itoa(freePort(t))
	e := &FirestoreEmulator{t: t, Host: host, java: java, jar: jar, log: filepath.Join(t.TempDir(), "emulator.log")}
	e.start()
	t.Cleanup(e.Stop)
	return e
}

func (e *FirestoreEmulator) start() {
	e.t.Helper()
	logFile, err := os.OpenFile(e.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(e.Host)
	cmd := exec.Command(e.java, "-Xmx256m", "-cp", e.jar, emulator.Main,
		"start", "--host=127.0.0.1", "--port="+port)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	procgroup.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		e.t.Fatalf("start the Firestore emulator: %v", err)
	}
	group, err := procgroup.Join(cmd)
	if err != nil {
		_ = cmd.Process.Kill()
		e.t.Fatalf("the Firestore emulator's process group: %v", err)
	}
	e.cmd, e.group, e.done = cmd, group, make(chan struct{})
	done := e.done
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(done)
	}()
	deadline := time.Now().Add(90 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		if resp, err := client.Get("http://" + e.Host + "/"); err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 16))
			_ = resp.Body.Close()
			if strings.TrimSpace(string(body)) == "Ok" {
				e.warmUp()
				return
			}
		}
		select {
		case <-done:
			data, _ := os.ReadFile(e.log)
			e.t.Fatalf("the Firestore emulator exited before it was ready:\n%s", data)
		default:
		}
		if time.Now().After(deadline) {
			e.Stop()
			e.t.Fatalf("the Firestore emulator did not answer on %s", e.Host)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// warmUp makes the emulator serve its first document read, which on a cold JVM can take
// several seconds, so that the code under test meets a server as responsive as a real one.
func (e *FirestoreEmulator) warmUp() {
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Get("http://" + e.Host + "/v1/projects/warm-up/databases/(default)/documents/warm/up")
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
}

// Stop kills the emulator (its data is lost); connections to Host are then refused.
func (e *FirestoreEmulator) Stop() {
	if e.cmd == nil {
		return
	}
	// A paused group is killed as well: SIGKILL needs no SIGCONT.
	_ = e.group.Kill()
	<-e.done
	e.cmd = nil
}

// Restart starts a stopped emulator again on the same address, empty.
func (e *FirestoreEmulator) Restart() {
	e.t.Helper()
	e.Stop()
	e.start()
}

// emulatorBinaries finds java and the emulator jar as internal/cmd/testrun does.
func emulatorBinaries() (java, jar string, err error) {
	if java, err = emulator.FindJava(); err != nil {
		return "", "", err
	}
	jar, err = emulator.FindJar()
	return java, jar, err
}
