// Package procgroup runs a child process as the leader of a group of its own and ends the
// whole group, so that nothing the child starts (npx's node, a shell's pipeline) outlives
// alertchat.
//
// What each system offers differs, so what a caller can rely on is written per system:
//   - Linux: the group is a process group, and the kernel kills the leader when alertchat dies,
//     even on SIGKILL (Pdeathsig). Kill ends the whole group.
//   - macOS and the BSDs: a process group, but no Pdeathsig: the leader goes when alertchat
//     ends it, on exit or on a signal it handles (SIGINT, SIGTERM, SIGHUP), by Kill. A
//     SIGKILL of alertchat leaves the group running.
//   - Windows: a job object that kills every process in it when its last handle closes, which
//     happens when alertchat exits however it exits; the child also starts in a console
//     process group of its own (CREATE_NEW_PROCESS_GROUP), so Ctrl-C at alertchat's console
//     does not reach it.
package procgroup

import (
	"os"
	"os/exec"
	"sync"
)

// Group is a started child's group.
type Group struct {
	pid  int
	once sync.Once
	sys  sysGroup
}

// Prepare sets cmd to start as the leader of a group of its own. It keeps what cmd's
// SysProcAttr already says otherwise.
func Prepare(cmd *exec.Cmd) {
	prepare(cmd)
}

// Join returns the group of cmd, which Prepare set up and which has started. On Windows it
// puts the process in a job object; a process the child starts before that is not in it.
func Join(cmd *exec.Cmd) (*Group, error) {
	g := &Group{pid: cmd.Process.Pid}
	if err := g.sys.join(cmd.Process); err != nil {
		return nil, err
	}
	return g, nil
}

// Kill ends every process of the group at once (SIGKILL; TerminateJobObject). Processes
// already gone are no error; a second call does nothing.
func (g *Group) Kill() error {
	var err error
	g.once.Do(func() { err = g.sys.kill(g.pid) })
	return err
}

// Signal sends sig to every process of the group. On Windows only os.Kill, os.Interrupt and
// SIGTERM are offered (the last two as a CTRL_BREAK_EVENT to the console group).
func (g *Group) Signal(sig os.Signal) error {
	return g.sys.signal(g.pid, sig)
}
