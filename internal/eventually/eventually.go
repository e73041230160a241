// Package eventually is the one way tests wait for something another goroutine or process
// makes true (a line on a screen, a request at a fake server, a file): a condition polled
// against a deadline, never a fixed sleep that is too short on a loaded machine and too long
// on an idle one.
package eventually

import (
	"testing"
	"time"
)

// Poll is how often a condition is checked.
const Poll = 10 * time.Millisecond

// True waits until cond holds, checking every Poll, and fails t when timeout passes first;
// the failure says what, and what describe (may be nil) reports of the state then.
func True(t testing.TB, timeout time.Duration, what string, cond func() bool, describe func() string) {
	t.Helper()
	if !Within(timeout, cond) {
		if describe != nil {
			t.Fatalf("timed out after %s waiting for %s; %s", timeout, what, describe())
		}
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// Within reports whether cond held within timeout (checked at once, then every Poll).
func Within(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(Poll)
	}
	return true
}
