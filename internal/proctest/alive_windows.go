package proctest

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess reports for a process that runs.
const stillActive = 259

// Alive reports whether pid runs.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}
