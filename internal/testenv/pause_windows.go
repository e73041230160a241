package testenv

// Pause needs SIGSTOP, which Windows does not have: the tests of a hung store run on Unix.
func (e *FirestoreEmulator) Pause() {
	e.t.Helper()
	e.t.Fatal("pausing the emulator needs Unix signals (SIGSTOP)")
}

// Resume is Pause's other half.
func (e *FirestoreEmulator) Resume() {
	e.t.Helper()
	e.t.Fatal("resuming the emulator needs Unix signals (SIGCONT)")
}
