//go:build unix

package cmdutil

import (
	"context"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestStopOnSignal: the first SIGTERM cancels the context. The test keeps a handler of its own
// for the signal meanwhile, so the test binary survives it once StopOnSignal lets go.
func TestStopOnSignal(t *testing.T) {
	keep, release := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer release()
	ctx, stop := StopOnSignal(context.Background())
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the first SIGTERM did not stop the work")
	}
	<-keep.Done()
}
