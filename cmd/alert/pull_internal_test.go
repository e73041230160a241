package alert

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"github.com/googleapis/gax-go/v2"

	"github.com/alertchat/alertchat/cmd/cmdutil"
	"github.com/alertchat/alertchat/internal/testenv"
	"github.com/alertchat/alertchat/pkg/store"
	"github.com/alertchat/alertchat/pkg/store/local"
)

// noAck is a subscriber that dies between storing and acknowledging.
type noAck struct{ Puller }

func (noAck) Acknowledge(context.Context, *pubsubpb.AcknowledgeRequest, ...gax.CallOption) error {
	return errors.New("connection lost")
}

// Messages stored but never acknowledged are delivered again, and the second pull stores
// nothing twice: the same alerts, the same IDs.
func TestPullCrashBeforeAck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ps := testenv.NewPubSub(t, 10)
	s, err := local.Open(ctx, local.Options{Dir: t.TempDir(), Workspace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps.Publish(t, []byte(`{"Findings": [{"Title": "a"}, {"Title": "b"}]}`), []byte(`{"title": "c"}`))
	run := func(wrap func(Puller) Puller, wait time.Duration, max int) ([]string, string) {
		t.Helper()
		ios, out, errOut := cmdutil.TestIO("", false)
		opts := &PullOptions{IO: ios, Subscription: ps.Subscription, Wait: wait, Max: max, Connect: func(ctx context.Context, project string) (Puller, func() error, error) {
			p, closeFn, err := connectPubSub(ctx, project)
			return wrap(p), closeFn, err
		}}
		if err := pullRun(ctx, opts, s, 0, nil); err != nil {
			t.Fatal(err)
		}
		return strings.Fields(out.String()), errOut.String()
	}
	first, warn := run(func(p Puller) Puller { return noAck{p} }, 2*time.Second, 0)
	if len(first) != 3 || !strings.Contains(warn, "stored but not acknowledged") {
		t.Fatalf("first pull: %v, stderr %q", first, warn)
	}
	// Delivered again once the ack deadline (10 s) has passed.
	second, _ := run(func(p Puller) Puller { return p }, 30*time.Second, 3)
	if !slices.Equal(first, second) {
		t.Fatalf("delivered again as %v, first %v", second, first)
	}
	page, err := s.ListAlerts(ctx, store.AlertQuery{})
	if err != nil || len(page.Alerts) != 3 {
		t.Fatalf("%d alerts stored, %v", len(page.Alerts), err)
	}
	if again, _ := run(func(p Puller) Puller { return p }, time.Second, 0); len(again) != 0 {
		t.Fatalf("acknowledged messages came back: %v", again)
	}
}
