package mcp

import (
	"time"

	"golang.org/x/sys/windows"
)

// processCPU is the CPU time the process has spent, user and system.
func processCPU() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	// Filetime counts 100 ns intervals.
	ticks := int64(kernel.HighDateTime)<<32 | int64(kernel.LowDateTime) + int64(user.HighDateTime)<<32 | int64(user.LowDateTime)
	return time.Duration(ticks * 100)
}
