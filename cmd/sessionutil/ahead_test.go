package sessionutil_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertchat/alertchat/cmd/sessionutil"
	"github.com/alertchat/alertchat/pkg/record"
)

// notes answers each lookup with one entry named after the alert, once release is closed, and
// counts the lookups.
type notes struct {
	release chan struct{}
	calls   atomic.Int32
}

func (n *notes) ForAlert(ctx context.Context, a *record.Alert) ([]*record.Knowledge, error) {
	n.calls.Add(1)
	select {
	case <-n.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return []*record.Knowledge{{ID: record.KnowledgeID("for-" + a.ID)}}, nil
}

// The lookup started ahead is the one the session gets: it runs before anyone asks, is not
// made twice, and another alert is looked up as usual; Stop ends a lookup still waiting.
func TestLookUpAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := &notes{release: make(chan struct{})}
	a := &record.Alert{ID: "a1"}
	ahead := sessionutil.LookUpAhead(ctx, src, a)
	deadline := time.Now().Add(5 * time.Second)
	for src.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if src.calls.Load() != 1 {
		t.Fatalf("the lookup did not start ahead: %d calls", src.calls.Load())
	}
	close(src.release)
	for range 2 {
		es, err := ahead.ForAlert(ctx, a)
		if err != nil || len(es) != 1 || es[0].ID != "for-a1" {
			t.Fatalf("ForAlert(a1) = %v, %v", es, err)
		}
	}
	if es, err := ahead.ForAlert(ctx, &record.Alert{ID: "a2"}); err != nil || len(es) != 1 || es[0].ID != "for-a2" {
		t.Fatalf("ForAlert(a2) = %v, %v", es, err)
	}
	if n := src.calls.Load(); n != 2 {
		t.Errorf("%d lookups, want 2: one ahead for a1, one for a2", n)
	}
	ahead.Stop()

	waiting := &notes{release: make(chan struct{})}
	stopped := sessionutil.LookUpAhead(ctx, waiting, a)
	stopped.Stop() // returns only once the lookup has ended
	if _, err := stopped.ForAlert(ctx, a); err == nil {
		t.Errorf("a stopped lookup answered without its error")
	}
}
