//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
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
