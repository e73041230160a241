package procgroup_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// On Linux the kernel ends the child when its parent dies by SIGKILL, which no clean-up can
// follow. (What the child started stays: Pdeathsig reaches the child alone.)
func TestParentKilledTakesTheChild(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	parent := exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), "PROCGROUP_ROLE=parent", "PROCGROUP_PIDS="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	pids := readPIDs(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(-pids[0], syscall.SIGKILL) })
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	assertGone(t, pids[:1])
}
