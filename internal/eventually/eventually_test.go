package eventually_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/internal/eventually"
)

func TestWithin(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	if !eventually.Within(10*time.Second, func() bool { return n.Load() == 3 }) {
		t.Fatal("a condition that comes true was not seen")
	}
	if eventually.Within(30*time.Millisecond, func() bool { return false }) {
		t.Fatal("a condition that never holds was reported")
	}
}
