//go:build unix

package procgroup

import (
	"errors"
	"os"
	"syscall"

	"github.com/m-mizutani/goerr/v2"
)

// sysGroup needs nothing beyond the leader's PID: the process group's ID is that PID.
type sysGroup struct{}

func (sysGroup) join(*os.Process) error { return nil }

func (sysGroup) kill(pid int) error {
	return signalGroup(pid, syscall.SIGKILL)
}

func (sysGroup) signal(pid int, sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return goerr.New("not a signal of this system", goerr.V("signal", sig))
	}
	return signalGroup(pid, s)
}

func signalGroup(pid int, sig syscall.Signal) error {
	// A stopped group would not act on SIGTERM; SIGKILL needs no help.
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return goerr.Wrap(err, "signal the process group", goerr.V("pgid", pid), goerr.V("signal", sig))
	}
	return nil
}
