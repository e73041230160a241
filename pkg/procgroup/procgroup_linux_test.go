package procgroup_test

import (
	"syscall"
	"testing"
)

// On Linux the kernel ends the child when its parent dies by SIGKILL, which no clean-up can
// follow. (What the child started stays: Pdeathsig reaches the child alone.)
func TestParentKilledTakesTheChild(t *testing.T) {
	t.Parallel()
	parent, pids := startParent(t)
	t.Cleanup(func() { _ = syscall.Kill(-pids[0], syscall.SIGKILL) })
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	assertGone(t, pids[:1])
}
