package procgroup

import (
	"os/exec"
	"syscall"
)

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// The kernel kills the leader when the thread that started it dies: alertchat's end,
	// even by SIGKILL, takes the child along.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
