package cmdutil

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// StopOnSignal is ctx cancelled by the first Ctrl-C or SIGTERM, so that a command running many
// pieces of work stops starting new ones, cancels those in flight and keeps what finished; a
// second signal ends the process at once (its default action, restored). stop releases the
// signals.
func StopOnSignal(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
