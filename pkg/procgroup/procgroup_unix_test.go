//go:build unix

package procgroup_test

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/proctest"
	"github.com/alertchat/alertchat/pkg/procgroup"
)

// The test binary plays three parts, chosen by PROCGROUP_ROLE: "child" starts a grandchild
// and writes both PIDs; "sleeper" ignores the polite signals and waits to be killed;
// "parent" runs a child in a group and ends it on SIGINT or SIGTERM, as alertchat does.
func TestMain(m *testing.M) {
	switch os.Getenv("PROCGROUP_ROLE") {
	case "child":
		runChild()
	case "sleeper":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	case "parent":
		runParent()
	}
	os.Exit(m.Run())
}

func runChild() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), "PROCGROUP_ROLE=sleeper")
	if err := gc.Start(); err != nil {
		os.Exit(1)
	}
	pids := fmt.Sprintf("%d %d", os.Getpid(), gc.Process.Pid)
	if err := os.WriteFile(os.Getenv("PROCGROUP_PIDS")+".tmp", []byte(pids), 0o600); err != nil {
		os.Exit(1)
	}
	_ = os.Rename(os.Getenv("PROCGROUP_PIDS")+".tmp", os.Getenv("PROCGROUP_PIDS"))
	_ = gc.Wait()
	os.Exit(0)
}

func runParent() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	cmd := childCommand(os.Getenv("PROCGROUP_PIDS"))
	procgroup.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	g, err := procgroup.Join(cmd)
	if err != nil {
		os.Exit(1)
	}
	<-sigs
	_ = g.Kill()
	_ = cmd.Wait()
	os.Exit(0)
}

// startParent starts the test binary as a parent of a group, and returns it with the PIDs of
// its child and grandchild.
func startParent(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pids")
	parent := exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), "PROCGROUP_ROLE=parent", "PROCGROUP_PIDS="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	return parent, readPIDs(t, pidFile)
}

func childCommand(pidFile string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROCGROUP_ROLE=child", "PROCGROUP_PIDS="+pidFile)
	return cmd
}

// readPIDs waits for the child to write its own PID and its grandchild's.
func readPIDs(t *testing.T, path string) []int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				n, _ := strconv.Atoi(f)
				pids = append(pids, n)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never wrote its PIDs: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for proctest.Alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d (of %v) still runs", pid, pids)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Kill ends the child and what the child started, though both ignore SIGTERM and SIGINT.
func TestKillEndsTheWholeGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := childCommand(pidFile)
	procgroup.Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := procgroup.Join(cmd)
	if err != nil {
		t.Fatal(err)
	}
	pids := readPIDs(t, pidFile)
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	assertGone(t, pids)
	if err := g.Kill(); err != nil {
		t.Fatalf("a second Kill: %v", err)
	}
}

// The child is the leader of a group of its own, so a Ctrl-C at the terminal, which goes to the
// terminal's foreground group, does not reach it; and Prepare keeps what SysProcAttr said.
func TestPrepareStartsAGroupOfItsOwn(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pids")
	cmd := childCommand(pidFile)
	attr := &syscall.SysProcAttr{}
	cmd.SysProcAttr = attr
	procgroup.Prepare(cmd)
	if cmd.SysProcAttr != attr || !attr.Setpgid {
		t.Fatalf("SysProcAttr %+v", cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := procgroup.Join(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Kill(); _ = cmd.Wait() })
	pids := readPIDs(t, pidFile)
	for _, pid := range pids {
		pgid, err := syscall.Getpgid(pid)
		if err != nil {
			t.Fatal(err)
		}
		if pgid != pids[0] {
			t.Fatalf("process %d is in group %d, want the child's %d", pid, pgid, pids[0])
		}
	}
	if own, _ := syscall.Getpgid(os.Getpid()); own == pids[0] {
		t.Fatal("the child shares the test's group")
	}
}

// A parent that ends its group on SIGINT and SIGTERM, as alertchat does, leaves nothing
// behind when it is signalled: the way macOS, which has no Pdeathsig, ends the child.
func TestParentSignalledLeavesNoChild(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			parent, pids := startParent(t)
			if err := parent.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := parent.Wait(); err != nil {
				t.Fatalf("the parent: %v", err)
			}
			assertGone(t, pids)
		})
	}
}
