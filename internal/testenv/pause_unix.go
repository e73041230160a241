//go:build unix

package testenv

import "syscall"

// Pause stops the emulator's processes (SIGSTOP): connections are accepted and never answered,
// as by a hung server. Resume lets them go on, data intact.
func (e *FirestoreEmulator) Pause() {
	if e.cmd != nil {
		_ = e.group.Signal(syscall.SIGSTOP)
	}
}

// Resume continues a paused emulator.
func (e *FirestoreEmulator) Resume() {
	if e.cmd != nil {
		_ = e.group.Signal(syscall.SIGCONT)
	}
}
