//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// prepare starts cmd in a process group of its own. macOS has no Pdeathsig: the group is
// ended by the parent's clean-up (Kill), which alertchat runs on exit and on the signals it
// handles.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
