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

// The emulator starts, answers, and stops with its whole process group.
func TestEmulatorStartStop(t *testing.T) {
	java, err := emufind.FindJava()
	if err == nil {
		var jar string
		if jar, err = emufind.FindJar(); err == nil {
			startStop(t, java, jar)
			return
		}
	}
	if os.Getenv("ALERTCHAT_TEST_REQUIRE_EMULATOR") == "1" {
		t.Fatal(err)
	}
	t.Skip(err)
}

func startStop(t *testing.T, java, jar string) {
	emu, err := startEmulator(java, jar, "256m", t.TempDir(), 60*time.Second, make(chan os.Signal))
	if err != nil {
		t.Fatal(err)
	}
	pgid := emu.cmd.Process.Pid
	emu.stop()
	select {
	case <-emu.done:
	default:
		t.Fatal("emulator still running after stop")
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("emulator process group still there: %v", err)
	}
}
