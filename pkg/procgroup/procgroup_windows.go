package procgroup

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"github.com/m-mizutani/goerr/v2"
	"golang.org/x/sys/windows"
)

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A console group of its own: Ctrl-C at alertchat's console does not reach the child.
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// sysGroup is a job object that kills its processes when its last handle closes: alertchat's
// exit, however it happens, closes it.
type sysGroup struct {
	mu  sync.Mutex
	job windows.Handle
}

func (g *sysGroup) join(p *os.Process) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return goerr.Wrap(err, "create a job object")
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return goerr.Wrap(err, "set the job object to kill on close")
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return goerr.Wrap(err, "open the child process", goerr.V("pid", p.Pid))
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return goerr.Wrap(err, "put the child in a job object", goerr.V("pid", p.Pid))
	}
	g.mu.Lock()
	g.job = job
	g.mu.Unlock()
	return nil
}

func (g *sysGroup) kill(int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job == 0 {
		return nil
	}
	err := windows.TerminateJobObject(g.job, 1)
	_ = windows.CloseHandle(g.job)
	g.job = 0
	if err != nil {
		return goerr.Wrap(err, "end the job object")
	}
	return nil
}

func (g *sysGroup) signal(pid int, sig os.Signal) error {
	switch sig {
	case os.Kill:
		return g.kill(pid)
	case os.Interrupt, syscall.SIGTERM:
		if err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)); err != nil {
			return goerr.Wrap(err, "send CTRL_BREAK to the console group", goerr.V("pid", pid))
		}
		return nil
	}
	return goerr.New("signal not offered on Windows", goerr.V("signal", sig))
}
